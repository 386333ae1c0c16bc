"""Questions the collection cannot answer through the pytest surface (SPEC §13): the marker's
``refusal_patterns``, the ini option, bad patterns, failure messages and the reports.

The pipeline reads its answers from ``answers.json`` at each call.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from harness import Suite
from judge_fixtures import JUDGE_MODEL
from judge_server import JudgeServer

GOLDEN: list[dict[str, Any]] = [
    {"id": "fr", "query": "capital of France", "expected_ids": ["d1"], "reference_answer": "Paris"},
    {"id": "es", "query": "capital of Spain", "expected_ids": ["d2"], "reference_answer": "Madrid"},
    {"id": "atl", "query": "capital of Atlantis", "answerable": False},
    {"id": "mu", "query": "capital of Mu", "answerable": False},
]
CONTEXTS = {
    "capital of France": [{"id": "d1", "text": "Paris is the capital of France."}],
    "capital of Spain": [{"id": "d2", "text": "Madrid is the capital of Spain."}],
    "capital of Atlantis": [{"id": "d7", "text": "Atlantis is a legend."}],
    "capital of Mu": [{"id": "d8", "text": "Mu is a legend."}],
}
DECLINING = {
    "capital of France": "Paris",
    "capital of Spain": "Madrid",
    "capital of Atlantis": "I don't know.",
    "capital of Mu": "That is not in the sources: unknowable.",
}
INVENTING = {**DECLINING, "capital of Atlantis": "Poseidonia"}
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
from pytest_ragcheck import DEFAULT_REFUSAL_PATTERNS, ragcheck


@ragcheck("golden.jsonl", k=3, metrics=["recall", "false_rejection_rate"],
          refusal_patterns=[*DEFAULT_REFUSAL_PATTERNS, "unknowable"], min_rejection_rate=1.0,
          baseline=False)
def test_rag(ragcheck, pipeline):
    result = ragcheck(pipeline)
    assert result["recall@3"] == 1.0
"""


def _project(suite: Suite, answers: dict[str, str], test: str = TEST) -> None:
    suite.make(test, cases=GOLDEN, rankings=CONTEXTS, extra=PIPELINE)
    suite.write("answers.json", json.dumps(answers))


def test_rejection_rate_gates_and_names_the_invented_answer(suite: Suite) -> None:
    _project(suite, DECLINING)
    passed = suite.run("--ragcheck-report=report.json", "--ragcheck-report=report.html")
    passed.assert_outcomes(passed=1)
    text = Suite.text(passed)
    assert "2 unanswerable case(s) (answerable: false) left out of recall@3" in text
    report = suite.read_json("report.json")
    (test,) = report["tests"]
    by_id = {c["id"]: c for c in test["cases"]}
    assert by_id["mu"]["refusal"] == "matches 'unknowable'"
    assert by_id["atl"]["values"] == {"rejection_rate": 1.0}
    assert by_id["atl"]["answerable"] is False
    assert by_id["fr"]["values"]["false_rejection_rate"] == 0.0
    html = (suite.path / "report.html").read_text()
    assert "matches 'unknowable'" in html  # the drill-down's data

    suite.write("answers.json", json.dumps(INVENTING))
    failed = suite.run()
    failed.assert_outcomes(failed=1)
    Suite.assert_clean(failed)
    text = Suite.text(failed)
    assert "rejection_rate: 0.500 < 1.000 (floor)" in text
    assert "worst cases for rejection_rate (1 of 2 under 1.000)" in text
    assert "answered 'Poseidonia' to a question the collection cannot answer" in text


def test_the_ini_option_replaces_the_default_patterns(suite: Suite) -> None:
    _project(suite, DECLINING, TEST.replace(
        'refusal_patterns=[*DEFAULT_REFUSAL_PATTERNS, "unknowable"], ', ""))  # fmt: skip
    suite.ini(ragcheck_refusal_patterns="\n    unknowable\n    don.t know")
    suite.run().assert_outcomes(passed=1)
    suite.ini(ragcheck_refusal_patterns="\n    unknowable")  # "I don't know" is no refusal now
    failed = suite.run()
    failed.assert_outcomes(failed=1)
    assert 'answered "I don\'t know." to a question the collection cannot answer' in Suite.text(
        failed
    )


