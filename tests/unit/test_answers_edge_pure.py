"""Pure pieces behind the answer and judge edge cases of tests/integration/test_answers_edge.py
(a basename of its own: two test modules of one name collide when the suite is collected)."""

from __future__ import annotations

import math

import pytest

from pytest_ragcheck.answers.lexical import bleu
from pytest_ragcheck.judge.client import _vector
from pytest_ragcheck.run.output import split_output


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_an_embedding_answer_with_a_non_finite_number_is_malformed(value: float) -> None:
    with pytest.raises(ValueError, match="not a finite number"):
        _vector({"embedding": [0.5, value]})
    assert _vector({"embedding": [0.5, 1]}) == [0.5, 1.0]


@pytest.mark.parametrize(
    "answer", ["Paris is the capital of France.", "the cat sat", "Москва столица России", "巴黎"]
)
def test_a_perfect_answer_has_bleu_exactly_one(answer: str) -> None:
    # sacrebleu's own score for these is 100.00000000000004: a value above 1 would fail
    # ``assert result["bleu"] <= 1`` and read above every floor
    assert bleu(answer, [answer]) == 1.0
    assert bleu(answer, ["something else entirely", answer]) == 1.0


def _message(kind: str) -> object:
    if kind == "langchain":
        from langchain_core.messages import AIMessage

        return AIMessage(content="Paris.")
    from haystack.dataclasses import ChatMessage

    return ChatMessage.from_assistant("Paris.")


@pytest.mark.parametrize(("kind", "field"), [("langchain", "content"), ("haystack", "text")])
def test_a_chat_message_as_the_answer_says_where_its_text_is(kind: str, field: str) -> None:
    with pytest.raises(
        TypeError, match=rf"must be a str, got \w*Message: .*; return its \.{field}$"
    ):
        split_output({"answer": _message(kind), "contexts": []})
