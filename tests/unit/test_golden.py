"""Golden sets: the case model, the loaders, their error messages, the hash, tags and the cache."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from pytest_ragcheck.common.errors import GoldenSetError
from pytest_ragcheck.golden import (
    GoldenCase,
    GoldenSet,
    clear_cache,
    derive_case_id,
    load_golden,
)


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    clear_cache()


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def load_error(source: object, **kwargs: Any) -> str:
    with pytest.raises(GoldenSetError) as info:
        load_golden(source, **kwargs)
    return str(info.value)


# ----------------------------------------------------------------- GoldenCase


def test_case_defaults_and_derived_id() -> None:
    case = GoldenCase(query="what is rag?")
    assert case.id == derive_case_id("what is rag?")
    assert case.id.startswith("q-")
    assert len(case.id) == 12
    assert case.expected_ids == []
    assert case.relevance == {}
    assert case.reference_answer is None
    assert case.mode == "none"
    assert not case.has_relevance
    assert case.relevant_count == 0


def test_derived_id_is_deterministic_and_query_sensitive() -> None:
    assert derive_case_id("a") == derive_case_id("a")
    assert derive_case_id("a") != derive_case_id("a ")
    assert GoldenCase.model_validate({"query": "x", "id": None}).id == derive_case_id("x")


def test_case_is_frozen() -> None:
    case = GoldenCase(id="c1", query="q")
    with pytest.raises(ValueError, match="frozen"):
        case.query = "other"


def test_int_ids_are_coerced_to_str() -> None:
    case = GoldenCase.model_validate(
        {"id": 7, "query": "q", "expected_ids": [1, "2"], "relevance": {3: 2}}
    )
    assert case.id == "7"
    assert case.expected_ids == ["1", "2"]
    assert case.relevance == {"3": 2}


def test_relevance_map_relevance_wins() -> None:
    case = GoldenCase(id="c", query="q", expected_ids=["a", "b"], relevance={"b": 3, "c": 0})
    assert case.relevance_map() == {"a": 1, "b": 3, "c": 0}
    assert case.relevant_count == 2
    assert case.mode == "ids"
    assert case.has_relevance


def test_all_zero_grades_are_judged_but_have_nothing_relevant() -> None:
    case = GoldenCase(id="c", query="q", relevance={"a": 0, "b": -1})
    assert case.mode == "ids"
    assert case.relevant_count == 0
    assert not case.has_relevance


def test_text_mode() -> None:
    case = GoldenCase(id="c", query="q", expected_texts=["span one", "span two"])
    assert case.mode == "texts"
    assert case.relevant_count == 2
    assert case.has_relevance
    both = GoldenCase(id="c", query="q", expected_ids=["a"], expected_texts=["s"])
    assert both.mode == "ids"


# ----------------------------------------------------------------- JSONL


def test_jsonl_all_fields_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text(
        json.dumps(
            {
                "id": "c1",
                "query": "capital of France",
                "expected_ids": ["fr"],
                "relevance": {"fr": 2, "eu": 1},
                "expected_texts": ["Paris"],
                "reference_answer": "Paris",
                "tags": ["geo"],
                "metadata": {"author": "x", "n": 1},
            }
        )
        + "\n\n   \n"
        + json.dumps({"query": "no id here", "expected_ids": [5]})
        + "\r\n",
        encoding="utf-8",
    )
    golden = load_golden(path)
    assert len(golden) == 2
    first, second = golden
    assert first.relevance_map() == {"fr": 2, "eu": 1}
    assert first.metadata == {"author": "x", "n": 1}
    assert second.id == derive_case_id("no id here")
    assert second.expected_ids == ["5"]
    assert golden.source.endswith("g.jsonl")
    assert golden.tags == ("geo",)


def test_jsonl_utf8_bom_and_unicode_line_separator(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    row = json.dumps(
        {"id": "a", "query": "line\u2028sep", "expected_ids": ["d"]}, ensure_ascii=False
    )
    path.write_bytes(b"\xef\xbb\xbf" + row.encode("utf-8") + b"\n")
    (case,) = load_golden(path)
    assert case.query == "line\u2028sep"


def test_jsonl_malformed_json_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"query": "ok", "expected_ids": ["a"]}\n{"query": "x" "id": 1}\n')
    message = load_error(path)
    assert "bad.jsonl:2:15: malformed JSON: Expecting ',' delimiter" in message


def test_jsonl_missing_query(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "g.jsonl", [{"id": "a", "expected_ids": ["d"]}])
    assert load_error(path).endswith("g.jsonl:1: missing required field 'query'")


@pytest.mark.parametrize("query", ["", "   \t"])
def test_jsonl_empty_query(tmp_path: Path, query: str) -> None:
    path = write_jsonl(tmp_path / "g.jsonl", [{"id": "a", "query": query}])
    assert load_error(path).endswith("g.jsonl:1: field 'query': must not be empty")


def test_jsonl_unknown_field_suggests_closest(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "g.jsonl", [{"query": "q", "expected_idz": ["a"]}])
    message = load_error(path)
    assert message.endswith(
        "g.jsonl:1: unknown field 'expected_idz' (did you mean 'expected_ids'?)"
    )


def test_jsonl_unknown_field_suggests_from_common_aliases(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "g.jsonl", [{"question": "q", "relevant_ids": ["a"]}])
    message = load_error(path)
    assert "g.jsonl:1: unknown field 'question' (did you mean 'query'?)" in message
    assert "g.jsonl:1: unknown field 'relevant_ids' (did you mean 'expected_ids'?)" in message
    assert "g.jsonl:1: missing required field 'query'" in message


def test_jsonl_unknown_field_without_close_match(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "g.jsonl", [{"query": "q", "zzzz": 1}])
    assert load_error(path).endswith("g.jsonl:1: unknown field 'zzzz'")


def test_jsonl_duplicate_ids_name_both_lines(tmp_path: Path) -> None:
    rows = [{"id": "a", "query": "q1"}, {"id": "b", "query": "q2"}, {"id": "a", "query": "q3"}]
    path = write_jsonl(tmp_path / "g.jsonl", rows)
    assert load_error(path).endswith("g.jsonl:3: duplicate id 'a' (also on line 1)")


def test_jsonl_duplicate_derived_ids_explain_the_query(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "g.jsonl", [{"query": "same"}, {"query": "same"}])
    message = load_error(path)
    assert "g.jsonl:2: duplicate id" in message
    assert "derived from the same query as line 1" in message


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (
            {"query": 42},
            "field 'query': should be a valid string, got int 42",
        ),
        (
            {"query": "q", "expected_ids": ["a", 1.5]},
            "field 'expected_ids[1]': should be a valid string, got float 1.5",
        ),
        (
            {"query": "q", "expected_ids": "a"},
            "field 'expected_ids': should be a valid list, got str 'a'",
        ),
        (
            {"query": "q", "relevance": {"d1": 2.5}},
            "field 'relevance[\"d1\"]': should be a valid integer, got float 2.5",
        ),
        (
            {"query": "q", "relevance": {"d1": "2"}},
            "field 'relevance[\"d1\"]': should be a valid integer, got str '2'",
        ),
        (
            {"query": "q", "relevance": {"d1": True}},
            "field 'relevance[\"d1\"]': should be a valid integer, got bool True",
        ),
        (
            {"query": "q", "expected_ids": [True]},
            "field 'expected_ids[0]': should be a valid string, got bool True",
        ),
        (
            {"query": "q", "tags": "geo"},
            "field 'tags': should be a valid list, got str 'geo'",
        ),
        (
            {"query": "q", "metadata": []},
            "field 'metadata': should be a valid dictionary, got list []",
        ),
        (
            {"query": "q", "expected_texts": ["ok", "  "]},
            "field 'expected_texts': span #2 is empty (it would match every text)",
        ),
        (
            {"id": "", "query": "q"},
            "field 'id': must not be empty",
        ),
    ],
)
def test_jsonl_wrong_types_one_readable_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, row: dict[str, Any], expected: str
) -> None:
    monkeypatch.chdir(tmp_path)
    write_jsonl(tmp_path / "g.jsonl", [row])
    message = load_error("g.jsonl")
    assert message == f"g.jsonl:1: {expected}"
    assert "pydantic" not in message
    assert "\n" not in message


def test_jsonl_non_object_line(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text('{"query": "q"}\n["not", "an", "object"]\n')
    assert load_error(path).endswith("g.jsonl:2: expected a JSON object, got list")


def test_jsonl_duplicate_json_key(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text('{"query": "a", "query": "b"}\n')
    assert load_error(path).endswith("g.jsonl:1: duplicate key 'query' in a JSON object")


def test_jsonl_several_problems_listed_together(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text('{"query": ""}\n{"query": "ok"}\n{bad json\n{"qurey": "x"}\n')
    message = load_error(path)
    lines = message.splitlines()
    assert lines[0].endswith("g.jsonl has 4 problems:")
    assert any(
        line.strip().endswith("g.jsonl:1: field 'query': must not be empty") for line in lines
    )
    assert any("g.jsonl:3:2: malformed JSON" in line for line in lines)
    assert any("g.jsonl:4: unknown field 'qurey' (did you mean 'query'?)" in line for line in lines)


def test_jsonl_many_problems_are_capped(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "g.jsonl", [{"query": ""} for _ in range(30)])
    message = load_error(path)
    assert "has 30 problems" in message
    assert "... and 10 more" in message


@pytest.mark.parametrize("content", ["", "\n\n  \n"])
def test_jsonl_empty_file(tmp_path: Path, content: str) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text(content)
    assert "empty.jsonl is empty" in load_error(path)


def test_jsonl_invalid_utf8(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_bytes(b'{"query": "ok"}\n{"query": "\xff"}\n')
    assert "g.jsonl:2: not valid UTF-8" in load_error(path)


# ----------------------------------------------------------------- JSON


def test_json_list_and_cases_object(tmp_path: Path) -> None:
    rows = [{"id": "a", "query": "q1", "expected_ids": ["x"]}, {"query": "q2"}]
    as_list = tmp_path / "list.json"
    as_list.write_text(json.dumps(rows))
    as_obj = tmp_path / "obj.json"
    as_obj.write_text(json.dumps({"cases": rows}, indent=2))
    assert [c.id for c in load_golden(as_list)] == ["a", derive_case_id("q2")]
    assert load_golden(as_obj).content_hash == load_golden(as_list).content_hash


def test_json_malformed_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    path.write_text('[\n  {"query": "a"},\n  {"query": }\n]\n')
    assert load_error(path).endswith("g.json:3:13: malformed JSON: Expecting value")


def test_json_case_errors_name_case_and_id(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    path.write_text(json.dumps([{"id": "a", "query": "q"}, {"id": 9, "query": "q2", "tgas": []}]))
    message = load_error(path)
    assert message.endswith("g.json: case #2 (id '9'): unknown field 'tgas' (did you mean 'tags'?)")


def test_json_duplicate_ids(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    path.write_text(json.dumps([{"id": "a", "query": "q"}, {"id": "a", "query": "r"}]))
    assert "duplicate id 'a' (also on case #1)" in load_error(path)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("", "is empty"),
        ("[]", "contains no cases"),
        ('{"cases": []}', "contains no cases"),
        ('{"case": []}', "unknown top-level key 'case' (did you mean 'cases'?)"),
        ("{}", 'expected a list of cases or {"cases": [...]}'),
        ('"text"', 'expected a list of cases or {"cases": [...]}, got str'),
    ],
)
def test_json_bad_top_level(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "g.json"
    path.write_text(content)
    message = load_error(path)
    assert "g.json" in message
    assert expected in message


# ----------------------------------------------------------------- in-memory


def test_in_memory_cases_and_dicts() -> None:
    golden = load_golden([GoldenCase(id="a", query="q"), {"query": "r", "expected_ids": [1]}])
    assert [c.query for c in golden] == ["q", "r"]
    assert golden.source == "<cases>"
    assert load_golden({"cases": [{"query": "q"}]}).cases[0].query == "q"


def test_in_memory_goldenset_passes_through() -> None:
    golden = load_golden([{"query": "q"}])
    assert load_golden(golden) is golden


def test_in_memory_errors_name_the_case() -> None:
    message = load_error([{"query": "ok"}, {"query": "q", "expected_id": ["a"]}])
    assert message == "case #2: unknown field 'expected_id' (did you mean 'expected_ids'?)"
    assert load_error([{"query": "q"}, 5]) == "case #2: expected a GoldenCase or a dict, got int"
    assert load_error([]) == "cases contains no cases"


@pytest.mark.parametrize("bad", [42, None, b"bytes"])
def test_unsupported_source_types(bad: object) -> None:
    assert "cases= must be a path" in load_error(bad)


# ----------------------------------------------------------------- path resolution


def test_relative_path_tries_base_dirs_in_order(tmp_path: Path) -> None:
    first, second = tmp_path / "tests", tmp_path / "root"
    first.mkdir()
    second.mkdir()
    write_jsonl(second / "g.jsonl", [{"query": "from root"}])
    assert load_golden("g.jsonl", base_dirs=[first, second]).cases[0].query == "from root"
    write_jsonl(first / "g.jsonl", [{"query": "from tests"}])
    assert load_golden("g.jsonl", base_dirs=[first, second]).cases[0].query == "from tests"


def test_missing_path_lists_every_place_looked(tmp_path: Path) -> None:
    message = load_error("golden/none.jsonl", base_dirs=[tmp_path / "a", tmp_path / "b"])
    assert "golden set 'golden/none.jsonl' not found; looked in:" in message
    assert str(tmp_path / "a" / "golden" / "none.jsonl") in message
    assert str(tmp_path / "b" / "golden" / "none.jsonl") in message


def test_relative_path_defaults_to_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_jsonl(tmp_path / "g.jsonl", [{"query": "here"}])
    monkeypatch.chdir(tmp_path)
    golden = load_golden("g.jsonl")
    assert golden.cases[0].query == "here"
    assert golden.source == "g.jsonl"


def test_unsupported_extension(tmp_path: Path) -> None:
    path = tmp_path / "g.yaml"
    path.write_text("- query: x\n")
    assert "unsupported golden set" in load_error(path)


def test_empty_path_string() -> None:
    assert load_error("  ") == "cases= is an empty path"


# ----------------------------------------------------------------- BEIR


def make_beir(
    folder: Path,
    *,
    qrels: str = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t2\nq2\td3\t1\n",
    qrels_at: str = "qrels.tsv",
    corpus: bool = False,
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(
        folder / "queries.jsonl",
        [
            {"_id": "q1", "text": "first query", "metadata": {"lang": "en"}},
            {"_id": "q2", "text": "second query"},
            {"_id": "q3", "text": "unjudged query"},
        ],
    )
    target = folder / qrels_at
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(qrels)
    if corpus:
        write_jsonl(folder / "corpus.jsonl", [{"_id": f"d{i}", "text": "t"} for i in range(4)])
    return folder


def test_beir_folder_with_root_qrels(tmp_path: Path) -> None:
    golden = load_golden(make_beir(tmp_path / "beir", corpus=True))
    assert [c.id for c in golden] == ["q1", "q2"]
    assert golden.cases[0].query == "first query"
    assert golden.cases[0].relevance == {"d1": 1, "d2": 2}
    assert golden.cases[0].metadata == {"lang": "en"}
    notes = " | ".join(golden.notes)
    assert "1 queries without judgments" in notes
    assert "corpus.jsonl: 4 documents" in notes


def test_beir_folder_with_test_split(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "beir", qrels_at="qrels/test.tsv")
    (folder / "qrels" / "dev.tsv").write_text("q3\td9\t1\n")
    assert [c.id for c in load_golden(folder)] == ["q1", "q2"]
    dev = load_golden(folder, split="dev")
    assert [c.id for c in dev] == ["q3"]
    assert dev.cases[0].relevance == {"d9": 1}


def test_beir_single_non_test_split_is_used(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "beir", qrels_at="qrels/dev.tsv")
    assert len(load_golden(folder)) == 2


def test_beir_several_splits_without_test(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "beir", qrels_at="qrels/dev.tsv")
    (folder / "qrels" / "train.tsv").write_text("q3\td9\t1\n")
    message = load_error(folder)
    assert "several qrels splits (dev, train)" in message
    assert "split=" in message


def test_beir_unknown_split_lists_available(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "beir", qrels_at="qrels/test.tsv")
    message = load_error(folder, split="tset")
    assert "no qrels for split 'tset' (did you mean 'test'?); available splits: test" in message


def test_beir_qrels_file_path_selects_the_split(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "beir", qrels_at="qrels/test.tsv")
    (folder / "qrels" / "dev.tsv").write_text("q3\td9\t1\n")
    assert [c.id for c in load_golden(folder / "qrels" / "dev.tsv")] == ["q3"]


def test_split_only_applies_to_beir_folders(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "g.jsonl", [{"query": "q"}])
    assert "split='dev' applies only to a BEIR-style folder" in load_error(path, split="dev")
    assert "applies only to a BEIR-style folder" in load_error([{"query": "q"}], split="dev")


def test_tsv_without_queries_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "qrels.tsv"
    path.write_text("q1\td1\t1\n")
    assert "no queries.jsonl was found" in load_error(path)


def test_beir_int_ids_space_separated_and_trec_columns(tmp_path: Path) -> None:
    folder = tmp_path / "beir"
    folder.mkdir()
    write_jsonl(folder / "queries.jsonl", [{"id": 1, "text": "a"}, {"id": 2, "text": "b"}])
    (folder / "qrels.tsv").write_text("1 0 10 2\n2 0 11 1\n# comment\n\n2 0 12 0\n")
    golden = load_golden(folder)
    assert [c.id for c in golden] == ["1", "2"]
    assert golden.cases[1].relevance == {"11": 1, "12": 0}


def test_beir_unknown_qids_and_repeats_are_noted(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "beir", qrels="q1\td1\t1\nq1\td1\t3\nq9\td1\t1\n")
    golden = load_golden(folder)
    assert golden.cases[0].relevance == {"d1": 3}
    notes = " | ".join(golden.notes)
    assert "the judgments of 1 query id(s) not in " in notes
    assert "were ignored (first: 'q9'); do the query ids match?" in notes
    assert "1 repeated (qid, docid) judgment(s): the last of each was kept" in notes
    # both are warnings too: the summary shows them
    assert len(golden.warnings) == 2
    assert all(w in golden.notes for w in golden.warnings)


def test_beir_non_int_grade_names_file_and_line(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "beir", qrels="qid\tdocid\tgrade\nq1\td1\t1\nq1\td2\thigh\n")
    assert load_error(folder).endswith("qrels.tsv:3: grade must be an integer, got 'high'")


def test_beir_malformed_qrels_row(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "beir", qrels="q1\td1\t1\nq1\td2\n")
    message = load_error(folder)
    assert message.endswith(
        "qrels.tsv:2: expected 3 columns 'qid docid grade' (or TREC's 4), got 2"
    )


def test_beir_empty_qrels(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "beir", qrels="query-id\tcorpus-id\tscore\n")
    assert "has no judgments" in load_error(folder)


def test_beir_no_matching_query_ids(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "beir", qrels="x1\td1\t1\n")
    assert "no query in" in load_error(folder)


def test_beir_query_problems(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "beir")
    (folder / "queries.jsonl").write_text(
        '{"_id": "q1", "text": "a"}\n{"_id": "q1", "text": "b"}\n{"text": "c"}\n'
        '{"_id": "q2"}\n{"_id": "q2x", "text": ""}\n'
    )
    message = load_error(folder)
    assert "queries.jsonl:2: duplicate query id 'q1'" in message
    assert "queries.jsonl:3: missing query id (field '_id' or 'id')" in message
    assert "queries.jsonl:4: missing required field 'text' (the query)" in message
    assert "queries.jsonl:5: field 'text' (the query) must be a non-empty string" in message


def test_folder_that_is_not_beir(tmp_path: Path) -> None:
    folder = tmp_path / "random"
    folder.mkdir()
    (folder / "notes.txt").write_text("hi")
    message = load_error(folder)
    assert "is not a BEIR-style golden set" in message
    assert "expected queries.jsonl and qrels.tsv or qrels/<split>.tsv; found: notes.txt" in message


def test_cranfield_shaped_folder(tmp_path: Path) -> None:
    # Cranfield's layout: "id" query keys, a "qid docid grade" header, grade 0 rows, CRLF.
    folder = tmp_path / "cranfield"
    folder.mkdir()
    (folder / "queries.jsonl").write_bytes(
        b'{"id": "1", "text": "what similarity laws must be obeyed ."}\r\n'
        b'{"id": "2", "text": "what are the structural problems ."}\r\n'
    )
    (folder / "qrels.tsv").write_bytes(
        b"qid\tdocid\tgrade\r\n1\t184\t3\r\n1\t29\t0\r\n2\t12\t4\r\n"
    )
    golden = load_golden(folder)
    assert [c.id for c in golden] == ["1", "2"]
    assert golden.cases[0].relevance == {"184": 3, "29": 0}
    assert golden.cases[0].relevant_count == 1


# ----------------------------------------------------------------- content hash


def test_content_hash_is_pinned_and_documented() -> None:
    # The baseline feature compares this value across runs and platforms: it must not drift.
    golden = load_golden([{"id": "a", "query": "q", "expected_ids": ["d"]}])
    canonical = '{"cases":[{"expected_texts":[],"id":"a","query":"q",' + (
        '"reference_answer":null,"relevance":{"d":1}}],"version":1}'
    )
    assert golden.content_hash == hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    assert golden.content_hash == "c49d8a0cfc1192874f8b9e3dd023926c5873d2f379d79d7b356e0910d0265845"
    same = load_golden([GoldenCase(id="a", query="q", relevance={"d": 1})])
    assert same.content_hash == golden.content_hash


def test_content_hash_is_order_sensitive_and_content_sensitive() -> None:
    a = {"id": "a", "query": "q1", "expected_ids": ["x"]}
    b = {"id": "b", "query": "q2", "expected_ids": ["y"]}
    ab = load_golden([a, b]).content_hash
    assert ab == load_golden([dict(a), dict(b)]).content_hash
    assert ab != load_golden([b, a]).content_hash
    assert ab != load_golden([a, {**b, "expected_ids": ["z"]}]).content_hash
    assert ab != load_golden([a, {**b, "relevance": {"y": 2}}]).content_hash
    assert ab != load_golden([a, {**b, "query": "q2?"}]).content_hash
    assert ab != load_golden([a, {**b, "reference_answer": "r"}]).content_hash


def test_content_hash_ignores_tags_metadata_and_expected_ids_order() -> None:
    base = load_golden([{"id": "a", "query": "q", "expected_ids": ["x", "y"]}]).content_hash
    same = load_golden(
        [{"id": "a", "query": "q", "expected_ids": ["y", "x"], "tags": ["t"], "metadata": {"n": 1}}]
    ).content_hash
    assert base == same


def test_content_hash_same_for_file_and_memory(tmp_path: Path) -> None:
    rows = [{"id": "a", "query": "q\u00e9", "expected_ids": ["x"]}]
    path = write_jsonl(tmp_path / "g.jsonl", rows)
    assert load_golden(path).content_hash == load_golden(rows).content_hash


# ----------------------------------------------------------------- tags


def tagged() -> GoldenSet:
    return load_golden(
        [
            {"id": "a", "query": "q1", "tags": ["faq"]},
            {"id": "b", "query": "q2", "tags": ["faq", "billing"]},
            {"id": "c", "query": "q3", "tags": ["legal"]},
            {"id": "d", "query": "q4"},
        ]
    )


def test_select_any_of_the_tags() -> None:
    golden = tagged()
    assert [c.id for c in golden.select(["faq"])] == ["a", "b"]
    assert [c.id for c in golden.select(["billing", "legal"])] == ["b", "c"]
    assert golden.select(None) is golden
    assert golden.select([]) is golden


def test_select_recomputes_hash() -> None:
    golden = tagged()
    subset = golden.select(["legal"])
    assert subset.content_hash != golden.content_hash
    assert subset.content_hash == load_golden([{"id": "c", "query": "q3"}]).content_hash


def test_select_unknown_tag_lists_known_tags() -> None:
    with pytest.raises(GoldenSetError) as info:
        tagged().select(["faq", "biling"])
    assert str(info.value) == (
        "tag 'biling' matches no case in <cases> (did you mean 'billing'?); "
        "known tags: billing, faq, legal"
    )


def test_select_on_untagged_set() -> None:
    with pytest.raises(GoldenSetError, match=r"known tags: none \(no case has tags\)"):
        load_golden([{"query": "q"}]).select(["x"])


# ----------------------------------------------------------------- cache


def test_cache_returns_same_object_until_the_file_changes(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "g.jsonl", [{"query": "one"}])
    first = load_golden(path)
    assert load_golden(path) is first
    assert load_golden(str(path)) is first
    write_jsonl(path, [{"query": "one"}, {"query": "two"}])
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    second = load_golden(path)
    assert second is not first
    assert len(second) == 2


def test_cache_detects_same_size_rewrite_by_mtime(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "g.jsonl", [{"query": "aaa"}])
    first = load_golden(path)
    mtime = path.stat().st_mtime_ns
    write_jsonl(path, [{"query": "bbb"}])
    os.utime(path, ns=(mtime + 5_000_000, mtime + 5_000_000))
    assert load_golden(path).cases[0].query == "bbb"
    assert first.cases[0].query == "aaa"


def test_cache_beir_reloads_when_qrels_change(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "beir")
    first = load_golden(folder)
    assert load_golden(folder) is first
    qrels = folder / "qrels.tsv"
    qrels.write_text("q1\td1\t1\n")
    stat = qrels.stat()
    os.utime(qrels, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert [c.id for c in load_golden(folder)] == ["q1"]


def test_cache_is_keyed_by_split(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "beir", qrels_at="qrels/test.tsv")
    (folder / "qrels" / "dev.tsv").write_text("q3\td9\t1\n")
    assert load_golden(folder) is not load_golden(folder, split="dev")
    assert load_golden(folder, split="dev") is load_golden(folder, split="dev")
