"""The quick golden paths (hashes, JSONL chunks, line numbers, shared fields sets, relevant
counts) give what the general ones give, odd input included."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest

from pytest_ragcheck.common.errors import GoldenSetError
from pytest_ragcheck.golden import GoldenCase, GoldenSet, files, hashing, load_golden, plain
from pytest_ragcheck.golden.build import CaseBuilder
from pytest_ragcheck.golden.files import jsonl_values
from pytest_ragcheck.golden.hashing import HASH_VERSION, all_hashes, case_digest, scored_json
from pytest_ragcheck.golden.model import case_facts
from pytest_ragcheck.golden.plain import plain_case

ODD = ["a", "é", "日本", 'q"uote', "back\\slash", "tab\t", "\u2028line", "  padded ", "😀", "b"]


def _reference(cases: list[GoldenCase]) -> tuple[str, dict[str, str]]:
    """Both hashes written by the general writer, one case at a time."""
    digest = hashlib.sha256(b'{"cases":[')
    per_case = {}
    for position, case in enumerate(cases):
        before, after = scored_json(case)
        per_case[case.id] = case_digest(before, after)
        member = f'{{{before},"id":{json.dumps(case.id, ensure_ascii=False)},{after}}}'
        digest.update(("," if position else "").encode() + member.encode())
    digest.update(b'],"version":%d}' % HASH_VERSION)
    return digest.hexdigest(), per_case


def _golden_case(rng: random.Random, i: int) -> GoldenCase:
    fields: dict[str, Any] = {"id": f"{rng.choice(ODD)}{i}", "query": rng.choice(ODD) + "?"}
    shape = rng.random()
    fields["expected_ids"] = [rng.choice(ODD) for _ in range(rng.choice([0, 1, 2, 2, 2, 3, 5]))]
    if shape < 0.15:
        fields["relevance"] = {rng.choice(ODD): rng.choice([0, 1, 3, -2])}
    elif shape < 0.25:
        fields["expected_texts"] = [rng.choice(ODD).strip() or "x"]
    elif shape < 0.3:
        fields["reference_answer"] = rng.choice(ODD)
    elif shape < 0.35:
        fields["reference_answers"] = [rng.choice(ODD).strip() or "r"]
    elif shape < 0.4:
        fields["tags"] = [rng.choice(ODD)]
    return GoldenCase(**fields)


@pytest.mark.parametrize("chunk", [4096, 3, 1])
def test_all_hashes_equal_the_general_writer(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hashing, "_CHUNK", chunk)
    rng = random.Random(11)
    cases = [_golden_case(rng, i) for i in range(600)]
    # two equal ids in either order, and a repeat: one grade each, sorted
    cases += [
        GoldenCase(id="same", query="q", expected_ids=["b", "a"]),
        GoldenCase(id="twice", query="q", expected_ids=["é", "é"]),
        GoldenCase(id="none", query="q"),
    ]
    assert all_hashes(cases) == _reference(cases)
    for size in (0, 1, 3, 6):  # set sizes around the chunk
        assert all_hashes(cases[:size]) == _reference(cases[:size])
    golden = GoldenSet(tuple(cases), "<cases>")
    assert golden.case_hashes == {c.id: c.content_hash for c in cases}


def _reference_values(text: str) -> tuple[list[tuple[int, Any]], list[str]]:
    """Each non-blank line parsed on its own (the reference for the chunked reader)."""
    found, problems = [], []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            found.append((number, files._parse_json(line.rstrip("\r"), "f.jsonl", number)))
        except GoldenSetError as exc:
            problems.append(str(exc))
    return found, problems


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}\n{"b": 2}',
        '{"a": 1}\n{"b": 2}\n\n \n\t\n',
        '{"a": 1}\r\n{"b": "é"}\r\n',
        '\n\n{"a": 1}\n  \n{"b": [1, 2]}\n',
        '{"a": 1}\n1, 2\n{"c": 3}\n',
        '{"a": 1}\n1 2\n{"c": 3}\n',
        '{"a": 1, "a": 2}\n{"b": 1}\n',
        '{"a": 1}\n{"b": \n{"c": 1}\n',
        '{"t": "x\u2028y"}\n"s"\n[]\n',
        "",
        "\n \n",
    ],
)
@pytest.mark.parametrize("chunk", [2048, 2, 1])
def test_jsonl_values_equal_lines_read_one_by_one(
    text: str, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "_CHUNK", chunk)
    problems: list[str] = []
    got = list(jsonl_values(text, "f.jsonl", problems))
    want, want_problems = _reference_values(text)
    assert got == want
    assert problems == want_problems


def _raw(rng: random.Random, i: int) -> object:
    pick = rng.random()
    if pick < 0.05:
        return rng.choice([3, "text", None, ["x"]])
    raw: dict[str, Any] = {"query": rng.choice([*ODD, " ", ""])}
    if pick < 0.7:
        raw["id"] = rng.choice([f"c{i}", f"c{i // 3}", "é", 5, None, " "])
    if rng.random() < 0.8:
        raw["expected_ids"] = [rng.choice(ODD) for _ in range(rng.randint(0, 2))]
    if rng.random() < 0.1:
        raw["qid"] = "unknown field"
    return raw


def test_lines_added_by_number_equal_lines_added_with_their_words() -> None:
    rng = random.Random(5)
    raws = [_raw(rng, i) for i in range(2000)]
    by_number, with_words = CaseBuilder("f.jsonl"), CaseBuilder("f.jsonl")
    for number, raw in enumerate(raws, 1):
        by_number.add_line(raw, number)
        with_words.add(raw, f"f.jsonl:{number}", f"line {number}")
    assert by_number.cases == with_words.cases
    assert by_number.problems == with_words.problems
    assert any("derived from the same query as line" in p for p in by_number.problems)
    assert any("(also on line" in p for p in by_number.problems)


def test_a_jsonl_duplicate_names_both_lines(tmp_path: Any) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text(
        '{"id": "a", "query": "q"}\n\n{"id": "a", "query": "r"}\n{"query": "s"}\n{"query": "s"}\n'
    )
    with pytest.raises(GoldenSetError) as caught:
        load_golden(path)
    message = str(caught.value)
    assert "g.jsonl:3: duplicate id 'a' (also on line 1)" in message
    assert "g.jsonl:5: duplicate id" in message
    assert "same query as line 4" in message


def test_cases_of_one_shape_share_a_fields_set_that_copies_do_not_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the shapes other tests read fill the process's cache of shared sets (64 at most)
    monkeypatch.setattr(plain, "_FIELDS_SETS", {})
    first = plain_case({"id": "a", "query": "q", "expected_ids": ["x"]})
    second = plain_case({"id": "b", "query": "r", "expected_ids": ["y"]})
    derived = plain_case({"query": "s"})
    assert first is not None
    assert second is not None
    assert derived is not None
    assert first.model_fields_set == {"id", "query", "expected_ids"}
    assert derived.model_fields_set == {"id", "query"}
    assert first.model_fields_set is second.model_fields_set
    validated = GoldenCase.model_validate({"id": "b", "query": "r", "expected_ids": ["y"]})
    assert second.model_fields_set == validated.model_fields_set
    copy = first.model_copy(update={"tags": ["t"]})
    assert copy.model_fields_set == {"id", "query", "expected_ids", "tags"}
    assert second.model_fields_set == {"id", "query", "expected_ids"}  # not changed by the copy


def test_case_facts_equal_the_properties() -> None:
    rng = random.Random(9)
    cases = [_golden_case(rng, i) for i in range(500)]
    cases.append(GoldenCase(id="zero", query="q", relevance={"a": 0}, expected_ids=["b"]))
    cases.append(GoldenCase(id="nothing", query="q"))
    facts = case_facts(cases)
    assert facts.counts == [c.relevant_count for c in cases]
    assert facts.grades == [c.relevance_map() for c in cases]
    assert facts.by_text == any(c.mode == "texts" for c in cases)
    plain = [c for c in cases if c.mode != "texts"]
    assert case_facts(plain).counts == [c.relevant_count for c in plain]
    assert not case_facts(plain).by_text
    assert case_facts([]) == ([], [], False)