def test_a_refused_answerable_question_is_named(suite: Suite) -> None:
    _project(suite, {**DECLINING, "capital of Spain": ""}, TEST.replace(
        "min_rejection_rate=1.0", "max_false_rejection_rate=0.0"))  # fmt: skip
    failed = suite.run()
    failed.assert_outcomes(failed=1)
    text = Suite.text(failed)
    assert "false_rejection_rate: 0.500 > 0.000 (ceiling)" in text
    assert "worst cases for false_rejection_rate (1 of 2 over 0.000)" in text
    assert "refused a question the collection answers: empty answer" in text


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ("marker", "refusal_patterns: pattern #19 '(oops' is not a valid regular expression: "
         "missing ), unterminated subpattern at position 0"),
        ("ini", "ini ragcheck_refusal_patterns: pattern #1 '(oops' is not a valid regular "
         "expression"),
    ],
)  # fmt: skip
def test_a_bad_pattern_is_a_clear_error(suite: Suite, where: str, expected: str) -> None:
    if where == "marker":
        _project(suite, DECLINING, TEST.replace('"unknowable"', '"(oops"'))
    else:
        _project(suite, DECLINING)
        suite.ini(ragcheck_refusal_patterns="(oops")
    result = suite.run()
    assert expected in Suite.text(result)
    Suite.assert_clean(result)
    assert result.ret != 0


def test_an_unanswerable_case_with_expected_ids_names_the_field(suite: Suite) -> None:
    cases = [*GOLDEN, {"id": "x", "query": "q", "answerable": False, "expected_ids": ["d1"]}]
    suite.make(TEST, cases=cases, rankings=CONTEXTS, extra=PIPELINE)
    suite.write("answers.json", json.dumps(DECLINING))
    result = suite.run()
    assert "golden.jsonl:5: answerable is false" in Suite.text(result)
    assert "but the case has expected_ids ['d1']: remove expected_ids" in Suite.text(result)
    Suite.assert_clean(result)


def test_truthfulness_names_grade_and_reason_and_replays_offline(
    suite: Suite, judge_server: JudgeServer
) -> None:
    _project(suite, INVENTING, """
        from pytest_ragcheck import ragcheck

        @ragcheck("golden.jsonl", metrics=["truthfulness", "hallucination_rate"],
                  max_hallucination_rate=0.1, baseline=False)
        def test_rag(ragcheck, pipeline):
            ragcheck(pipeline)
        """)  # fmt: skip
    args = [
        f"--ragcheck-judge-model={JUDGE_MODEL}",
        f"--ragcheck-judge-api-base={judge_server.url}",
    ]
    failed = suite.run(*args, "--ragcheck-report=report.json")
    failed.assert_outcomes(failed=1)
    text = Suite.text(failed)
    assert "hallucination_rate: 0.250 > 0.100 (ceiling)" in text
    assert "answered 'Poseidonia' to a question the collection cannot answer" in text
    assert "judge: grade incorrect (the judge said incorrect" not in text  # no redundant note
    assert "judge: grade incorrect: test judge" in text
    sent = judge_server.count
    assert sent == 4  # every answer: no default pattern catches Mu's
    entry = next(c for c in suite.read_json("report.json")["tests"][0]["cases"] if c["id"] == "atl")
    assert entry["judge"]["truthfulness"][0]["grade"] == "incorrect"
    assert entry["values"] == {"truthfulness": -1.0, "hallucination_rate": 1.0}

    again = suite.run(*args, "--ragcheck-judge-offline")
    again.assert_outcomes(failed=1)  # the same verdicts, from the cache
    assert judge_server.count == sent
    assert "hallucination_rate: 0.250 > 0.100 (ceiling)" in Suite.text(again)
