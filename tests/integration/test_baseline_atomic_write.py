"""Ctrl-C while ``--snapshot-update`` writes a baseline leaves the old baseline whole.

syrupy empties a snapshot file when it opens it and then writes it: a Ctrl-C or a kill in
between left a baseline of 0 bytes, which the next run could not read. The conftest below
makes the moment reliable: a real SIGINT arrives as the first write to a baseline file (or to
a temporary file beside it) begins.
"""

from __future__ import annotations

import pytest
from harness import Suite, ragcheck_module

CTRL_C_AS_A_BASELINE_IS_WRITTEN = """
import builtins
import os
import signal

_open = builtins.open


class _Interrupted:
    def __init__(self, handle):
        self._handle = handle

    def write(self, text):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C before anything is written
        return self._handle.write(text)

    def __getattr__(self, name):
        return getattr(self._handle, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self._handle.__exit__(*exc)


def _open_interrupted(file, mode="r", *args, **kwargs):
    handle = _open(file, mode, *args, **kwargs)
    if "__ragcheck__" in str(file) and ("w" in mode or "x" in mode):
        return _Interrupted(handle)
    return handle


if os.environ.get("RAGCHECK_TEST_CTRL_C"):
    builtins.open = _open_interrupted
"""


def test_ctrl_c_while_a_baseline_is_written_keeps_the_old_one(
    suite: Suite, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.make(ragcheck_module('"golden.jsonl", k=2'))
    suite.update_baselines().assert_outcomes(passed=1)
    before = suite.snapshots()
    assert len(before) == 1
    assert all(before.values())
    suite.retriever(Suite.WORSE, extra=CTRL_C_AS_A_BASELINE_IS_WRITTEN)
    monkeypatch.setenv("RAGCHECK_TEST_CTRL_C", "1")
    result = suite.run_subprocess("--snapshot-update", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.INTERRUPTED, Suite.text(result)
    assert suite.snapshots() == before  # not emptied, not cut short
    assert list((suite.path / "__ragcheck__").rglob(".*.tmp")) == []  # nothing left beside it
    monkeypatch.delenv("RAGCHECK_TEST_CTRL_C")
    again = suite.run()  # the old baseline is read and compared: WORSE regressed
    again.assert_outcomes(failed=1)
    assert "Baseline cannot be read" not in Suite.text(again)
    assert "regressed" in Suite.text(again).lower()


CTRL_C_AT_THE_SESSION_END = """
import os
import signal


def pytest_sessionfinish(session):  # where syrupy before 7 writes the baselines
    if os.environ.get("RAGCHECK_TEST_CTRL_C"):
        os.kill(os.getpid(), signal.SIGINT)
"""


@pytest.mark.parametrize("update", [True, False], ids=["update", "compare"])
def test_ctrl_c_at_the_session_end_is_an_interrupted_run_with_its_summary(
    suite: Suite, monkeypatch: pytest.MonkeyPatch, update: bool
) -> None:
    """syrupy before 7 writes baselines in its session finish, which pytest runs without
    handling Ctrl-C: a traceback and no summary. It ends as interrupted (exit 2), with the
    summary and a line that says what was kept."""
    suite.make(ragcheck_module('"golden.jsonl", k=2'))
    suite.update_baselines().assert_outcomes(passed=1)
    before = suite.snapshots()
    suite.retriever(extra=CTRL_C_AT_THE_SESSION_END)
    monkeypatch.setenv("RAGCHECK_TEST_CTRL_C", "1")
    args = ["--snapshot-update"] if update else []
    result = suite.run_subprocess(*args, "-p", "no:xdist")
    text = Suite.text(result)
    assert result.ret == pytest.ExitCode.INTERRUPTED, text
    assert "Traceback" not in text, text
    assert "ragcheck: 1 test — 1 passed" in text, text  # the summary is printed
    said = "ragcheck: interrupted while the session finished"
    assert said in text, text
    kept = "any not yet written keeps its earlier content; run --snapshot-update again"
    assert (kept in text) is update, text
    assert suite.snapshots() == before
