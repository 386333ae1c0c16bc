"""What the judge and answer-metric pages promise, checked as a user would read them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pytest_ragcheck import evaluate
from pytest_ragcheck.evaluation.settings import JudgeSettings

CASES = [
    {
        "id": "fr",
        "query": "What is the capital of France",
        "expected_ids": ["d1"],
        "reference_answer": "Paris is the capital of France.",
    }
]


def _pipeline(answer: str) -> Any:
    return lambda query: {
        "answer": answer,
        "contexts": [{"id": "d1", "text": "Paris is the capital of France."}],
    }


def test_an_answer_the_judge_generates_no_question_from_is_counted_as_noncommittal(
    judge_settings: JudgeSettings,
) -> None:
    # docs/answers.md: "the judge marks the answer noncommittal, or generates no question |
    # answer_relevancy 0.0; counted as noncommittal" -- the count is what explains the 0.
    settings = replace(judge_settings, embedding_model="openai/embed-test")
    result = evaluate(_pipeline(""), CASES, metrics=["answer_relevancy"], judge=settings)
    assert result["answer_relevancy"] == 0.0
    assert result.info["judge"]["answers"]["answer_relevancy"] == {"noncommittal": 1}


def test_an_undefined_kappa_gives_its_reason_once_when_both_questions_share_it(
    judge_settings: JudgeSettings,
) -> None:
    # docs/judge.md: "When κ is undefined it is absent (never NaN) and a note says why".
    def retriever(query: str) -> list[dict[str, str]]:
        return [{"id": "d1", "text": "[g=3] Paris is the capital of France."}]

    result = evaluate(retriever, CASES, metrics=["llm_relevancy", "llm_ndcg"], judge=judge_settings)
    assert "judge_kappa" not in result.metrics
    (note,) = [n for n in result.info["trust"]["notes"] if n.startswith("judge_kappa")]
    reason = "all 1 labelled documents the judge saw are relevant for the people"
    assert note.count(reason) == 1, note
