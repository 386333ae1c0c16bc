"""The marker: import, registration, positional cases, merging and parametrized tests.

Expected values are computed by hand from ``suite.GOLDEN``: with ``suite.PERFECT`` every
relevant document is ranked first, so at k=2 hit rate, MRR and recall are 1 and precision is
(1/2 + 1/2 + 2/2 + 1/2) / 4 = 0.625.
"""

from __future__ import annotations

import pytest
from harness import SERIAL_ONLY


def test_newcomer_flow_passes(suite, run_mode):
    suite.make("""
        from pytest_ragcheck import ragcheck
        @ragcheck(cases="golden.jsonl", k=2, baseline=False, min_mrr=0.9, min_recall_at_2=0.9)
        def test_faq(ragcheck, retriever):
            result = ragcheck(retriever)
            assert result["mrr@2"] == 1.0
            assert result["mrr"] == 1.0  # a name without @ takes the marker's k
            assert result["precision@2"] == 0.625
            assert result["recall@2"] == 1.0
            assert len(result.cases) == 4
        """)
    result = suite.run("--strict-markers", *run_mode)
    result.assert_outcomes(passed=1)
    suite.assert_clean(result)


def test_marker_object_is_pytest_mark_ragcheck(suite):
    suite.test(
        """
        import pytest
        import pytest_ragcheck

        def test_same():
            assert pytest_ragcheck.ragcheck == pytest.mark.ragcheck
            assert pytest_ragcheck.ragcheck.name == "ragcheck"
        """
    )
    suite.run("--strict-markers").assert_outcomes(passed=1)


def test_marker_is_registered(suite):
    result = suite.run("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.ragcheck(*"])


def test_strict_markers_accept_pytest_mark_spelling(suite):
    suite.make("""
        import pytest

        pytestmark = pytest.mark.ragcheck("golden.jsonl", k=2, baseline=False)

        def test_rag(ragcheck, retriever):
            assert ragcheck(retriever)["hit_rate@2"] == 1.0
        """)
    result = suite.run("--strict-markers")
    result.assert_outcomes(passed=1)


def test_positional_and_keyword_cases_are_the_same(suite):
    suite.make("""
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=2, baseline=False)
        def test_positional(ragcheck, retriever):
            assert ragcheck(retriever)["precision@2"] == 0.625

        @ragcheck(cases="golden.jsonl", k=2, baseline=False)
        def test_keyword(ragcheck, retriever):
            assert ragcheck(retriever)["precision@2"] == 0.625
        """)
    suite.run().assert_outcomes(passed=2)


# Not about processes: pytest-xdist is covered by test_newcomer_flow_passes[xdist].
@SERIAL_ONLY
def test_class_method_and_parametrized_markers(suite, run_mode):
    # q1 finds its document at rank 2 only, q2 not at all: MRR@2 = (1/2 + 0 + 1 + 1) / 4.
    # Parametrized tests: each parameter is its own test with its own result.
    # hit_rate@2 with `lookup` is 3/4 (q2's document is at rank 3), with `weak` 0.
    suite.make(
        """
        import pytest
        from conftest import lookup, weak
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=2, baseline=False, min_hit_rate=0.5)
        @pytest.mark.parametrize("name", ["good", "weak"])
        def test_param(ragcheck, name):
            ragcheck({"good": lookup, "weak": weak}[name])
        """,
        rankings={
            "what is alpha": ["x", "a"],
            "what is beta": ["x", "y", "b"],
            "gamma and delta": ["c", "d"],
            "what is epsilon": ["e"],
        },
        extra="""
        def weak(query):
            return ["x", "y"]
        """,
        name="test_param",
    )
    suite.test(
        """
        import pytest
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=5, baseline=False, metrics=["mrr", "recall"])
        class TestRag:
            @ragcheck(k=2)
            def test_method_k_wins(self, ragcheck, retriever):
                result = ragcheck(retriever)
                assert set(result.metrics) >= {"mrr@2", "recall@2"}
                assert result["mrr@2"] == 0.625

            def test_class_k(self, ragcheck, retriever):
                result = ragcheck(retriever)
                # q2's document is at rank 3: MRR@5 = (1/2 + 1/3 + 1 + 1) / 4
                assert result["mrr@5"] == pytest.approx((0.5 + 1 / 3 + 1 + 1) / 4)

            @ragcheck(k=2, min_mrr=0.7)
            def test_method_floor_fails(self, ragcheck, retriever):
                ragcheck(retriever)
        """
    )
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=3, failed=2)
    result.stdout.fnmatch_lines(["*mrr@2: 0.625 < 0.700 (floor)*"])
    suite.assert_clean(result)
    text = suite.text(result)
    assert "PASSED test_param.py::test_param[good]" in text
    assert "FAILED test_param.py::test_param[weak]" in text
    assert "hit_rate@2: 0.000 < 0.500 (floor)" in text
    assert "FAILED test_rag.py::TestRag::test_method_floor_fails" in text


def test_ragcheck_fixture_without_cases(suite):
    suite.retriever()
    suite.test(
        """
        def test_rag(ragcheck, retriever):
            ragcheck(retriever)
        """
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no golden cases: add @ragcheck(cases='golden.jsonl')*"])
    suite.assert_clean(result)


@pytest.mark.parametrize("where", ["test-folder", "rootdir"])
def test_cases_path_resolution(suite, where):
    """Marker paths resolve against the test file's folder first, then the rootdir."""
    suite.retriever()
    suite.golden(name="tests/golden.jsonl" if where == "test-folder" else "data/golden.jsonl")
    suite.test(
        """
        from pytest_ragcheck import ragcheck
        @ragcheck("{path}", k=2, baseline=False)
        def test_rag(ragcheck, retriever):
            assert ragcheck(retriever)["mrr@2"] == 1.0
        """.format(path="golden.jsonl" if where == "test-folder" else "data/golden.jsonl"),
        name="tests/test_rag",
    )
    suite.run().assert_outcomes(passed=1)
