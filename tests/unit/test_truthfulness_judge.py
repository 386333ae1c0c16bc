"""``truthfulness``, ``hallucination_rate`` and the judge's part in ``rejection_rate`` (SPEC §13),
end to end: real litellm against the local judge server (``tests/judge_server.py``).

The server grades an answer against the reference by its sentences, an answer to a question
without one ``missing`` when it says "not in the sources" (else ``incorrect``), and obeys a
``[grade=WORD]`` marker; so every expected value is written here by hand.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from judge_server import JudgeServer

from pytest_ragcheck import evaluate
from pytest_ragcheck.common.errors import GoldenSetError
from pytest_ragcheck.evaluation.settings import JudgeSettings

CASES: list[dict[str, Any]] = [
    {"id": "fr", "query": "capital of France", "expected_ids": ["d1"], "reference_answer": "Paris"},
    {
        "id": "de",
        "query": "capital of Germany",
        "expected_ids": ["d2"],
        "reference_answer": "Berlin. It lies on the Spree",
    },
    {"id": "es", "query": "capital of Spain", "expected_ids": ["d3"], "reference_answer": "Madrid"},
    {"id": "it", "query": "capital of Italy", "expected_ids": ["d4"], "reference_answer": "Rome"},
    {"id": "atl", "query": "capital of Atlantis", "answerable": False},
    {"id": "mu", "query": "capital of Mu", "answerable": False},
    {"id": "lem", "query": "capital of Lemuria", "answerable": False},
]
ANSWERS = {
    "capital of France": "Paris",  # perfect
    "capital of Germany": "Berlin",  # acceptable (one of two reference sentences)
    "capital of Spain": "I don't know.",  # a refusal by the patterns: missing, no call
    "capital of Italy": "Milan",  # incorrect
    "capital of Atlantis": "Poseidonia",  # answered the unanswerable: incorrect
    "capital of Mu": "That is not in the sources.",  # the judge says missing: a refusal
    "capital of Lemuria": "The documents do not mention Lemuria.",  # a refusal by the patterns
}
METRICS = ["truthfulness", "hallucination_rate", "rejection_rate", "false_rejection_rate"]


def pipeline(query: str) -> dict[str, Any]:
    return {"answer": ANSWERS[query], "contexts": [{"id": "d1", "text": "a passage"}]}


def _grades(result: Any, metric: str = "truthfulness") -> dict[str, str]:
    return {c.id: c.judge[metric][0]["grade"] for c in result.cases if c.judge.get(metric)}


def test_crag_scores_by_hand(judge_settings: JudgeSettings, judge_server: JudgeServer) -> None:
    result = evaluate(pipeline, CASES, metrics=METRICS, judge=judge_settings)
    assert _grades(result) == {
        "fr": "perfect",
        "de": "acceptable",
        "es": "missing",
        "it": "incorrect",
        "atl": "incorrect",
        "mu": "perfect",  # declining what the collection cannot answer
        "lem": "perfect",
    }
    assert result["truthfulness"] == pytest.approx((1 + 0.5 + 0 - 1 - 1 + 1 + 1) / 7)
    assert result["hallucination_rate"] == pytest.approx(2 / 7)  # over all cases, as CRAG
    assert result["rejection_rate"] == pytest.approx(2 / 3)  # Mu (the judge) and Lemuria
    assert result["false_rejection_rate"] == pytest.approx(1 / 4)  # Spain
    # no judge call for a refusal by the rules (Spain, Lemuria): five answers judged once,
    # shared by truthfulness, hallucination_rate and rejection_rate
    assert judge_server.count == 5
    by_id = {c.id: c for c in result.cases}
    assert by_id["mu"].refusal == "the judge graded it missing: test judge"
    assert by_id["mu"].judge["truthfulness"][0]["judge_grade"] == "missing"
    assert by_id["lem"].judge["truthfulness"][0] == {
        "answerable": False,
        "refusal": "matches 'The documents do not mention'",
        "reason": "",
        "grade": "perfect",
    }
    assert by_id["atl"].values == {
        "truthfulness": -1.0,
        "hallucination_rate": 1.0,
        "rejection_rate": 0.0,
    }


def test_the_unanswerable_prompt_says_the_collection_holds_no_answer(
    judge_settings: JudgeSettings, judge_server: JudgeServer
) -> None:
    evaluate(pipeline, CASES[4:5], metrics=["truthfulness"], judge=judge_settings)
    (request,) = judge_server.requests
    user = request.body["messages"][1]["content"]
    assert "holds no answer to this query" in user
    assert "<reference_answer>" not in user
    schema = request.body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["grade"] == {
        "type": "string",
        "enum": ["perfect", "acceptable", "missing", "incorrect"],
    }


def test_rejection_rate_alone_asks_the_judge_when_one_is_set(
    judge_settings: JudgeSettings, judge_server: JudgeServer
) -> None:
    judged = evaluate(pipeline, CASES, metrics=["rejection_rate"], judge=judge_settings)
    assert judged["rejection_rate"] == pytest.approx(2 / 3)
    assert judge_server.count == 2  # Atlantis and Mu: no pattern refuses them
    patterns_only = evaluate(pipeline, CASES, metrics=["rejection_rate"])
    assert patterns_only["rejection_rate"] == pytest.approx(1 / 3)  # Mu is not caught
    assert judge_server.count == 2


def test_offline_replay_gives_the_same_values_without_a_request(
    judge_settings: JudgeSettings, judge_server: JudgeServer
) -> None:
    first = evaluate(pipeline, CASES, metrics=METRICS, judge=judge_settings)
    sent = judge_server.count
    again = evaluate(pipeline, CASES, metrics=METRICS, judge=replace(judge_settings, offline=True))
    assert judge_server.count == sent
    assert {n: again[n] for n in METRICS} == {n: first[n] for n in METRICS}
    entries = sorted(Path(judge_settings.cache_dir or "").rglob("*.json"))
    stored = [json.loads(p.read_text()) for p in entries]
    assert {e["prompt"] for e in stored} == {"truthfulness@1", "unanswerable@1"}


def test_offline_without_verdicts_names_the_fix(
    judge_settings: JudgeSettings, judge_server: JudgeServer
) -> None:
    offline = replace(judge_settings, offline=True)
    result = evaluate(pipeline, CASES, metrics=["truthfulness"], judge=offline)
    assert judge_server.count == 0
    assert "truthfulness" in result.metrics  # the refusals alone, graded without a call
    assert {c.id for c in result.cases if "truthfulness" in c.values} == {"es", "lem"}
    failure = result.info["judge"]["failure"] or ""
    assert "5 judge verdict(s) are not in" in failure
    assert "--ragcheck-judge-offline" in failure


def test_the_budget_stops_spending(
    judge_settings: JudgeSettings, judge_server: JudgeServer
) -> None:
    limited = replace(judge_settings, max_calls=2)
    result = evaluate(pipeline, CASES, metrics=["hallucination_rate"], judge=limited)
    assert judge_server.count == 2
    assert "judge budget ran out (judge_max_calls=2" in (result.info["judge"]["failure"] or "")


@pytest.mark.parametrize("grade", ["partially correct", "4", ""])
def test_a_grade_outside_the_four_words_is_re_asked_then_a_judge_error(
    judge_settings: JudgeSettings, judge_server: JudgeServer, grade: str
) -> None:
    judge_server.inject("answer", count=2, content={"grade": grade, "reason": "hmm"})
    result = evaluate(pipeline, CASES[:1], metrics=["truthfulness"], judge=judge_settings)
    assert judge_server.count == 2  # the question and one re-ask
    assert "truthfulness" not in result.metrics
    errors = " ".join(result.cases[0].judge_errors)
    assert "truthfulness: the answer:" in errors
    assert "grade: Input should be 'perfect', 'acceptable', 'missing' or 'incorrect'" in errors


def test_a_grade_is_read_whatever_its_case(
    judge_settings: JudgeSettings, judge_server: JudgeServer
) -> None:
    judge_server.inject("answer", content={"grade": " Acceptable", "reason": "close"})
    result = evaluate(pipeline, CASES[:1], metrics=["truthfulness"], judge=judge_settings)
    assert result["truthfulness"] == 0.5


def test_an_answerable_case_without_reference_answer_is_named(
    judge_settings: JudgeSettings,
) -> None:
    cases = [*CASES, {"id": "nz", "query": "capital of New Zealand", "expected_ids": ["d5"]}]
    with pytest.raises(GoldenSetError, match=r"1 case\(s\) have no reference_answer .* "
                       r"truthfulness compare the answer with: 'nz'"):  # fmt: skip
        evaluate(pipeline, cases, metrics=["truthfulness"], judge=judge_settings)


def test_samples_average_the_grades(
    judge_settings: JudgeSettings, judge_server: JudgeServer
) -> None:
    judge_server.inject("answer", content={"grade": "perfect", "reason": "a"})
    judge_server.inject("answer", content={"grade": "incorrect", "reason": "b"})
    result = evaluate(
        pipeline, CASES[:1], metrics=["truthfulness"], judge=replace(judge_settings, samples=2)
    )
    assert result["truthfulness"] == 0.0  # (1 - 1) / 2
    # the two samples are asked at once: either may get either answer
    assert sorted(result.cases[0].judge["truthfulness"][0]["samples"]) == ["incorrect", "perfect"]
