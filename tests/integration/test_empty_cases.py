"""Cases with nothing relevant to find: ``empty="error"`` (default), ``"skip"``, ``"zero"``."""

from __future__ import annotations

import pytest
from harness import SERIAL_ONLY, ragcheck_module

CASES = [
    {"id": "q1", "query": "what is alpha", "expected_ids": ["a"]},
    {"id": "q2", "query": "what is beta", "expected_ids": ["b"]},
    {"id": "none1", "query": "what is omega", "expected_ids": []},
    {"id": "none2", "query": "what is zeta", "relevance": {"z": 0}},
]
RANKINGS = {"what is alpha": ["a"], "what is beta": ["b"], "what is zeta": ["z"]}


def _suite(suite, extra="", mrr=None, statuses=None, *, cases=CASES, rankings=RANKINGS):
    source = ragcheck_module(
        f'"golden.jsonl", k=2, baseline=False, metrics=["mrr", "recall"]{extra}',
        body=f"""
        result = ragcheck(retriever)
        assert result["mrr@2"] == {mrr}
        assert [c.status for c in result.cases] == {statuses}
        """,
    )
    suite.make(source, cases=cases, rankings=rankings)


@pytest.mark.parametrize("extra", ["", ", empty='error'"])
def test_error_is_the_default(suite, extra):
    _suite(suite, extra)
    result = suite.run()
    result.assert_outcomes(failed=1)
    suite.assert_clean(result)
    text = suite.text(result)
    assert "2 case(s) have no relevant document" in text
    assert "'none1', 'none2'" in text
    assert "empty='skip'" in text
    assert "empty='zero'" in text


# Not about processes: pytest-xdist is covered by
# test_summary.py::test_summary_after_a_regression[xdist].
@SERIAL_ONLY
def test_skip_excludes_them(suite, run_mode):
    # Both remaining cases find their document first; the empty ones are reported, not scored.
    _suite(suite, ", empty='skip'", mrr=1.0, statuses=["ok", "ok", "skipped", "skipped"])
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=1)


def test_zero_scores_them_zero(suite):
    # (1 + 1 + 0 + 0) / 4
    _suite(suite, ", empty='zero'", mrr=0.5, statuses=["ok"] * 4)
    result = suite.run()
    result.assert_outcomes(passed=1)


def test_all_cases_skipped_is_an_error(suite):
    _suite(suite, ", empty='skip'", cases=CASES[2:], rankings=None)
    result = suite.run()
    result.assert_outcomes(failed=1)
    suite.assert_clean(result)
    assert "no case" in suite.text(result).lower()
