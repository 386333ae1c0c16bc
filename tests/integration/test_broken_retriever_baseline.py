"""A broken retriever never becomes the new normal.

With ``on_error="zero"`` a retriever that raised on every case passed ``--snapshot-update``,
which recorded an all-zero baseline, and every later run with the retriever still down passed
against it. A run in which no retriever call succeeded measures nothing: it fails, whatever
``on_error`` says, and is neither recorded nor compared. A run in which most cases failed says
so in the terminal summary even when ``on_error="zero"`` lets it pass.
"""

from __future__ import annotations

import pytest
from harness import Suite, ragcheck_module

MODULE = ragcheck_module(
    '"golden.jsonl", k=5, metrics=["mrr", "recall"], on_error="zero"', body="ragcheck(flaky)"
)

#: ``flaky`` fails on the queries named in the environment (``*``: on every query).
FLAKY = """
import os

def flaky(query):
    broken = os.environ.get("RAGCHECK_TEST_DOWN", "")
    if broken == "*" or any(word and word in query for word in broken.split(",")):
        raise ConnectionError("vector store unreachable at 10.0.0.7:6333")
    return lookup(query)
"""

ZERO = "on_error='zero' scores a failed case 0, but a run in which no retriever call succeeded"


def _project(suite: Suite) -> None:
    suite.make("from conftest import flaky\n" + MODULE)
    suite.retriever(extra=FLAKY)


def _flat(suite: Suite, result: pytest.RunResult) -> str:
    return " ".join(suite.text(result).split())


def test_an_all_error_run_records_no_baseline(suite: Suite, monkeypatch) -> None:
    _project(suite)
    monkeypatch.setenv("RAGCHECK_TEST_DOWN", "*")
    result = suite.update_baselines()
    result.assert_outcomes(failed=1)
    text = _flat(suite, result)
    assert f"The retriever failed on all 4 cases: {ZERO} measures nothing" in text, text
    assert "neither compared with nor recorded as the baseline. Fix the retriever" in text
    assert "4 cases: ConnectionError: vector store unreachable at 10.0.0.7:6333" in text
    assert "returned no hits for any" not in text  # one cause, named once
    suite.assert_clean(result)
    assert suite.snapshots() == {}  # no baseline of zeros


def test_an_all_error_run_does_not_pass_against_a_good_baseline(suite: Suite, monkeypatch) -> None:
    _project(suite)
    suite.update_baselines().assert_outcomes(passed=1)
    recorded = suite.snapshots()
    assert len(recorded) == 1

    monkeypatch.setenv("RAGCHECK_TEST_DOWN", "*")
    for args in ([], ["--snapshot-update"]):
        result = suite.run(*args)
        result.assert_outcomes(failed=1)
        text = _flat(suite, result)
        assert f"The retriever failed on all 4 cases: {ZERO}" in text, text
        assert "because the evaluation failed" in text  # the baseline was left alone
        suite.assert_clean(result)
        assert suite.snapshots() == recorded


def test_most_cases_failing_is_a_warning_even_when_it_passes(suite: Suite, monkeypatch) -> None:
    _project(suite)
    monkeypatch.setenv("RAGCHECK_TEST_DOWN", "alpha,beta,gamma")  # 3 of the 4 cases
    for args in (["--snapshot-update"], ["-q"]):
        result = suite.run(*args)
        result.assert_outcomes(passed=1)  # on_error="zero": a score, as the user asked
        text = _flat(suite, result)
        assert (
            "ragcheck: warning: test_rag.py::test_rag: the retriever failed on 3 of 4 cases "
            "(scored 0, on_error='zero'): its metrics measure the failures more than the "
            "retriever"
        ) in text, text

    monkeypatch.setenv("RAGCHECK_TEST_DOWN", "alpha,beta")  # half: no warning
    result = suite.run()
    result.assert_outcomes(passed=1)
    assert "ragcheck: warning" not in suite.text(result)
