"""Absolute floors and ceilings: ``min_<metric>``, ``_at_`` cutoffs, ``thresholds={}``,
``max_latency_*``, and the one failure message listing every violated bound.

Hand-computed values for ``WEAK`` on ``suite.GOLDEN`` at k=2 (relevant: q1 a, q2 b, q3 c+d,
q4 e):

====  ========  ======  =========  ======  =============
case  ranking   mrr@2   recall@2   hit@2   precision@2
====  ========  ======  =========  ======  =============
q1    x a       1/2     1          1       1/2
q2    x y       0       0          0       0
q3    d z       1       1/2        1       1/2
q4    e         1       1          1       1/2
mean            0.625   0.625      0.75    0.375
====  ========  ======  =========  ======  =============
"""

from __future__ import annotations

import pytest
from harness import SERIAL_ONLY, ragcheck_module

WEAK = {
    "what is alpha": ["x", "a"],
    "what is beta": ["x", "y"],
    "gamma and delta": ["d", "z"],
    "what is epsilon": ["e"],
}


def _suite(suite, keywords: str, extra: str = ""):
    source = ragcheck_module(
        f'"golden.jsonl", k=2, baseline=False, {keywords}',
        body="""
        result = ragcheck(retriever)
        print("REACHED-AFTER-CALL")
        """,
    )
    suite.make(source, rankings=WEAK, extra=extra)


@pytest.mark.parametrize(
    "keywords",
    [
        "min_mrr=0.625",  # equal to the floor passes
        "min_mrr_at_2=0.6, min_recall_at_2=0.6",
        "thresholds={'hit_rate@2': 0.75, 'precision': 0.375}",
        "min_precision=0.3, thresholds={'recall@2': 0.5}",
        "max_latency_p95_ms=60000, max_latency_max_ms=60000",
    ],
)
def test_floors_met_pass(suite, keywords):
    _suite(suite, keywords)
    result = suite.run("-s")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*REACHED-AFTER-CALL*"])


# Not about processes: pytest-xdist is covered by
# test_summary.py::test_summary_after_a_regression[xdist].
@SERIAL_ONLY
def test_violated_bounds_fail_with_one_message(suite, run_mode):
    _suite(
        suite,
        "min_mrr=0.7, min_recall_at_2=0.6, thresholds={'hit_rate@2': 0.8, 'precision@2': 0.3}",
        extra="""
        import time

        def slow(query):
            time.sleep(0.005)
            return lookup(query)
        """,
    )
    suite.test(
        """
        from conftest import slow
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=2, baseline=False, max_latency_p95_ms=0.5)
        def test_latency(ragcheck):
            ragcheck(slow)
        """,
        name="test_latency",
    )
    result = suite.run(*run_mode)
    result.assert_outcomes(failed=2)
    suite.assert_clean(result)
    text = suite.text(result)
    assert "REACHED-AFTER-CALL" not in text
    # Each call sleeps 5 ms, so the p95 latency is above the 0.5 ms ceiling.
    result.stdout.fnmatch_lines(["*latency_p95_ms: * > 0.500 (ceiling)*"], consecutive=False)
    assert "ragcheck failed for golden.jsonl (4 cases, k=2)" in text
    assert "mrr@2: 0.625 < 0.700 (floor)" in text
    assert "hit_rate@2: 0.750 < 0.800 (floor)" in text
    # Floors that hold are not listed as violated.
    assert "recall@2: 0.625 <" not in text
    assert "precision@2: 0.375 <" not in text
    # The worst cases of a violated metric: id, query and value, lowest first; only the
    # cases under the floor.
    result.stdout.fnmatch_lines(
        [
            "*worst cases for mrr@2 (2 of 4 under 0.700):*",
            "*q2  'what is beta'  0.000*",
            "*q1  'what is alpha'  0.500*",
        ]
    )
    assert "'gamma and delta'  1.000" not in text
    # pytrace=False: no source lines of the test or of the plugin.
    assert "def test_rag" not in text
    assert text.count("Thresholds violated:") == 2  # one message per test


def test_threshold_on_a_metric_not_listed_is_computed(suite):
    suite.make(
        """
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=2, baseline=False, metrics=["mrr"], min_recall_at_1=0.9)
        def test_rag(ragcheck, retriever):
            ragcheck(retriever)
        """,
        rankings=WEAK,
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    # recall@1: q1 0, q2 0, q3 0 (d is 1 of 2 relevant: 1/2), q4 1 -> (0 + 0 + 1/2 + 1) / 4
    result.stdout.fnmatch_lines(["*recall@1: 0.375 < 0.900 (floor)*"])


def test_user_assertions_still_work_after_passing_floors(suite):
    suite.make(
        """
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=2, baseline=False, min_mrr=0.5)
        def test_rag(ragcheck, retriever):
            result = ragcheck(retriever)
            assert result["ndcg@2"] > 0.99, "user assertion"
        """,
        rankings=WEAK,
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*AssertionError: user assertion*"])
