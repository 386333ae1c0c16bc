"""``pytest.exit()`` in a test (or in its retriever) ends the session with the status it is given, 0 included: the
tests after it never run, so ``--snapshot-update`` must not delete their baselines."""

from __future__ import annotations

import pytest
from harness import SERIAL_ONLY, Suite

MODULE = """
import os

import pytest

from pytest_ragcheck import ragcheck
def _stop():
    pytest.exit("stopping here", returncode=int(os.environ["RAGCHECK_TEST_EXIT"]))


@ragcheck("golden.jsonl", k=3, baseline=False)
def test_a_stop(ragcheck, retriever):
    if os.environ.get("RAGCHECK_TEST_EXIT_IN") == "test":
        _stop()
    if os.environ.get("RAGCHECK_TEST_EXIT_IN") == "retriever":
        ragcheck(lambda query: _stop())
    else:
        ragcheck(retriever)


@ragcheck("golden.jsonl", k=3)
def test_b_first(ragcheck, retriever):
    ragcheck(retriever)


@ragcheck("golden.jsonl", k=2, metrics=["mrr"])
def test_c_second(ragcheck, retriever):
    ragcheck(retriever)
"""


# The guard runs in the controller; its early-stop paths under pytest-xdist are covered by
# test_baseline_guard.py::test_an_incomplete_session_deletes_no_baseline[xdist].
@pytest.mark.parametrize(
    ("where", "returncode"), [("test", "0"), ("test", "1"), ("retriever", "1")]
)
@SERIAL_ONLY
def test_pytest_exit_in_a_test_deletes_no_baseline(
    suite: Suite, run_mode: list[str], where: str, returncode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.make(MODULE)
    suite.update_baselines().assert_outcomes(passed=3)
    recorded = suite.snapshots()
    assert len(recorded) == 2
    monkeypatch.setenv("RAGCHECK_TEST_EXIT", returncode)
    monkeypatch.setenv("RAGCHECK_TEST_EXIT_IN", where)
    result = suite.run("--snapshot-update", "--ragcheck-report=r.json", *run_mode)
    text = Suite.text(result)
    assert result.ret == int(returncode), text
    assert suite.snapshots() == recorded, text
    assert "only 0 of the 3 tests ran to the end" in text, text
    assert suite.read_json("r.json")["run"]["incomplete"] == "only 0 of the 3 tests ran to the end"
    # a complete session afterwards still finds nothing to delete, and says nothing of it
    monkeypatch.delenv("RAGCHECK_TEST_EXIT_IN")
    again = suite.run("--snapshot-update", "--ragcheck-report=r.json", *run_mode)
    again.assert_outcomes(passed=3)
    assert suite.read_json("r.json")["run"]["incomplete"] is None
    assert suite.snapshots() == recorded
