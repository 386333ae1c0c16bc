"""The pipeline through the library API: aggregates, errors, text spans (no pytest plugin)."""

from __future__ import annotations

import math

import pytest

from pytest_ragcheck import evaluate
from pytest_ragcheck.metrics import mrr, ndcg, recall

CASES = [
    {"id": "a", "query": "alpha", "relevance": {"d1": 2, "d2": 1, "d9": 0}},
    {"id": "b", "query": "beta", "expected_ids": ["d3"]},
    {"id": "c", "query": "gamma", "expected_ids": ["d4", "d5"]},
]
RANKINGS = {"alpha": ["d2", "d9", "d1"], "beta": ["d7", "d3"], "gamma": ["d8"]}


def test_aggregates_are_the_mean_of_the_pure_functions() -> None:
    result = evaluate(lambda q: RANKINGS[q], CASES, k=2, metrics=["mrr", "recall", "ndcg"])
    rel = [{"d1": 2, "d2": 1, "d9": 0}, {"d3": 1}, {"d4": 1, "d5": 1}]
    runs = [RANKINGS["alpha"], RANKINGS["beta"], RANKINGS["gamma"]]
    for name, fn in (("mrr@2", mrr), ("recall@2", recall), ("ndcg@2", ndcg)):
        expected = math.fsum(fn(r, g, 2) for r, g in zip(runs, rel, strict=True)) / 3
        assert result[name] == pytest.approx(expected, abs=1e-12)
        assert result.per_case(name) == {
            cid: pytest.approx(fn(r, g, 2), abs=1e-12)
            for cid, r, g in zip("abc", runs, rel, strict=True)
        }


def test_one_metric_name_may_be_a_string_as_in_the_marker() -> None:
    one = evaluate(lambda q: RANKINGS[q], CASES, k=2, metrics="mrr")
    listed = evaluate(lambda q: RANKINGS[q], CASES, k=2, metrics=["mrr"])
    assert "mrr@2" in one.metrics
    assert "recall@2" not in one.metrics
    assert list(one.metrics) == list(listed.metrics)
    assert one["mrr@2"] == listed["mrr@2"]


def test_a_metric_with_no_case_value_is_absent_not_zero() -> None:
    def broken(query: str) -> list[str]:
        raise RuntimeError(f"index offline for {query}")

    result = evaluate(broken, CASES, k=5, metrics=["mrr"])
    assert "mrr@5" not in result.metrics
    assert [c.status for c in result.cases] == ["error"] * 3
    assert all("index offline" in (c.error or "") for c in result.cases)
    with pytest.raises(KeyError, match="has no value: no case could be scored"):
        result["mrr@5"]


def test_on_error_zero_scores_failed_cases_zero_and_keeps_the_others() -> None:
    def flaky(query: str) -> list[str]:
        if query == "beta":
            raise ValueError("boom")
        return RANKINGS[query]

    result = evaluate(flaky, CASES, k=3, metrics=["mrr"], on_error="zero")
    assert result.per_case("mrr@3") == {"a": 1.0, "b": 0.0, "c": 0.0}
    assert result["mrr@3"] == pytest.approx(1 / 3)
    assert [c.id for c in result.errors] == ["b"]


def test_text_span_recall_counts_every_span_a_hit_contains() -> None:
    case = {"id": "t", "query": "q", "expected_texts": ["red fox", "lazy dog", "blue whale"]}
    hits = [
        {"id": "x", "text": "The quick RED   fox jumps over the lazy dog"},  # two new spans
        {"id": "y", "text": "a red fox again"},  # repeats a found span: not relevant
        {"id": "z", "text": "Blue Whale"},
    ]
    result = evaluate(lambda q: hits, [case], k=2, metrics=["recall", "precision", "mrr"])
    assert result["recall@2"] == pytest.approx(2 / 3)
    assert result["precision@2"] == pytest.approx(1 / 2)
    assert result["mrr@2"] == 1.0
    assert [h.grade for h in result.cases[0].hits] == [1, 0, 1]


def test_an_unknown_judge_setting_names_the_closest_and_the_valid_ones() -> None:
    from pytest_ragcheck.common.errors import ConfigError

    with pytest.raises(ConfigError) as caught:
        evaluate(lambda q: RANKINGS[q], CASES, metrics=["llm_relevancy"], judge={"modle": "x"})
    message = str(caught.value)
    assert message.startswith("judge: unknown setting 'modle' (did you mean 'model'?); ")
    assert "valid settings: model, api_base, samples" in message


def test_a_metric_asked_for_without_a_value_says_why_not_to_add_it() -> None:
    def broken(query: str) -> list[str]:
        raise RuntimeError("index offline")

    result = evaluate(broken, CASES, k=2, metrics=["mrr"])
    with pytest.raises(KeyError) as caught:
        result["mrr"]
    assert caught.value.args[0] == (
        "metric 'mrr' has no value: no case could be scored; every case failed or was "
        "skipped (see result.errors)"
    )
    with pytest.raises(KeyError, match=r"'ndcg' was not computed in this run"):
        result["ndcg"]


def test_a_bound_on_a_metric_without_a_value_fails_never_passes() -> None:
    """Every call timed out (``on_error="zero"``): no latency was measured, so there is none
    (it read 0.0, and a latency ceiling passed on a run whose every call was too slow)."""
    import time

    from pytest_ragcheck.evaluation.keywords import build_settings
    from pytest_ragcheck.gate.verdict import check_floors

    def slow(query: str) -> list[str]:
        time.sleep(0.3)
        return RANKINGS[query]

    keywords = {"timeout": 0.05, "on_error": "zero", "concurrency": 3, "max_latency_p95_ms": 100}
    result = evaluate(slow, CASES, **keywords)
    assert not any(name.startswith("latency_") for name in result.metrics)
    assert result["mrr@10"] == 0.0
    verdict = check_floors(result, build_settings(keywords))
    assert verdict.failed
    assert verdict.problems[0] == (
        "latency_p95_ms: no value to check against its ceiling 100.0 ms: "
        "no retriever call succeeded"
    )
    # ... and a run in which every call failed fails whatever on_error says
    assert verdict.problems[1].startswith("The retriever failed on all 3 cases: on_error='zero'")
    assert len(verdict.problems) == 2
