"""Questions the collection cannot answer (SPEC §13): golden cases, refusals, the two rates.

Through ``evaluate()`` and ``compare()`` with in-memory pipelines; the judge's part is in
``test_truthfulness_judge.py`` and the pytest surface in ``tests/integration``.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

import pytest_ragcheck
from pytest_ragcheck import compare, evaluate, load_golden
from pytest_ragcheck.answers.refusal import DEFAULT_REFUSAL_PATTERNS, refusal_reason
from pytest_ragcheck.common.errors import ConfigError, GoldenSetError
from pytest_ragcheck.golden.build import from_objects
from pytest_ragcheck.golden.hashing import all_hashes, case_digest, scored_json
from pytest_ragcheck.golden.model import NO_ANSWER_FIELDS, GoldenCase

CASES: list[dict[str, Any]] = [
    {"id": "fr", "query": "capital of France", "expected_ids": ["d1"], "reference_answer": "Paris"},
    {"id": "es", "query": "capital of Spain", "expected_ids": ["d2"], "reference_answer": "Madrid"},
    {"id": "it", "query": "capital of Italy", "expected_ids": ["d3"], "reference_answer": "Rome"},
    {"id": "atl", "query": "capital of Atlantis", "answerable": False},
    {"id": "mu", "query": "capital of Mu", "answerable": False, "tags": ["myth"]},
]
ANSWERS = {
    "capital of France": "Paris",
    "capital of Spain": "I don't know.",
    "capital of Italy": None,  # no answer at all: a refusal
    "capital of Atlantis": "Poseidonia",
    "capital of Mu": "The documents do not mention Mu.",
}
DOCS = {"capital of France": "d1", "capital of Spain": "d9", "capital of Italy": "d3"}


def pipeline(query: str) -> dict[str, Any]:
    hits = [{"id": DOCS.get(query, "d7"), "text": "some text"}]
    return {"answer": ANSWERS[query], "contexts": hits}


# ------------------------------------------------------------------- golden cases


@pytest.mark.parametrize("field", NO_ANSWER_FIELDS)
@pytest.mark.parametrize("plain", [True, False], ids=["plain", "pydantic"])
def test_an_unanswerable_case_with_relevance_information_names_the_field(
    field: str, plain: bool
) -> None:
    value = {
        "expected_ids": ["d1"],
        "relevance": {"d1": 2},
        "expected_texts": ["a span"],
        "reference_answer": "Paris",
        "reference_answers": ["Paris"],
        "subtopics": {"s1": ["d1"]},
        "subtopic_texts": {"s1": ["a span"]},
    }[field]
    raw = {"id": "u", "query": "q", "answerable": False, field: value}
    # a dict is tried without pydantic first; another mapping goes straight to pydantic
    with pytest.raises(GoldenSetError) as caught:
        from_objects([raw if plain else MappingProxyType(raw)])
    message = str(caught.value)
    assert f"has {field}" in message
    assert "answerable is false" in message
    assert f"remove {field}" in message
    assert "field ''" not in message


def test_the_error_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    lines = [
        {"query": "fine", "expected_ids": ["d1"]},
        {"query": "no answer here", "answerable": False, "reference_answer": "Paris"},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    with pytest.raises(
        GoldenSetError, match=r"g\.jsonl:2: answerable is false .* reference_answer"
    ):
        load_golden(path)


def test_answerable_must_be_a_boolean() -> None:
    with pytest.raises(GoldenSetError, match=r"field 'answerable': .*bool.*, got str 'false'"):
        from_objects([{"query": "q", "answerable": "false"}])


def test_plain_and_pydantic_cases_are_the_same_and_hash_the_same() -> None:
    raw = {"id": "u", "query": "capital of Mu", "answerable": False}
    plain = from_objects([raw]).cases[0]
    model = GoldenCase.model_validate(raw)
    assert plain == model
    assert plain.answerable is False
    assert plain.mode == "none"
    assert plain.references == ()
    answerable = GoldenCase.model_validate({"id": "u", "query": "capital of Mu"})
    _, hashes = all_hashes([plain])
    _, other = all_hashes([answerable])
    assert hashes["u"] == case_digest(*scored_json(plain)) == plain.content_hash
    assert hashes["u"] != other["u"]  # answerability is part of the content hash
    assert '"answerable":false' in scored_json(plain)[0]
    # an answerable case hashes as before the field existed
    assert "answerable" not in "".join(scored_json(answerable))


# ------------------------------------------------------------------- refusal rules


def test_default_patterns_are_exported_and_catch_english_and_chinese_refusals() -> None:
    assert pytest_ragcheck.DEFAULT_REFUSAL_PATTERNS is DEFAULT_REFUSAL_PATTERNS
    refusals = [
        "I don't know.",
        "I DON’T KNOW",
        "Sorry, I cannot answer that from the documents.",
        "I'm unable to answer this question.",
        "The context does not mention the wing loading.",
        "The provided documents do not contain this information.",
        "This is not mentioned in the context.",
        "There is not enough information to answer.",
        "Unknown",
        "N/A",
        "The answer cannot be determined from the sources.",
        "我不知道。",
        "抱歉，我无法回答这个问题。",
        "资料中没有提及该内容。",
        "没有找到相关信息。",
    ]
    answers = [
        "Paris is the capital of France.",
        "It is known that the flow separates.",
        "The unknown quantity is the pressure.",
        "None of the wings stalled before 12 degrees.",
        "巴黎是法国的首都。",
        "I know the answer: 42.",
    ]
    for text in refusals:
        assert refusal_reason(text, DEFAULT_REFUSAL_PATTERNS) is not None, text
    for text in answers:
        assert refusal_reason(text, DEFAULT_REFUSAL_PATTERNS) is None, text
    assert refusal_reason("", ()) == refusal_reason("  \n", ()) == "empty answer"
    assert refusal_reason(None, ()) == "empty answer"


def test_rates_count_refusals_on_their_own_cases_and_rank_metrics_leave_unanswerable_out() -> None:
    result = evaluate(
        pipeline, CASES, metrics=["recall", "exact_match", "rejection_rate", "false_rejection_rate"]
    )
    assert result["rejection_rate"] == 0.5  # Mu declined, Atlantis answered
    assert result["false_rejection_rate"] == pytest.approx(2 / 3)  # Spain and Italy refused
    assert result["recall@10"] == pytest.approx(2 / 3)  # over the three answerable cases
    assert result["exact_match"] == pytest.approx(1 / 3)
    by_id = {c.id: c for c in result.cases}
    assert set(by_id["atl"].values) == {"rejection_rate"}
    assert by_id["atl"].refusal is None
    assert by_id["atl"].answerable is False
    assert by_id["mu"].refusal == "matches 'The documents do not mention'"
    assert by_id["it"].refusal == "empty answer"
    assert by_id["it"].answer == ""
    assert by_id["es"].refusal == 'matches "I don\'t know"'
    assert set(by_id["fr"].values) == {"recall@10", "exact_match", "false_rejection_rate"}
    facts = result.info["unanswerable"]
    assert facts["cases"] == 2
    assert facts["scored_by"] == ["rejection_rate"]
    assert facts["notes"] == [
        "2 unanswerable case(s) (answerable: false) left out of recall@10, exact_match, "
        "false_rejection_rate"
    ]
    assert result.to_dict()["cases"][3]["answerable"] is False


def test_a_retriever_test_leaves_unanswerable_cases_unrun_and_says_so() -> None:
    asked: list[str] = []

    def retriever(query: str) -> list[str]:
        asked.append(query)
        return [DOCS.get(query, "d7")]

    result = evaluate(retriever, CASES, metrics=["recall"])
    assert sorted(asked) == sorted(c["query"] for c in CASES[:3])
    assert result["recall@10"] == pytest.approx(2 / 3)
    assert [c.status for c in result.cases] == ["ok", "ok", "ok", "skipped", "skipped"]
    assert "not run: no metric of this test scores them" in result.info["unanswerable"]["notes"][0]
    with pytest.raises(GoldenSetError, match="every case is unanswerable"):
        evaluate(retriever, CASES[3:], metrics=["recall"])


def test_custom_patterns_replace_the_defaults() -> None:
    only = evaluate(pipeline, CASES, metrics=["rejection_rate"], refusal_patterns=[r"\bmu\b"])
    assert only["rejection_rate"] == 0.5  # "...mention Mu." matches, case-insensitive
    none = evaluate(pipeline, CASES, metrics=["false_rejection_rate"], refusal_patterns=[])
    assert none["false_rejection_rate"] == pytest.approx(1 / 3)  # only the empty answer
    extended = evaluate(
        pipeline,
        CASES,
        metrics=["rejection_rate"],
        refusal_patterns=[*DEFAULT_REFUSAL_PATTERNS, "poseidonia"],
    )
    assert extended["rejection_rate"] == 1.0


@pytest.mark.parametrize(
    ("patterns", "message"),
    [
        (["(unclosed"], r"refusal_patterns: pattern #1 '\(unclosed' is not a valid regular "
         r"expression: missing \), unterminated subpattern at position 0"),
        (["ok", "[z-a]"], r"pattern #2 '\[z-a\]' is not a valid regular expression: bad "
         r"character range z-a"),
        ([""], "pattern #1 is empty, which would match every answer"),
        ([3], r"must be a regular expression or a list of them, got \[3\]"),
    ],
)  # fmt: skip
def test_bad_refusal_patterns_are_named(patterns: list[Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        evaluate(pipeline, CASES, metrics=["rejection_rate"], refusal_patterns=patterns)


def test_a_rate_with_no_case_to_count_is_a_golden_set_error() -> None:
    with pytest.raises(GoldenSetError, match=r"rejection_rate counts unanswerable cases .* none "
                       r"of the 3 case\(s\) is one; add cases .*\"answerable\": false"):  # fmt: skip
        evaluate(pipeline, CASES[:3], metrics=["rejection_rate"])
    with pytest.raises(GoldenSetError, match="false_rejection_rate counts answerable cases"):
        evaluate(pipeline, CASES[3:], metrics=["false_rejection_rate"])


def test_tags_select_unanswerable_cases_too() -> None:
    result = evaluate(pipeline, CASES, metrics=["rejection_rate"], tags=["myth"])
    assert result["rejection_rate"] == 1.0
    assert [c.id for c in result.evaluated] == ["mu"]


def test_compare_pairs_the_systems_on_the_cases_each_metric_scores() -> None:
    def confident(query: str) -> dict[str, Any]:
        return {**pipeline(query), "answer": "Paris"}  # never declines

    cmp = compare(
        {"careful": pipeline, "confident": confident},
        CASES,
        metrics=["rejection_rate", "false_rejection_rate", "recall"],
        significance=None,
    )
    rows = {(r.system, r.metric): r for r in cmp.rows}
    assert rows[("careful", "rejection_rate")].value == 0.5
    assert rows[("confident", "rejection_rate")].value == 0.0
    assert rows[("confident", "rejection_rate")].losses == 1  # Mu: declined, then answered
    assert rows[("confident", "false_rejection_rate")].wins == 2  # lower is better
    assert rows[("confident", "recall@10")].ties == 3  # the unanswerable cases are not paired
