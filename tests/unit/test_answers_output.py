"""Pipeline outputs: answer + contexts in every accepted shape, and the bad ones."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_ragcheck import evaluate
from pytest_ragcheck.common.errors import GoldenSetError
from pytest_ragcheck.run.hits import normalize_hits
from pytest_ragcheck.run.output import Answer, split_output

HITS = [{"id": "d1", "text": "Paris is the capital of France."}]


@dataclass
class LlamaResponse:
    """Shaped like LlamaIndex's ``Response``."""

    response: str | None
    source_nodes: list[Any] = field(default_factory=list)


@pytest.mark.parametrize("answer_key", ["answer", "response", "result", "output"])
@pytest.mark.parametrize(
    "contexts_key",
    ["contexts", "documents", "source_documents", "source_nodes", "retrieved_contexts"],
)
def test_dict_with_one_answer_and_one_contexts_key(answer_key: str, contexts_key: str) -> None:
    answer, raw = split_output({answer_key: "Paris", contexts_key: HITS, "query": "q"})
    assert answer == Answer("Paris", has_contexts=True)
    assert normalize_hits(raw)[0][0].id == "d1"


def test_llamaindex_style_response_object() -> None:
    answer, raw = split_output(LlamaResponse("Paris", ["d1", "d2"]))
    assert answer == Answer("Paris", has_contexts=True)
    assert raw == ["d1", "d2"]
    assert split_output(LlamaResponse(None))[0] == Answer(None, has_contexts=True)


def test_plain_hits_and_haystack_documents_are_not_pipelines() -> None:
    assert split_output(HITS) == (None, HITS)
    haystack = {"documents": HITS}
    assert split_output(haystack) == (None, haystack)


def test_answer_without_contexts() -> None:
    assert split_output({"answer": "Paris"}) == (Answer("Paris", has_contexts=False), [])


@pytest.mark.parametrize("bad", [3, ["Paris"], {"text": "Paris"}, b"Paris"])
def test_a_non_string_answer_is_a_type_error(bad: object) -> None:
    with pytest.raises(TypeError, match=r"answer \('answer'\) must be a str, got"):
        split_output({"answer": bad, "contexts": HITS})


def test_several_answer_keys_are_ambiguous() -> None:
    with pytest.raises(TypeError, match=r"several answer keys \(answer, output\)"):
        split_output({"answer": "a", "output": "b", "contexts": HITS})


CASES = [
    {"id": "fr", "query": "capital of France?", "expected_ids": ["d1"], "reference_answer": "Paris"},
    {"id": "de", "query": "capital of Germany?", "expected_ids": ["d2"],
     "reference_answers": ["Berlin", "It is Berlin"]},
]  # fmt: skip


def test_evaluate_scores_answers_and_contexts_together() -> None:
    def pipeline(query: str) -> dict[str, Any]:
        answer = "Paris" if "France" in query else "Berlin, I think"
        return {"answer": answer, "contexts": HITS}

    result = evaluate(pipeline, CASES, metrics=["mrr", "exact_match", "token_f1"])
    assert result.per_case("exact_match") == {"fr": 1.0, "de": 0.0}
    assert result.per_case("token_f1")["de"] == pytest.approx(2 * (1 / 3) / (1 + 1 / 3))
    assert result.per_case("mrr@10") == {"fr": 1.0, "de": 0.0}
    assert [c.answer for c in result.cases] == ["Paris", "Berlin, I think"]
    assert result.to_dict()["cases"][0]["answer"] == "Paris"


def test_answer_only_pipeline_gets_answer_metrics_and_a_clear_error_for_rank_metrics() -> None:
    result = evaluate(lambda q: {"answer": "Paris"}, CASES, metrics=["token_f1"])
    assert result.per_case("token_f1") == {"fr": 1.0, "de": 0.0}
    failed = evaluate(lambda q: {"answer": "Paris"}, CASES, metrics=["mrr", "token_f1"])
    assert all(c.status == "error" for c in failed.cases)
    assert "answer without contexts, but mrr@10 need them" in (failed.cases[0].error or "")


def test_hits_without_answer_while_answer_metrics_are_asked() -> None:
    result = evaluate(lambda q: HITS, CASES, metrics=["mrr", "token_f1"])
    assert result.cases[0].status == "error"
    assert "token_f1 need the pipeline's answer, but it returned only hits" in (
        result.cases[0].error or ""
    )
    none = evaluate(lambda q: {"answer": None, "contexts": HITS}, CASES, metrics=["bleu"])
    assert "returned no answer (None)" in (none.cases[0].error or "")


