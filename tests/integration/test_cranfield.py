"""Real rankings through the marker: BM25 on a Cranfield slice, graded judgments in the golden
file, ``[id, score]`` hits; the report holds the numbers of ``evaluate`` on the same input."""

from __future__ import annotations

import pytest
from harness import cranfield_slice, ragcheck_module

import pytest_ragcheck


def test_marker_run_reports_what_evaluate_computes(suite):
    cases, rankings = cranfield_slice(25, k=10)
    suite.make(
        ragcheck_module('"golden.jsonl", k=10, baseline=False'), cases=cases, rankings=rankings
    )
    suite.run("--ragcheck-report=report.json").assert_outcomes(passed=1)
    (test,) = suite.read_json("report.json")["tests"]
    reported = {n: v for n, v in test["aggregates"].items() if not n.startswith("latency_")}
    expected = pytest_ragcheck.evaluate(rankings.__getitem__, cases, k=10)
    assert set(reported) == {n for n in expected.metrics if not n.startswith("latency_")}
    assert reported == pytest.approx({n: expected[n] for n in reported}, abs=1e-12)
    assert 0 < reported["ndcg@10"] < 1  # real, imperfect rankings
