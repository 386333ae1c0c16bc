"""What docs/usage.md promises about the marker, checked as a user writes it."""

from __future__ import annotations

import pytest


def test_cases_given_positionally_and_as_keyword_differently_is_a_usage_error(suite):
    # `@ragcheck("a.jsonl", cases="b.jsonl")` used to evaluate b.jsonl without a word.
    suite.make("""
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", cases="other.jsonl", baseline=False)
        def test_rag(ragcheck, retriever):
            ragcheck(retriever)
        """)
    result = suite.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = suite.text(result)
    assert "test_rag.py::test_rag" in text
    assert (
        "@ragcheck got the cases twice, 'golden.jsonl' positionally and 'other.jsonl' as cases="
    ) in text
    suite.assert_clean(result)


def test_cases_given_positionally_and_as_the_same_keyword_still_runs(suite):
    suite.make("""
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", cases="golden.jsonl", k=2, baseline=False)
        def test_rag(ragcheck, retriever):
            assert ragcheck(retriever)["precision@2"] == 0.625
        """)
    suite.run().assert_outcomes(passed=1)