def test_non_string_answer_is_that_case_error() -> None:
    result = evaluate(lambda q: {"answer": 42, "contexts": HITS}, CASES, metrics=["rouge_l"])
    assert result.cases[0].status == "error"
    assert "must be a str, got int" in (result.cases[0].error or "")
    assert "rouge_l" not in result.metrics  # never a made-up value


def test_missing_reference_answer_names_the_cases() -> None:
    cases = [*CASES, {"id": "nl", "query": "capital of the Netherlands?", "expected_ids": ["d3"]}]
    with pytest.raises(GoldenSetError, match=r"1 case\(s\) have no reference_answer .* 'nl'"):
        evaluate(lambda q: {"answer": "x", "contexts": HITS}, cases, metrics=["token_f1"])


def test_blank_reference_answers_are_a_golden_error() -> None:
    with pytest.raises(GoldenSetError, match="reference answer #2 is empty"):
        evaluate(lambda q: HITS, [{"query": "q", "expected_ids": ["d1"],
                                    "reference_answers": ["a", " "]}])  # fmt: skip


def test_reference_answers_change_the_case_hash_only_when_set() -> None:
    from pytest_ragcheck.golden import GoldenCase

    plain = GoldenCase(query="q", expected_ids=["d1"])
    empty = GoldenCase(query="q", expected_ids=["d1"], reference_answers=[])
    more = GoldenCase(query="q", expected_ids=["d1"], reference_answers=["x"])
    assert plain.content_hash == empty.content_hash != more.content_hash
    assert GoldenCase(query="q", reference_answer="a", reference_answers=["b", "a"]).references == (
        "a",
        "b",
    )


def test_async_pipeline_and_llamaindex_style_response() -> None:
    async def pipeline(query: str) -> dict[str, Any]:
        return {"response": "Paris", "source_nodes": HITS}

    result = evaluate(pipeline, CASES, metrics=["mrr", "exact_match"])
    assert result.per_case("exact_match") == {"fr": 1.0, "de": 0.0}
    assert result.per_case("mrr@10")["fr"] == 1.0

    response = evaluate(lambda q: LlamaResponse("Berlin", HITS), CASES, metrics=["exact_match"])
    assert response.per_case("exact_match") == {"fr": 0.0, "de": 1.0}


def test_on_error_zero_scores_failed_cases_zero_for_answer_metrics() -> None:
    def pipeline(query: str) -> dict[str, Any]:
        if "Germany" in query:
            raise RuntimeError("generator down")
        return {"answer": "Paris", "contexts": HITS}

    result = evaluate(pipeline, CASES, metrics=["token_f1"], on_error="zero")
    assert result.per_case("token_f1") == {"fr": 1.0, "de": 0.0}
    assert result["token_f1"] == 0.5


def test_judge_embedding_model_from_cli_ini_and_marker(tmp_path: Path) -> None:
    from pytest_ragcheck.common.errors import ConfigError
    from pytest_ragcheck.evaluation.keywords import build_settings
    from pytest_ragcheck.evaluation.settings import Defaults
    from pytest_ragcheck.plugin.options import parse_options

    def judge(cli: dict[str, Any], ini: dict[str, Any]) -> Any:
        options = parse_options(cli=cli, ini=ini, invocation_dir=tmp_path, rootdir=tmp_path)
        return options.defaults.judge

    assert judge({}, {}).embedding_model is None
    assert judge({}, {"judge_embedding_model": "e-ini"}).embedding_model == "e-ini"
    cli = {"judge_embedding_model": "e-cli"}
    assert judge(cli, {"judge_embedding_model": "e-ini"}).embedding_model == "e-cli"
    defaults = Defaults(judge=judge(cli, {}))
    marker = build_settings({"judge_embedding_model": "e-marker"}, defaults=defaults, where="t")
    assert marker.judge.embedding_model == "e-marker"
    assert build_settings({}, defaults=defaults, where="t").judge.embedding_model == "e-cli"
    with pytest.raises(ConfigError, match="judge_embedding_model must be a model name string"):
        build_settings({"judge_embedding_model": 3}, defaults=defaults, where="t")
