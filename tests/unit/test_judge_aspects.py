"""``llm_aspect_recall@k`` and ``llm_alpha_ndcg@k`` through the real litellm client and the
local judge server: the judge lists a query's aspects once, then marks each chunk's aspects;
cached, replayed offline, budgeted. Expected values are computed by hand from the markers
(``[aspects=...]`` in a query, ``[c=...]`` in a chunk: see ``tests/judge_server.py``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from judge_server import JudgeServer
from sklearn.metrics import cohen_kappa_score

from pytest_ragcheck import evaluate, metrics
from pytest_ragcheck.evaluation.settings import JudgeSettings

NAMES = ["llm_aspect_recall@3", "llm_alpha_ndcg@3"]
CASES = [
    {"id": "jaguar", "query": "jaguar [aspects=car,cat,team]", "expected_ids": ["h1"]},
    {"id": "same", "query": "jaguar [aspects=car,cat,team]", "expected_ids": ["h3"]},
    {"id": "empty", "query": "nothing [aspects=x]", "expected_ids": ["z"]},
]
HITS: dict[str, list[dict[str, Any]]] = {
    "jaguar [aspects=car,cat,team]": [
        {"id": "h1", "text": "the XK [c=car]"},
        {"id": "h2", "text": "the F-type [c=car]"},
        {"id": "h3", "text": "the big cat [c=cat,bogus]"},  # an id it did not list: ignored
        {"id": "h4", "text": "the team [c=team]"},  # beyond k
    ],
    "nothing [aspects=x]": [],
}


def _retriever(query: str) -> list[dict[str, Any]]:
    return HITS[query]


def test_aspect_metrics_by_hand(judge_settings: JudgeSettings, judge_server: JudgeServer) -> None:
    result = evaluate(_retriever, CASES, k=3, metrics=NAMES, judge=judge_settings)
    first = result.cases[0].values
    assert first["llm_aspect_recall@3"] == pytest.approx(2 / 3)
    # alpha-nDCG over the judge's labels, the ideal built from the same three chunks
    expected = metrics.alpha_ndcg(
        ["0", "1", "2"], {"car": ["0", "1"], "cat": ["2"], "team": []}, 3, alpha=0.5
    )
    assert first["llm_alpha_ndcg@3"] == pytest.approx(expected)
    assert 0 < expected < 1
    assert result.cases[1].values == first  # the same query and chunks: judged once
    assert result.cases[2].values == {"llm_aspect_recall@3": 0.0, "llm_alpha_ndcg@3": 0.0}
    # one aspects call for the query, one covers call per chunk of the top 3
    kinds = sorted(r.kind for r in judge_server.requests)
    assert kinds == ["ragcheck_aspects", *["ragcheck_covers"] * 3]
    details = result.cases[0].judge["llm_aspect_recall@3"]
    assert details[0] == {
        "aspects": [["car", "about car"], ["cat", "about cat"], ["team", "about team"]]
    }
    assert [d["covers"] for d in details[1:]] == [["car"], ["car"], ["cat"]]

    before = judge_server.count
    offline = replace(judge_settings, offline=True)
    again = evaluate(_retriever, CASES, k=3, metrics=NAMES, judge=offline)
    assert {n: again[n] for n in NAMES} == {n: result[n] for n in NAMES}
    assert judge_server.count == before  # replayed from the cache


def test_diversity_alpha_reaches_the_judged_alpha_ndcg(judge_settings: JudgeSettings) -> None:
    values = {}
    for alpha in (0.0, 1.0):
        found = evaluate(
            _retriever,
            CASES[:1],
            k=3,
            metrics=["llm_alpha_ndcg@3"],
            judge=judge_settings,
            diversity_alpha=alpha,
        )
        values[alpha] = found["llm_alpha_ndcg@3"]
        expected = metrics.alpha_ndcg(
            ["0", "1", "2"], {"car": ["0", "1"], "cat": ["2"], "team": []}, 3, alpha=alpha
        )
        assert values[alpha] == pytest.approx(expected)
    assert values[0.0] != values[1.0]


def test_offline_without_verdicts_and_the_budget_are_errors(
    judge_settings: JudgeSettings,
) -> None:
    offline = evaluate(
        _retriever, CASES[:1], k=3, metrics=NAMES, judge=replace(judge_settings, offline=True)
    )
    assert offline.cases[0].values == {}
    assert any("the query's aspects" in e for e in offline.cases[0].judge_errors)
    # the aspects take the only call the budget allows: no chunk is judged, no value
    budget = evaluate(
        _retriever, CASES[:1], k=3, metrics=NAMES, judge=replace(judge_settings, max_calls=1)
    )
    assert budget.cases[0].values == {}
    assert budget.info["judge"]["calls"] == 1


SUBTOPIC_CASES = [
    {**CASES[0], "subtopics": {"car": ["h1"], "cat": ["h3"]}},
    {
        "id": "python",
        "query": "python [aspects=snake,lang]",
        "expected_ids": ["p1"],
        "subtopics": {"snake": ["p1", "p3"], "lang": ["p2"]},
    },
]
HITS["python [aspects=snake,lang]"] = [
    {"id": "p1", "text": "a snake [c=snake]"},
    {"id": "p2", "text": "a language [c=lang]"},
    {"id": "p3", "text": "a reptile, the judge sees no aspect"},  # a subtopic the judge misses
]


def test_aspect_kappa_against_human_subtopics_live_and_offline(
    judge_settings: JudgeSettings, judge_server: JudgeServer
) -> None:
    result = evaluate(_retriever, SUBTOPIC_CASES, k=3, metrics=NAMES, judge=judge_settings)
    # per chunk of the top 3: covers a human subtopic / the judge marked an aspect
    human = [1, 0, 1, 1, 1, 1]  # h2 is listed under no subtopic
    judge = [1, 1, 1, 1, 1, 0]  # p3 carries no [c=...] marker
    assert result["aspect_kappa"] == pytest.approx(cohen_kappa_score(human, judge), abs=1e-12)
    question = result.info["judge"]["aspect_agreement"]
    assert question["pairs"] == 6
    assert question["confusion"] == {"tp": 4, "fp": 1, "fn": 1, "tn": 0}
    assert question["metrics"] == NAMES[::-1]  # sorted: both metrics judged every chunk
    assert "aspect_kappa" not in result.cases[0].values  # a run-level statistic

    before = judge_server.count
    offline = replace(judge_settings, offline=True)
    again = evaluate(_retriever, SUBTOPIC_CASES, k=3, metrics=NAMES, judge=offline)
    assert judge_server.count == before  # replayed from the cache
    assert again["aspect_kappa"] == result["aspect_kappa"]
    assert again.info["judge"]["aspect_agreement"] == question
