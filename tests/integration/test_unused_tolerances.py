"""A tolerance that names a metric the test does not compute (a typo, another cutoff) is
noted in the summary: it applies to nothing, and the default tolerance decides instead."""

from __future__ import annotations

from harness import ragcheck_module


def test_a_tolerance_on_a_metric_not_computed_is_noted(suite):
    suite.golden()
    suite.retriever()
    suite.test(ragcheck_module('"golden.jsonl", k=10, metrics=["mrr"], tolerances={"mrr@5": 0.1}'))
    suite.update_baselines()
    result = suite.run()
    result.assert_outcomes(passed=1)
    text = " ".join(suite.text(result).split())  # the terminal wraps long notes
    assert (
        "note: tolerances name mrr@5, which this test does not compute (it computes mrr@10); "
        "those tolerances apply to nothing" in text
    )


def test_a_tolerance_on_a_computed_metric_is_not_noted(suite):
    suite.golden()
    suite.retriever()
    suite.test(ragcheck_module('"golden.jsonl", k=10, metrics=["mrr"], tolerances={"mrr": 0.1}'))
    suite.update_baselines()
    result = suite.run()
    result.assert_outcomes(passed=1)
    assert "apply to nothing" not in suite.text(result)
