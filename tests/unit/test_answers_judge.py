"""Judged answer metrics end to end: real litellm against the local judge server.

The server's answers follow the sentences of the answer, the contexts and the reference
(see ``tests/judge_server.py``), and its embeddings are hashed word counts
(``judge_server.embed_text``), so every expected value is computed here by hand.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from judge_server import JudgeServer, embed_text

from pytest_ragcheck import Result, evaluate
from pytest_ragcheck.answers.judged import EmbeddingError, cosine
from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.evaluation.settings import JudgeSettings
from pytest_ragcheck.judge.schemas import MAX_ITEMS

CONTEXT = "Paris is the capital of France. It lies on the Seine."
CASES = [
    {
        "id": "fr",
        "query": "What is the capital of France",
        "expected_ids": ["d1"],
        "reference_answer": "Paris is the capital of France. It has two million people.",
    }
]
EMBED = "openai/embed-test"
ALL = ["faithfulness", "answer_relevancy", "answer_correctness", "answer_completeness"]


def pipeline(answer: str, context: str = CONTEXT) -> Any:
    return lambda query: {"answer": answer, "contexts": [{"id": "d1", "text": context}]}


@pytest.fixture
def settings(judge_settings: JudgeSettings) -> JudgeSettings:
    return replace(judge_settings, embedding_model=EMBED)


def _one(answer: str, metric: str, *, base: JudgeSettings, **judge: Any) -> Result:
    """One metric of the pipeline answering ``answer``, with ``judge`` settings changed."""
    return evaluate(pipeline(answer), CASES, metrics=[metric], judge=replace(base, **judge))


def _cos(a: str, b: str) -> float:
    return cosine(embed_text(a), embed_text(b))


def test_every_judged_answer_metric_by_hand(settings: JudgeSettings) -> None:
    answer = "Paris is the capital of France. It has a big tower."
    result = evaluate(pipeline(answer), CASES, metrics=ALL, judge=settings)
    query = CASES[0]["query"]
    relevancy = (
        _cos(query, "Paris is the capital of France?") + _cos(query, "It has a big tower?")
    ) / 2
    f1 = 1 / (1 + 0.5 * (1 + 1))  # TP 1, FP 1 (the tower), FN 1 (the population)
    correctness = 0.75 * f1 + 0.25 * _cos(answer, CASES[0]["reference_answer"])
    assert result["faithfulness@10"] == 0.5
    assert result["answer_relevancy"] == pytest.approx(relevancy)
    assert result["answer_correctness"] == pytest.approx(correctness)
    assert result["answer_completeness"] == 0.5
    claims = result.cases[0].judge["faithfulness@10"]
    assert [(c["claim"], c["supported"]) for c in claims] == [
        ("Paris is the capital of France", True),
        ("It has a big tower", False),
    ]
    assert result.info["judge"]["answers"]["faithfulness"] == {"rejected_quotes": 0}


def test_answer_correctness_without_embeddings_is_the_factual_f1(
    judge_settings: JudgeSettings, judge_server: JudgeServer
) -> None:
    answer = "Paris is the capital of France. It has a big tower."
    result = evaluate(pipeline(answer), CASES, metrics=["answer_correctness"], judge=judge_settings)
    assert result["answer_correctness"] == 0.5
    assert not any(r.path.endswith("/embeddings") for r in judge_server.requests)


def test_a_fabricated_quote_is_rejected_and_counted(
    settings: JudgeSettings, judge_server: JudgeServer
) -> None:
    judge_server.inject("fabricate", count=5)
    answer = "Paris is the capital of France. Berlin is the capital of France too."
    result = evaluate(pipeline(answer), CASES, metrics=["faithfulness"], judge=settings)
    assert result["faithfulness@10"] == 0.5  # the judge said 2/2; the quote check says 1/2
    claims = result.cases[0].judge["faithfulness@10"]
    assert claims[1]["judge_supported"] is True
    assert claims[1]["quote_found"] is False
    assert claims[1]["supported"] is False
    assert result.info["judge"]["answers"]["faithfulness"] == {"rejected_quotes": 1}


def test_quotes_are_checked_in_the_top_k_contexts_after_normalisation(
    settings: JudgeSettings, judge_server: JudgeServer
) -> None:
    quote = "PARIS  is the\ncapital of ＦＲＡＮＣＥ"  # case, whitespace and NFKC differ
    content = {"claims": [{"claim": "Paris is the capital", "supported": True, "quote": quote}]}
    judge_server.inject("answer", content=content)
    result = evaluate(pipeline("Paris."), CASES, metrics=["faithfulness"], judge=settings)
    assert result["faithfulness@10"] == 1.0


def test_cached_run_makes_no_request_and_offline_works(
    settings: JudgeSettings, judge_server: JudgeServer
) -> None:
    answer = "Paris is the capital of France."
    first = evaluate(pipeline(answer), CASES, metrics=ALL, judge=settings)
    sent = judge_server.count
    assert sent == 5  # four questions about the answer + one batch of embeddings
    again = evaluate(pipeline(answer), CASES, metrics=ALL, judge=replace(settings, offline=True))
    assert judge_server.count == sent
    assert {n: again[n] for n in ALL} == {n: first[n] for n in ALL}
    entries = list(Path(settings.cache_dir or "").glob("embedding/*/*.json"))
    assert entries
    assert json.loads(entries[0].read_text())["embedding_model"] == EMBED


def test_offline_without_cached_embeddings_names_the_fix(
    settings: JudgeSettings, judge_server: JudgeServer, tmp_path: Path
) -> None:
    answer = "Paris is the capital of France."
    evaluate(pipeline(answer), CASES, metrics=["answer_relevancy"], judge=settings)
    for entry in Path(settings.cache_dir or "").glob("embedding/*/*.json"):
        entry.unlink()
    result = evaluate(
        pipeline(answer), CASES, metrics=["answer_relevancy"], judge=replace(settings, offline=True)
    )
    assert "answer_relevancy" not in result.metrics
    assert "--ragcheck-judge-offline" in (result.info["judge"]["failure"] or "")


def test_noncommittal_and_claimless_answers_have_documented_values(
    settings: JudgeSettings,
) -> None:
    refusal = evaluate(
        pipeline("I don't know"), CASES, metrics=["answer_relevancy"], judge=settings
    )
    assert refusal["answer_relevancy"] == 0.0
    assert refusal.info["judge"]["answers"]["answer_relevancy"] == {"noncommittal": 1}
    empty = evaluate(pipeline(""), CASES, metrics=["faithfulness"], judge=settings)
    assert empty["faithfulness@10"] == 1.0  # nothing asserted, nothing unfaithful
    assert empty.info["judge"]["answers"]["faithfulness"] == {"no_claims": 1}
    assert not any(math.isnan(v) for v in (*refusal.metrics.values(), *empty.metrics.values()))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ({"claims": [{"claim": "a", "supported": True, "quote": 7}]}, "quote"),
        ({"claims": [{"claim": "a", "supported": True, "quote": ""}] * (MAX_ITEMS + 1)},
         f"more than {MAX_ITEMS}"),
    ],
)  # fmt: skip
def test_malformed_faithfulness_answers_are_re_asked_then_reported(
    settings: JudgeSettings, judge_server: JudgeServer, content: dict[str, Any], message: str
) -> None:
    judge_server.inject("answer", count=2, content=content)
    result = evaluate(pipeline("Paris."), CASES, metrics=["faithfulness"], judge=settings)
    assert "faithfulness@10" not in result.metrics
    assert judge_server.count == 2  # the answer and one re-ask
    assert message in " ".join(result.cases[0].judge_errors)


def test_empty_reference_claims_are_malformed(
    settings: JudgeSettings, judge_server: JudgeServer
) -> None:
    judge_server.inject("wrong_length", count=2)
    result = evaluate(pipeline("Paris."), CASES, metrics=["answer_completeness"], judge=settings)
    assert "answer_completeness" not in result.metrics
    assert "claims list is empty" in " ".join(result.cases[0].judge_errors)


def test_embeddings_of_different_lengths_are_an_error_not_nan(settings: JudgeSettings) -> None:
    cases = [{**CASES[0], "query": "capital of France [dim=8]"}]
    result = evaluate(
        pipeline("Paris is big."), cases, metrics=["answer_relevancy"], judge=settings
    )
    assert "answer_relevancy" not in result.metrics
    assert "embeddings of different lengths (8 and 16)" in " ".join(result.cases[0].judge_errors)


def test_zero_vectors_have_cosine_zero() -> None:
    assert cosine([0.0, 0.0], [1.0, 2.0]) == 0.0
    assert cosine([1.0, 0.0], [2.0, 0.0]) == pytest.approx(1.0)
    with pytest.raises(EmbeddingError, match="different lengths"):
        cosine([1.0], [1.0, 2.0])
    with pytest.raises(EmbeddingError, match="not a finite number"):
        cosine([math.nan], [1.0])


def test_answer_relevancy_without_an_embedding_model_is_a_usage_error(
    judge_settings: JudgeSettings,
) -> None:
    with pytest.raises(ConfigError, match="--ragcheck-judge-embedding-model"):
        evaluate(pipeline("x"), CASES, metrics=["answer_relevancy"], judge=judge_settings)


def test_budget_covers_verdicts_and_embeddings(
    settings: JudgeSettings, judge_server: JudgeServer
) -> None:
    result = _one("Paris is the capital of France.", "answer_relevancy", max_calls=1, base=settings)
    assert judge_server.count == 1  # the questions; no budget left for the embeddings
    assert "answer_relevancy" not in result.metrics
    assert "budget" in " ".join(result.cases[0].judge_errors)


def test_reference_answer_missing_for_a_judged_metric_names_the_cases(
    settings: JudgeSettings,
) -> None:
    from pytest_ragcheck.common.errors import GoldenSetError

    cases = [{"id": "x", "query": "q", "expected_ids": ["d1"]}]
    with pytest.raises(GoldenSetError, match="'x'"):
        evaluate(pipeline("a"), cases, metrics=["answer_correctness"], judge=settings)


def test_judge_samples_average_the_answer_metric_and_count_agreement(
    settings: JudgeSettings, judge_server: JudgeServer
) -> None:
    result = _one(
        "Paris is the capital of France. It has a big tower.",
        "faithfulness",
        samples=3,
        base=settings,
    )
    assert result["faithfulness@10"] == 0.5
    assert judge_server.count == 3  # one request per sample
    assert result.info["judge"]["samples"] == {"items": 1, "agreeing": 1, "abstained": 0}
