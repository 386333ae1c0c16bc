"""What the judge and answer-metric pages promise, checked as a user would read them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pytest_ragcheck import evaluate
from pytest_ragcheck.config import JudgeSettings

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
