"""Gating a RAG pipeline on its answers through the pytest surface, against the local judge.

The pipeline reads its answers from ``answers.json`` at each call, so a test can switch it to
one that invents claims between runs.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from harness import SERIAL_ONLY, Suite
from judge_fixtures import JUDGE_MODEL
from judge_server import JudgeServer

GOLDEN = [
    {
        "id": "fr",
        "query": "What is the capital of France",
        "expected_ids": ["d1"],
        "reference_answer": "Paris is the capital of France.",
    },
    {
        "id": "de",
        "query": "What is the capital of Germany",
        "expected_ids": ["d2"],
        "reference_answers": ["Berlin is the capital of Germany.", "Berlin."],
    },
]
CONTEXTS = {
    "What is the capital of France": [
        {"id": "d1", "text": "Paris is the capital of France. It lies on the Seine."}
    ],
    "What is the capital of Germany": [
        {"id": "d2", "text": "Berlin is the capital of Germany. It lies on the Spree."}
    ],
}
FAITHFUL = {
    "What is the capital of France": "Paris is the capital of France.",
    "What is the capital of Germany": "Berlin is the capital of Germany. It lies on the Spree.",
}
INVENTING = {
    "What is the capital of France": "Paris is the capital of France. It has ten airports.",
    "What is the capital of Germany": "Berlin is the capital of Germany. It lies on the Spree.",
}
PIPELINE = """
from pathlib import Path


@pytest.fixture
def pipeline():
    def run(query):
        answers = json.loads((Path(__file__).parent / "answers.json").read_text())
        return {"answer": answers[query], "contexts": lookup(query)}

    return run
"""
TEST = """
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=3, metrics=["mrr", "faithfulness", "token_f1"],
          min_faithfulness=0.9, min_token_f1=0.5)
def test_rag(ragcheck, pipeline):
    result = ragcheck(pipeline)
    assert result["token_f1"] > 0.5
"""


def _project(suite: Suite, answers: dict[str, str]) -> None:
    suite.make(TEST, cases=GOLDEN, rankings=CONTEXTS, extra=PIPELINE)
    _answers(suite, answers)


def _answers(suite: Suite, answers: dict[str, str]) -> None:
    suite.write("answers.json", json.dumps(answers))


def _judge_args(server: JudgeServer) -> list[str]:
    return [f"--ragcheck-judge-model={JUDGE_MODEL}", f"--ragcheck-judge-api-base={server.url}"]


@pytest.fixture(scope="module")
def litellm_preloaded() -> None:
    from pytest_ragcheck.judge.client import import_litellm

    import_litellm()


def _baseline(suite: Suite) -> dict[str, Any]:
    (name,) = suite.snapshots()
    return json.loads(suite.snapshots()[name])  # type: ignore[no-any-return]


# Not about processes: pytest-xdist is covered by
# test_report_formats.py::test_json_markdown_and_html_reports[xdist].
@SERIAL_ONLY
@pytest.mark.usefixtures("litellm_preloaded")
def test_gate_on_faithfulness_and_token_f1_then_catch_invented_claims(
    suite: Suite, run_mode: list[str], judge_server: JudgeServer
) -> None:
    _project(suite, FAITHFUL)
    args = _judge_args(judge_server)
    recorded = suite.update_baselines(None, *args)
    recorded.assert_outcomes(passed=1)
    stored = json.dumps(_baseline(suite))
    assert "faithfulness@3" in stored
    assert "token_f1" in stored

    again = suite.run(*run_mode, *args, "--ragcheck-judge-offline")  # every verdict cached
    again.assert_outcomes(passed=1)
    Suite.assert_clean(again)

    _answers(suite, INVENTING)
    failed = suite.run(*run_mode, *args)
    failed.assert_outcomes(failed=1)
    Suite.assert_clean(failed)
    text = Suite.text(failed)
    assert "faithfulness@3" in text
    assert "regressed" in text or "below" in text
    assert "answer: 'Paris is the capital of France. It has ten airports.'" in text
    assert "unsupported claims: 'It has ten airports'" in text  # in the regressed case
    assert "claim 'It has ten airports' not supported by the contexts" in text  # under the floor


@pytest.mark.usefixtures("litellm_preloaded")
def test_report_and_junit_carry_the_answer_metrics(suite: Suite, judge_server: JudgeServer) -> None:
    _project(suite, INVENTING)
    suite.test(TEST.replace("min_faithfulness=0.9", "baseline=False"))
    result = suite.run(
        *_judge_args(judge_server), "--ragcheck-report=report.json", "--junitxml=junit.xml"
    )
    result.assert_outcomes(passed=1)
    report = suite.read_json("report.json")
    text = json.dumps(report)
    assert "It has ten airports" in text
    assert '"answer"' in text
    props = suite.junit_properties("junit.xml")["test_rag"]
    assert any(name and "faithfulness@3" in name for name in props)
    assert any(name and "token_f1" in name for name in props)


def test_answer_only_pipeline_with_rank_metrics_names_the_problem(suite: Suite) -> None:
    suite.make(TEST, cases=GOLDEN, rankings=CONTEXTS, extra=PIPELINE.replace(
        '"contexts": lookup(query)', '"sources": lookup(query)'))  # fmt: skip
    _answers(suite, FAITHFUL)
    suite.test(
        """
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=3, metrics=["mrr", "token_f1"], baseline=False)
        def test_rag(ragcheck, pipeline):
            ragcheck(pipeline)
        """
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    Suite.assert_clean(result)
    assert "answer without contexts, but mrr@3 need them" in Suite.text(result)


def test_answer_relevancy_without_an_embedding_model_is_a_clean_usage_failure(
    suite: Suite, judge_server: JudgeServer
) -> None:
    suite.make(TEST, cases=GOLDEN, rankings=CONTEXTS, extra=PIPELINE)
    _answers(suite, FAITHFUL)
    suite.test(
        """
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", metrics=["answer_relevancy"], baseline=False)
        def test_rag(ragcheck, pipeline):
            ragcheck(pipeline)
        """
    )
    result = suite.run(*_judge_args(judge_server))
    result.assert_outcomes(failed=1)
    Suite.assert_clean(result)
    assert "--ragcheck-judge-embedding-model=MODEL" in Suite.text(result)
    assert judge_server.count == 0  # refused before any call
