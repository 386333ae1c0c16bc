"""Cases with only ``expected_texts``: matching by text after NFKC, case-folding and whitespace
collapsing; each span is one relevant item found at the first hit containing it."""

from __future__ import annotations

from harness import SERIAL_ONLY

CASES = [
    {
        "id": "paris",
        "query": "capital of france",
        "expected_texts": ["Paris is the capital", "Eiffel  Tower"],
    },
    {"id": "ligature", "query": "file formats", "expected_texts": ["file format"]},
    {"id": "both", "query": "two in one", "expected_texts": ["alpha", "omega"]},
]

RETRIEVER = """
HITS = {
    "capital of france": [
        {"id": "d1", "text": "An introduction"},
        {"id": "d2", "text": "PARIS  is the\\ncapital of France"},
        {"id": "d3", "text": "paris is the capital, again"},
        {"id": "d4", "text": "The eiffel tower is tall"},
    ],
    # NFKC turns the ligature "\\ufb01" into "fi"
    "file formats": [{"id": "f1", "content": "A \\ufb01le FORMAT guide"}],
    "two in one": [
        {"id": "b1", "text": "Alpha and Omega"},
        {"id": "b2", "text": "nothing"},
    ],
}


def spans(query):
    return HITS[query]
"""


# Not about processes: pytest-xdist is covered by
# test_summary.py::test_summary_after_a_regression[xdist].
@SERIAL_ONLY
def test_span_matching(suite, run_mode):
    suite.make(
        """
        from conftest import spans
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=4, baseline=False, metrics=["mrr", "recall", "precision", "hit_rate"])
        def test_rag(ragcheck):
            result = ragcheck(spans)
            per = {name: result.per_case(name) for name in ("mrr", "recall", "precision")}
            # paris: spans found at ranks 2 and 4; d3 repeats a found span (not relevant).
            assert per["mrr"]["paris"] == 0.5
            assert per["recall"]["paris"] == 1.0
            assert per["precision"]["paris"] == 2 / 4
            # ligature: found at rank 1
            assert per["mrr"]["ligature"] == 1.0
            assert per["recall"]["ligature"] == 1.0
            assert per["precision"]["ligature"] == 1 / 4
            # both spans in the first hit: one relevant hit, both spans recalled
            assert per["mrr"]["both"] == 1.0
            assert per["recall"]["both"] == 1.0
            assert per["precision"]["both"] == 1 / 4
            assert result["hit_rate@4"] == 1.0
            paris = next(c for c in result.cases if c.id == "paris")
            assert [h.grade for h in paris.hits] == [0, 1, 0, 1]
            assert paris.n_relevant == 2
        """,
        cases=CASES,
        extra=RETRIEVER,
    )
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=1)


def test_span_recall_respects_the_cutoff(suite):
    suite.make(
        """
        from conftest import spans
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=3, baseline=False, metrics=["recall", "recall@2"], min_recall=0.9)
        def test_rag(ragcheck):
            ragcheck(spans)
        """,
        cases=CASES[:1],
        extra=RETRIEVER,
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    # Only "Paris is the capital" (rank 2) is in the top 3: recall@3 = 1/2.
    result.stdout.fnmatch_lines(["*recall@3: 0.500 < 0.900 (floor)*"])


def test_hits_without_text_are_an_error_for_span_cases(suite):
    """Bare ids cannot match text spans: the case fails instead of silently scoring 0."""
    suite.make(
        """
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=2, baseline=False, metrics=["recall"])
        def test_rag(ragcheck, retriever):
            ragcheck(retriever)
        """,
        cases=CASES[:2],
        rankings={"capital of france": ["d1", "d2"], "file formats": []},
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    suite.assert_clean(result)
    text = suite.text(result)
    # An empty result list is a legitimate miss, not an error.
    assert "The retriever failed on 1 of 2 case(s)" in text
    assert "paris  'capital of france': this case matches by text (expected_texts)" in text
