"""From golden cases and the user's object to a :class:`Result`: the settings a call runs with
(call > marker > CLI > ini > default), the one pipeline (run, metrics, judge, answers), per-case
scoring, and the :class:`Result` / :class:`CaseResult` data every later stage reads.
``evaluate()`` and ``compare()`` (:mod:`.api`) are its public face outside pytest."""
