"""A retriever that returns no hit for any case (an index never loaded) fails the test rather
than scoring 0 everywhere, and records no baseline of zeros; finding nothing for some queries
is a score like any other."""

from __future__ import annotations

from pathlib import Path

from harness import ragcheck_module


def test_no_hit_for_any_case_fails_and_records_nothing(suite):
    suite.golden()
    suite.test(
        ragcheck_module('"golden.jsonl", k=5, metrics=["mrr"]', body="ragcheck(lambda q: [])")
    )
    suite.retriever()
    result = suite.run("--snapshot-update")
    result.assert_outcomes(failed=1)
    text = " ".join(suite.text(result).split())
    assert "The retriever returned no hits for any of the " in text
    assert "so every metric that reads hits is 0. Is the index loaded" in text
    assert not list(Path(suite.pytester.path).rglob("*.json"))  # no baseline of zeros


def test_no_hit_for_some_cases_is_a_score(suite):
    suite.golden()
    suite.retriever()
    suite.test(
        ragcheck_module(
            '"golden.jsonl", k=5, metrics=["mrr"], baseline=False',
            body="ragcheck(lambda q: retriever(q) if 'alpha' in q else [])",
        )
    )
    result = suite.run()
    result.assert_outcomes(passed=1)
    assert "returned no hits for any" not in suite.text(result)
