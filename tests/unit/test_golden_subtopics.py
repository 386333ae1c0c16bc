"""Subtopic judgments in golden cases and BEIR folders: their forms, messages and hashes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_ragcheck.common.errors import GoldenSetError
from pytest_ragcheck.golden import GoldenCase, clear_cache, load_golden


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    clear_cache()


def _error(cases: Any) -> str:
    with pytest.raises(GoldenSetError) as info:
        load_golden(cases)
    return str(info.value)


def test_both_forms_are_read_as_grades_in_the_order_given() -> None:
    case = GoldenCase(
        query="jaguar",
        subtopics={"car": ["d1", 7, "d1"], "cat": {"d2": 2, "d3": 0}},
    )
    assert case.subtopics == {"car": {"d1": 1, "7": 1}, "cat": {"d2": 2, "d3": 0}}
    assert list(case.subtopics) == ["car", "cat"]
    # the subtopics are diversity judgments only: the rank metrics' relevance is untouched
    assert case.relevance_map() == {}
    assert case.mode == "none"


def test_span_subtopics() -> None:
    case = GoldenCase(query="q", expected_texts=["a b"], subtopic_texts={"s": ["a b", "c"]})
    assert case.subtopic_texts == {"s": ["a b", "c"]}


def test_cases_without_subtopics_hash_as_before() -> None:
    # values written by the release before subtopics existed: stored baselines stay valid
    golden = load_golden(
        [
            {"id": "a", "query": "What is q?", "expected_ids": ["d1", "d2"]},
            {
                "id": "b",
                "query": "x",
                "relevance": {"d1": 2, "d3": 0},
                "expected_texts": ["span"],
                "reference_answer": "r",
            },
        ]
    )
    assert golden.case_hashes == {"a": "8fd0c0dd2afa1c39", "b": "985133528a1492c5"}
    assert golden.content_hash == (
        "76700cf020eb76ca054a0b554633b4a25201b7638ecba1ef5a3ff0adf23eb063"
    )


def test_subtopics_join_the_hash() -> None:
    plain = GoldenCase(id="a", query="q", expected_ids=["d1"])
    listed = GoldenCase(id="a", query="q", expected_ids=["d1"], subtopics={"s": ["d1", "d2"]})
    graded = GoldenCase(id="a", query="q", expected_ids=["d1"], subtopics={"s": {"d2": 1, "d1": 1}})
    regraded = GoldenCase(
        id="a", query="q", expected_ids=["d1"], subtopics={"s": {"d2": 2, "d1": 1}}
    )
    renamed = GoldenCase(id="a", query="q", expected_ids=["d1"], subtopics={"t": ["d1", "d2"]})
    spans = GoldenCase(id="a", query="q", expected_ids=["d1"], subtopic_texts={"s": ["d1"]})
    assert listed.content_hash == graded.content_hash  # the same judgments written two ways
    hashes = [c.content_hash for c in (plain, listed, regraded, renamed, spans)]
    assert len(set(hashes)) == len(hashes)
    # the set's hash (the general writer) and the case hashes agree
    golden = load_golden([listed, GoldenCase(id="b", query="p", expected_ids=["x"])])
    assert golden.case_hashes["a"] == listed.content_hash
    reordered = GoldenCase(
        id="a", query="q", expected_ids=["d1"], subtopics={"u": ["x"], "s": ["d1", "d2"]}
    )
    swapped = GoldenCase(
        id="a", query="q", expected_ids=["d1"], subtopics={"s": ["d2", "d1"], "u": ["x"]}
    )
    assert reordered.content_hash == swapped.content_hash


@pytest.mark.parametrize(
    ("subtopics", "expected"),
    [
        ({"car": []}, "subtopic 'car' lists no documents"),
        ({"car": {}}, "subtopic 'car' lists no documents"),
        ({"  ": ["d1"]}, "subtopic #1 has a blank id ('  ')"),
        ({"car": {"d1": 1.5}}, "the grade of document 'd1' must be an integer"),
        (
            {"car": {"d1": "2"}},
            "must be an integer (>= 1 relevant, 0 judged not relevant), got str",
        ),
        ({"car": {"d1": True}}, "got bool True"),
        ({"car": ["d1", ""]}, "subtopic 'car': document #2 must be a non-empty string"),
        ({"car": "d1"}, "subtopic 'car' must list its documents as [doc ids] or {doc id: grade}"),
        (["d1"], "field 'subtopics': must be an object {subtopic: [doc ids]}"),
    ],
)
def test_bad_subtopics_are_named(subtopics: Any, expected: str) -> None:
    message = _error([{"id": "c1", "query": "q", "expected_ids": ["d1"], "subtopics": subtopics}])
    assert message.startswith("case #1: field 'subtopics': ")
    assert expected in message


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        ({"s": []}, "subtopic 's' lists no text spans"),
        ({"s": [" \n"]}, "subtopic 's': span #1 is empty"),
        ({"s": [3]}, "subtopic 's': span #1 must be a string, got int 3"),
        ({"": ["x"]}, "subtopic #1 has a blank id"),
    ],
)
def test_bad_subtopic_texts_are_named(texts: Any, expected: str) -> None:
    message = _error([{"query": "q", "subtopic_texts": texts}])
    assert message.startswith("case #1: field 'subtopic_texts': ")
    assert expected in message


def test_both_kinds_of_subtopics_on_one_case() -> None:
    message = _error([{"query": "q", "subtopics": {"a": ["x"]}, "subtopic_texts": {"a": ["x"]}}])
    assert message == (
        "case #1: a case judges its subtopics by document ids (subtopics) or by text spans "
        "(subtopic_texts), not both; keep one"
    )


def test_jsonl_problem_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    rows = [
        {"query": "a", "expected_ids": ["d"], "subtopics": {"s": ["d"]}},
        {"query": "b", "expected_ids": ["d"], "subtopics": {"s": {"d": 0.5}}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    message = _error(str(path))
    assert f"{path.name}:2: field 'subtopics': subtopic 's': the grade of document 'd'" in message
    assert "got float 0.5" in message


# ----------------------------------------------------------------- BEIR subtopics.tsv


def _beir(folder: Path, subtopics: str | None) -> Path:
    folder.mkdir()
    queries = [{"_id": "1", "text": "jaguar"}, {"_id": "2", "text": "python"}]
    (folder / "queries.jsonl").write_text(
        "".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8"
    )
    (folder / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\n1\td1\t1\n2\td5\t1\n")
    if subtopics is not None:
        (folder / "subtopics.tsv").write_text(subtopics, encoding="utf-8")
    return folder


def test_beir_subtopics_are_read_into_the_cases(tmp_path: Path) -> None:
    folder = _beir(
        tmp_path / "b",
        "qid\tsubtopic\tdocid\tgrade\n1 car d1 1\n1 car d2 0\n1\tcat\td3\t2\n# a comment\n",
    )
    golden = load_golden(str(folder))
    first, second = golden.cases
    assert first.subtopics == {"car": {"d1": 1, "d2": 0}, "cat": {"d3": 2}}
    assert second.subtopics == {}
    assert ", subtopics " in golden.notes[0]
    assert golden.warnings == ()


def test_beir_without_subtopics_is_unchanged(tmp_path: Path) -> None:
    golden = load_golden(str(_beir(tmp_path / "b", None)))
    assert all(not c.subtopics for c in golden.cases)
    assert "subtopics.tsv" not in golden.notes[0]


def test_beir_subtopics_warnings(tmp_path: Path) -> None:
    folder = _beir(tmp_path / "b", "1 car d1 1\n1 car d1 0\n9 car d1 1\n")
    golden = load_golden(str(folder))
    assert golden.cases[0].subtopics == {"car": {"d1": 0}}
    assert any("the subtopics of 1 query id(s) not in" in w and "'9'" in w for w in golden.warnings)
    assert any("1 repeated (qid, subtopic, docid) judgment(s)" in w for w in golden.warnings)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("1 car d1 1\n1 car d2 1.0\n", "subtopics.tsv:2: grade must be an integer, got '1.0'"),
        ("1 car d1 1\n1 car d2 high\n", "subtopics.tsv:2: grade must be an integer, got 'high'"),
        ("1 car d1\n", "subtopics.tsv:1: expected 4 columns 'qid subtopic docid grade'"),
        ("qid subtopic docid grade\n", "has no judgments"),
    ],
)
def test_beir_bad_subtopics_file(tmp_path: Path, content: str, expected: str) -> None:
    message = _error(str(_beir(tmp_path / "b", content)))
    assert expected in message


def test_beir_subtopics_change_reloads_the_set(tmp_path: Path) -> None:
    folder = _beir(tmp_path / "b", "1 car d1 1\n")
    assert load_golden(str(folder)).cases[0].subtopics == {"car": {"d1": 1}}
    (folder / "subtopics.tsv").write_text("1 car d1 1\n1 cat d9 1\n# longer\n")
    assert load_golden(str(folder)).cases[0].subtopics == {"car": {"d1": 1}, "cat": {"d9": 1}}
