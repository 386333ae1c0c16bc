"""``ragcheck(retriever, **overrides)``: the call's keywords win over the marker's."""

from __future__ import annotations

from harness import SERIAL_ONLY


# Not about processes: pytest-xdist is covered by
# test_summary.py::test_summary_after_a_regression[xdist].
@SERIAL_ONLY
def test_overrides_win_and_are_validated(suite, run_mode):
    suite.make("""
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=5, baseline=False, metrics=["mrr", "precision"], min_mrr=0.99)
        def test_rag(ragcheck, retriever):
            result = ragcheck(retriever, k=2, metrics=["precision"])
            assert result.k == 2
            # The marker's floor still applies (so mrr@2 is computed), and precision@2 is
            # (1/2 + 1/2 + 2/2 + 1/2) / 4 with the perfect rankings.
            assert set(result.metrics) >= {"precision@2", "mrr@2"}
            assert "precision@5" not in result.metrics
            assert result["precision@2"] == 0.625

        @ragcheck("golden.jsonl", baseline=False)
        def test_unknown_keyword(ragcheck, retriever):
            ragcheck(retriever, min_mrr=0.5, topk=3)
        """)
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=1, failed=1)
    suite.assert_clean(result)
    text = suite.text(result)
    assert "ragcheck(...): unknown keyword 'topk'" in text
    assert "valid keywords: cases, k, metrics" in text


def test_override_floor_fails_the_test(suite):
    suite.make(
        """
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=2, baseline=False, min_mrr=0.1)
        def test_rag(ragcheck, retriever):
            ragcheck(retriever, min_mrr=0.5)
        """,
        rankings={"what is alpha": ["a"], "what is beta": ["x", "b"]},
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    # mrr@2 = (1 + 1/2 + 0 + 0) / 4
    result.stdout.fnmatch_lines(["*mrr@2: 0.375 < 0.500 (floor)*"])
    suite.assert_clean(result)


def test_cases_given_in_the_call_without_marker(suite):
    suite.retriever()
    suite.test(
        """
        CASES = [
            {"query": "what is alpha", "expected_ids": ["a"]},
            {"query": "what is beta", "relevance": {"x": 1, "b": 2}},
        ]

        def test_rag(ragcheck, retriever):
            result = ragcheck(retriever, cases=CASES, k=1, baseline=False, metrics=["mrr"])
            # alpha: a at rank 1; beta: b (grade 2) at rank 1 -> both 1
            assert result["mrr@1"] == 1.0
            assert [c.query for c in result.cases] == ["what is alpha", "what is beta"]
        """
    )
    suite.run().assert_outcomes(passed=1)


def test_bad_override_metric_name(suite):
    suite.make("""
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", baseline=False)
        def test_rag(ragcheck, retriever):
            ragcheck(retriever, metrics=["recal@5"])
        """)
    result = suite.run()
    result.assert_outcomes(failed=1)
    suite.assert_clean(result)
    assert "unknown metric 'recal@5' (did you mean 'recall'?)" in suite.text(result)


def test_two_calls_in_one_test(suite):
    suite.make("""
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", baseline=False, metrics=["precision"])
        def test_rag(ragcheck, retriever):
            one = ragcheck(retriever, k=1)
            two = ragcheck(retriever, k=2)
            assert one["precision@1"] == 1.0
            assert two["precision@2"] == 0.625
        """)
    suite.run().assert_outcomes(passed=1)


def test_precedence_call_marker_cli_ini(suite):
    """call overrides > marker > command line > ini file > built-in default."""
    suite.ini(ragcheck_tolerance="0.05", ragcheck_concurrency="3")
    suite.test(
        """
        from pytest_ragcheck import ragcheck
        def test_ini(ragcheck):
            assert ragcheck.settings().concurrency == 3
            assert ragcheck.settings().timeout == 60.0  # built-in default

        def test_cli(ragcheck):
            assert ragcheck.settings().tolerance == 0.07

        @ragcheck(tolerance=0.1, concurrency=2)
        def test_marker(ragcheck):
            assert ragcheck.settings().tolerance == 0.1
            assert ragcheck.settings().concurrency == 2
            assert ragcheck.settings(tolerance=0.2).tolerance == 0.2
        """
    )
    result = suite.run("--ragcheck-tolerance=0.07", "-k", "cli or marker")
    result.assert_outcomes(passed=2, deselected=1)
    suite.run("-k", "ini").assert_outcomes(passed=1, deselected=2)
