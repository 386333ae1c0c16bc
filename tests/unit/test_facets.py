"""Diversity through ``evaluate()``: span subtopics, cases without subtopics, the usage error;
and the explanation lines of the diversity and authority metrics."""

from __future__ import annotations

import pytest

from pytest_ragcheck import evaluate, metrics
from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.gate.facet_explain import lost_subtopics, source_lines, subtopic_lines

NAMES = ["alpha_ndcg@3", "nerr_ia@3", "p_ia@3", "subtopic_recall@2", "map_ia", "nnrbp"]


def test_span_subtopics_score_as_the_same_judgments_by_id() -> None:
    """Each hit containing one new span is ndeval's document for that span."""
    texts = {
        "h1": "The Jaguar XK is a CAR.",
        "h2": "the jaguar   is a big cat",
        "h3": "another car model",
        "h4": "nothing",
    }
    spans_case = {
        "id": "s",
        "query": "jaguar",
        "subtopic_texts": {"car": ["is a car", "car model"], "cat": ["big cat"]},
    }
    ids_case = {"id": "s", "query": "jaguar", "subtopics": {"car": ["h1", "h3"], "cat": ["h2"]}}
    for order in (["h1", "h2", "h3", "h4"], ["h4", "h3", "h1", "h2"], ["h2"]):
        hits = [{"id": h, "text": texts[h]} for h in order]
        by_text = evaluate(lambda q, hits=hits: hits, [spans_case], k=3, metrics=NAMES)
        by_id = evaluate(lambda q, hits=hits: hits, [ids_case], k=3, metrics=NAMES)
        assert by_text.cases[0].values == pytest.approx(by_id.cases[0].values), order


def test_a_hit_containing_spans_of_two_subtopics_covers_both() -> None:
    case = {"query": "q", "subtopic_texts": {"a": ["alpha"], "b": ["beta"]}}
    hits = [{"id": "x", "text": "alpha and beta"}, {"id": "y", "text": "alpha again"}]
    result = evaluate(lambda q: hits, [case], k=2, metrics=["subtopic_recall@1", "p_ia@2"])
    assert result["subtopic_recall@1"] == 1.0
    assert result["p_ia@2"] == 2 / (2 * 2)  # the repeat of a found span covers nothing new
    assert result.cases[0].facets == {
        "subtopics": {"a": {"relevant": 1, "first_rank": 1}, "b": {"relevant": 1, "first_rank": 1}}
    }


def test_cases_without_subtopics_have_no_value_and_are_counted() -> None:
    cases = [
        {"id": "with", "query": "a", "expected_ids": ["d1"], "subtopics": {"s": ["d1"]}},
        {"id": "without", "query": "b", "expected_ids": ["d2"]},
    ]
    result = evaluate(lambda q: ["d1", "d2"], cases, k=2, metrics=["alpha_ndcg", "recall"])
    assert result["alpha_ndcg@2"] == 1.0  # the mean over the case with subtopics only
    assert "alpha_ndcg@2" not in result.cases[1].values
    assert result.cases[1].values["recall@2"] == 1.0
    assert result.info["facets"]["notes"] == [
        "1 case without subtopics: no value for alpha_ndcg@2, whose means are over the 1 case "
        "with subtopics ('without')"
    ]


def test_subtopics_without_a_relevant_document_score_zero() -> None:
    case = {"query": "q", "subtopics": {"s": {"d1": 0}, "t": {"d2": 0}}}
    result = evaluate(lambda q: ["d1", "d2"], [case], k=2, metrics=NAMES)
    assert {name: result[name] for name in NAMES} == dict.fromkeys(NAMES, 0.0)


def test_no_case_with_subtopics_is_a_usage_error_before_the_retriever_runs() -> None:
    called = []

    def retriever(query: str) -> list[str]:
        called.append(query)
        return []

    with pytest.raises(ConfigError) as info:
        evaluate(retriever, [{"query": "q", "expected_ids": ["d"]}], metrics=["p_ia@5", "nrbp"])
    assert str(info.value).startswith(
        "p_ia@5, nrbp need subtopic judgments, but no case of <cases> has 'subtopics'"
    )
    assert called == []


def test_the_pure_functions_and_evaluate_agree_on_alpha() -> None:
    subtopics = {"a": ["d1", "d2"], "b": ["d3"]}
    for alpha in (0.0, 0.25, 1.0):
        result = evaluate(
            lambda q: ["d1", "d2", "d3"],
            [{"query": "q", "subtopics": subtopics}],
            k=3,
            metrics=["alpha_ndcg@3"],
            diversity_alpha=alpha,
        )
        expected = metrics.alpha_ndcg(["d1", "d2", "d3"], subtopics, 3, alpha=alpha)
        assert result["alpha_ndcg@3"] == expected


# ----------------------------------------------------------------- explanations


def test_lost_subtopics_name_the_documents_that_covered_them() -> None:
    subtopics = {"car": {"c1": 1, "c2": 1}, "cat": {"a1": 1, "a2": 0}, "team": {"t1": 1}}
    assert lost_subtopics(subtopics, ["c1", "a1", "t1", "x"], ["c1", "c2", "x", "a1"], 3) == [
        "lost subtopic 'cat' (was a1 at 2)",
        "lost subtopic 'team' (was t1 at 3)",
    ]
    assert lost_subtopics(subtopics, ["c1", "a1"], ["a1", "c1"], 2) == []
    assert lost_subtopics(subtopics, ["x", "a1"], ["a1"], 1) == []  # not covered before either


def test_subtopic_lines() -> None:
    coverage = {
        "car": {"relevant": 2, "first_rank": 1},
        "cat": {"relevant": 1, "first_rank": 7},
        "team": {"relevant": 1, "first_rank": None},
        "judged only 0": {"relevant": 0, "first_rank": None},
    }
    subtopics = {"car": {"c1": 1}, "cat": {"a1": 1, "a9": 0}, "team": {"t1": 2}}
    assert subtopic_lines(coverage, 5, subtopics) == [
        "top 5 misses 2 of 3 subtopics: 'cat' (a1 first at 7), 'team' (t1 not retrieved)"
    ]
    assert subtopic_lines(coverage, 10, subtopics) == [
        "top 10 misses 1 of 3 subtopics: 'team' (t1 not retrieved)"
    ]


def test_source_lines() -> None:
    def entry(rank: int, source: str, weight: float, pattern: str | None) -> dict[str, object]:
        return {"rank": rank, "source": source, "weight": weight, "pattern": pattern}

    sources = [
        entry(1, "https://www.nih.gov/a", 1.0, "nih.gov"),
        entry(2, "https://example.com/x", 0.2, "*"),
        entry(3, "https://example.com/y", 0.2, "*"),
        entry(4, "spam.net/z", 0.0, None),
        entry(5, "https://nih.gov/b", 1.0, "nih.gov"),
        entry(6, "https://late.org", 0.0, None),
    ]
    assert source_lines(sources, 5, 0.5, untrusted=False) == [
        "sources of the top 5: www.nih.gov 1.000, example.com 0.200 ×2, spam.net 0.000, "
        "nih.gov 1.000",
        "3 of the top 5 from unknown sources: example.com ×2, spam.net",
    ]
    assert source_lines(sources, 2, 0.1, untrusted=True) == [
        "sources of the top 2: www.nih.gov 1.000, example.com 0.200"
    ]
    assert source_lines([], 5, 0.5, untrusted=True) == []
