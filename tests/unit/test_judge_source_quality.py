"""``llm_source_quality@k`` through the real litellm client and the local judge server: the
judge grades each hit's source (its URL in front of its text), cached and replayed offline."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from judge_server import JudgeServer

from pytest_ragcheck import evaluate
from pytest_ragcheck.evaluation.settings import JudgeSettings

CASES = [
    {"id": "flu", "query": "flu vaccine", "expected_ids": ["a"]},
    {"id": "none", "query": "nothing found", "expected_ids": ["z"]},
]
HITS: dict[str, list[dict[str, Any]]] = {
    "flu vaccine": [
        {"id": "a", "text": "official advice [g=3]", "url": "https://www.cdc.gov/flu"},
        {"id": "b", "text": "a forum post [g=1]", "metadata": {"source": "forum.example/t/1"}},
        {"id": "c", "text": "buy pills [g=0]", "meta": {"url": "https://spam.example/x"}},
        {"id": "d", "text": "beyond k [g=3]", "url": "https://nih.gov/d"},
    ],
    "nothing found": [],
}


def _retriever(query: str) -> list[dict[str, Any]]:
    return HITS[query]


def test_source_quality_is_the_mean_grade_over_three(
    judge_settings: JudgeSettings, judge_server: JudgeServer
) -> None:
    result = evaluate(
        _retriever, CASES, k=3, metrics=["llm_source_quality@3"], judge=judge_settings
    )
    assert result.cases[0].values["llm_source_quality@3"] == pytest.approx((3 + 1 + 0) / 9)
    assert result.cases[1].values["llm_source_quality@3"] == 0.0  # no hits: 0
    assert result["llm_source_quality@3"] == pytest.approx(4 / 18)
    # the judge saw each hit's source in front of its text, fenced as data
    texts = sorted(r.user_text for r in judge_server.requests)
    assert len(texts) == 3
    assert (
        "<retrieved_text>\nSource: https://www.cdc.gov/flu\n\nofficial advice [g=3]"
        in texts[0] + texts[1] + texts[2]
    )
    assert [e["grade"] for e in result.cases[0].judge["llm_source_quality@3"]] == [3, 1, 0]
    # offline, from the cache: no call
    before = judge_server.count
    again = evaluate(
        _retriever,
        CASES,
        k=3,
        metrics=["llm_source_quality@3"],
        judge=replace(judge_settings, offline=True),
    )
    assert again["llm_source_quality@3"] == result["llm_source_quality@3"]
    assert judge_server.count == before


def test_a_hit_without_a_source_is_a_judge_error_naming_the_chunk(
    judge_settings: JudgeSettings,
) -> None:
    result = evaluate(
        lambda q: [{"id": "a", "text": "no url [g=3]"}],
        CASES[:1],
        k=3,
        metrics=["llm_source_quality@3"],
        judge=judge_settings,
    )
    assert "llm_source_quality@3" not in result.cases[0].values
    assert result.cases[0].judge_errors == [
        "llm_source_quality@3: chunk 1: the hit has no source (url, source or domain) to judge"
    ]
