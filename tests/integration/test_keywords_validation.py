"""Bad marker keywords: a usage error (exit code 4) naming the test and the fix.

Under pytest-xdist a worker cannot raise a usage error, so the same message is a collection
error shown by the controller; in both modes no test of the session runs.
"""

from __future__ import annotations

import pytest
from harness import SERIAL_ONLY, ragcheck_module


def _module(keywords: str, function: str = "test_rag") -> str:
    """A ragcheck test with the marker keywords, and a plain test beside it."""
    return ragcheck_module(
        f'"golden.jsonl", {keywords}',
        function=function,
        extra="""

        def test_other():
            pass
        """,
    )


VALID_METRICS_HINT = "valid metrics: hit_rate, hit_rate_granular, mrr"


def _assert_usage_error(suite, result, run_mode):
    if run_mode:
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.stdout.fnmatch_lines(["*ERROR collecting test_rag.py*"])
    else:
        assert result.ret == pytest.ExitCode.USAGE_ERROR
    outcomes = result.parseoutcomes()
    assert "passed" not in outcomes, "a test ran despite the bad marker"
    assert "test_rag.py::test_rag" in suite.text(result)
    suite.assert_clean(result)


# Not about processes: pytest-xdist is covered by
# test_summary.py::test_summary_after_a_regression[xdist].
@SERIAL_ONLY
def test_unknown_metric_and_keyword(suite, run_mode):
    suite.make(_module("min_mrrr=0.5"))
    suite.test(_module("kk=5", function="test_kw"), name="test_kw")
    result = suite.run(*run_mode)
    _assert_usage_error(suite, result, run_mode)
    text = suite.text(result)
    # Every bad marker of the session is reported, each naming its test.
    assert "test_rag.py::test_rag: min_mrrr: unknown metric 'mrrr' (did you mean 'mrr'?)" in text
    assert VALID_METRICS_HINT in text
    assert "test_kw.py::test_kw: @ragcheck: unknown keyword 'kk' (did you mean 'k'?)" in text
    assert "valid keywords: cases, k, metrics, thresholds" in text


@pytest.mark.parametrize(
    ("keywords", "expected"),
    [
        pytest.param(
            "metrics=['mrr', 'ndgc@5']",
            ["unknown metric 'ndgc@5' (did you mean 'ndcg'?)", VALID_METRICS_HINT],
            id="metrics-list",
        ),
        pytest.param(
            "thresholds={'recal@5': 0.8}",
            ["thresholds: unknown metric 'recal@5' (did you mean 'recall'?)"],
            id="thresholds-dict",
        ),
        pytest.param(
            "min_recal_at_5=0.8",
            ["min_recal_at_5: unknown metric", "(did you mean 'recall'?)"],
            id="at-spelling",
        ),
        pytest.param("tolerence=0.1", ["(did you mean 'tolerance'?)"], id="keyword-typo"),
        pytest.param("k=0", ["k must be an integer >= 1, got 0"], id="k-zero"),
        pytest.param("k=-3", ["k must be an integer >= 1, got -3"], id="k-negative"),
        pytest.param("k=2.5", ["k must be an integer >= 1, got float: 2.5"], id="k-float"),
        pytest.param("min_mrr=1.5", ["min_mrr must be <= 1, got 1.5"], id="floor-above-1"),
        pytest.param("min_recall_at_5=-0.1", ["min_recall_at_5 must be >= 0"], id="floor-negative"),
        pytest.param(
            "thresholds={'ndcg@5': 2}",
            ["thresholds['ndcg@5'] must be <= 1, got 2"],
            id="dict-above-1",
        ),
        pytest.param(
            "min_mrr='high'", ["min_mrr must be a number, got str"], id="floor-not-number"
        ),
        pytest.param(
            "max_mrr=0.5",
            ["max_mrr: max_ bounds are for lower-is-better metrics"],
            id="max-quality",
        ),
        pytest.param(
            "min_latency_p95_ms=100",
            ["latency_p95_ms is lower-is-better; use max_latency_p95_ms"],
            id="min-latency",
        ),
        pytest.param(
            "on_error='ignore'", ["on_error must be one of 'fail', 'zero'"], id="on-error"
        ),
        pytest.param("empty='skp'", ["(did you mean 'skip'?)"], id="empty-typo"),
        pytest.param("timeout=0", ["timeout must be > 0 seconds"], id="timeout-zero"),
        pytest.param("concurrency=0", ["concurrency must be an integer >= 1"], id="concurrency"),
        pytest.param("tolerance=-1", ["tolerance must be >= 0"], id="tolerance"),
        pytest.param(
            "timeout=-1",
            ["timeout must be > 0 seconds (or None for no timeout), got -1"],
            id="timeout-negative",
        ),
        pytest.param(
            "significance=5",
            ["significance must be a level strictly between 0 and 1 (e.g. 0.05) or None, got 5"],
            id="significance",
        ),
        pytest.param("baseline='yes'", ["baseline must be True or False"], id="baseline"),
    ],
)
def test_bad_keyword_values(suite, keywords, expected):
    suite.make(_module(keywords))
    result = suite.run()
    _assert_usage_error(suite, result, [])
    text = suite.text(result)
    for fragment in expected:
        assert fragment in text


def test_two_positional_arguments(suite):
    suite.make("""
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", "other.jsonl", baseline=False)
        def test_rag(ragcheck, retriever):
            ragcheck(retriever)
        """)
    result = suite.run()
    _assert_usage_error(suite, result, [])
    assert "@ragcheck takes at most one positional argument (the cases)" in suite.text(result)


def test_parametrized_test_reports_the_problem_once(suite):
    suite.make("""
        import pytest
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", baseline=False, k=0)
        @pytest.mark.parametrize("n", [1, 2, 3])
        def test_rag(ragcheck, retriever, n):
            ragcheck(retriever)
        """)
    result = suite.run()
    _assert_usage_error(suite, result, [])
    text = suite.text(result)
    assert text.count("k must be an integer >= 1") == 1
    assert "test_rag.py::test_rag[1] (and 2 more test(s)): " in text
