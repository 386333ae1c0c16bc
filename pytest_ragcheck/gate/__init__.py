"""Pass or fail: floors, the comparison with a baseline on the cases both share (added, removed,
edited), per-tag gates, paired statistics, the worst cases and why they regressed, and the
:class:`Verdict` with its message. Pure: the pytest face turns a failed verdict into
``pytest.fail``."""
