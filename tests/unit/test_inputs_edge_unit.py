"""Golden-set loading on odd input: each problem named once and for what it is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_ragcheck.common.errors import GoldenSetError
from pytest_ragcheck.golden import clear_cache, derive_case_id, load_golden


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    clear_cache()


def load_error(source: object, **kwargs: Any) -> str:
    with pytest.raises(GoldenSetError) as info:
        load_golden(source, **kwargs)
    return str(info.value)


def beir(folder: Path, queries: str, qrels: str) -> Path:
    folder.mkdir()
    (folder / "queries.jsonl").write_text(queries, encoding="utf-8")
    (folder / "qrels.tsv").write_text(qrels, encoding="utf-8")
    return folder


def test_a_missing_file_lists_each_place_once(tmp_path: Path) -> None:
    """The test's folder is often the rootdir too."""
    message = load_error("faq.jsonl", base_dirs=[tmp_path, tmp_path])
    assert message == f"golden set 'faq.jsonl' not found; looked in: {tmp_path / 'faq.jsonl'}"


def test_a_beir_query_id_of_the_wrong_type_is_not_called_missing(tmp_path: Path) -> None:
    folder = beir(
        tmp_path / "beir",
        '{"_id": 1.5, "text": "a"}\n{"_id": true, "text": "b"}\n{"text": "c"}\n'
        '{"_id": 7, "text": "d"}\n',
        "7\td1\t1\n",
    )
    message = load_error(folder)
    assert (
        "queries.jsonl:1: the query id (field '_id' or 'id') must be a non-empty string or an "
        "integer, got 1.5"
    ) in message
    assert "queries.jsonl:2: the query id (field '_id' or 'id') must be" in message
    assert "got True" in message
    assert "queries.jsonl:3: missing query id (field '_id' or 'id')" in message
    assert "queries.jsonl:4" not in message  # an integer id is read as "7"


def test_a_first_qrels_row_with_a_float_grade_is_no_header(tmp_path: Path) -> None:
    """A header's grade column is a word ("score"); a number there is a judgment, which
    used to be skipped without a word (and the metrics computed without it)."""
    queries = '{"_id": "q1", "text": "a"}\n{"_id": "q2", "text": "b"}\n'
    folder = beir(tmp_path / "beir", queries, "q1\td1\t1.0\nq2\td2\t1\n")
    assert load_error(folder).endswith("beir/qrels.tsv:1: grade must be an integer, got '1.0'")


def test_a_qrels_header_is_still_skipped(tmp_path: Path) -> None:
    queries = '{"_id": "q1", "text": "a"}\n'
    for header in ("query-id\tcorpus-id\tscore", "qid docid nan", "q d grade"):
        folder = beir(tmp_path / f"beir-{len(header)}", queries, header + "\nq1\td1\t2\n")
        (case,) = load_golden(folder)
        assert case.relevance == {"d1": 2}


@pytest.mark.parametrize("name", ["golden.jsonl", "golden.json"])
def test_a_utf16_file_is_named_as_such(tmp_path: Path, name: str) -> None:
    """What Windows editors save as "Unicode": not a bare "invalid start byte"."""
    path = tmp_path / name
    path.write_text('[{"query": "q", "expected_ids": ["d"]}]\n', encoding="utf-16")
    assert load_error(path).endswith(
        f"{name} is UTF-16 text (it starts with a UTF-16 byte-order mark); save it as UTF-8"
    )


@pytest.mark.parametrize("name", ["latency_p95_ms", "latency_max_ms"])
def test_a_tolerance_on_a_latency_is_a_usage_error(name: str) -> None:
    """Latency is never compared with the baseline: the tolerance would be ignored."""
    from pytest_ragcheck.common.errors import ConfigError
    from pytest_ragcheck.evaluation.keywords import build_settings

    with pytest.raises(ConfigError) as caught:
        build_settings({"tolerances": {name: 5.0}})
    assert str(caught.value) == (
        f"tolerances: {name!r} is a latency, which is not compared with the baseline; "
        f"bound it with max_{name}=<milliseconds>"
    )
    assert build_settings({"tolerances": {"mrr": 0.05}}).allowed_drop("mrr@10") == 0.05


@pytest.mark.parametrize(
    "case",
    [
        {"id": "c1", "query": "q", "expected_ids": ["doc\udcff"]},
        {"id": "c1", "query": "caf\udce9"},
        {"id": "c\udcff", "query": "q", "expected_ids": ["d"]},
        {"query": "caf\udce9", "expected_ids": ["d"]},  # its id is derived from the query
    ],
)
def test_cases_given_as_objects_with_half_a_surrogate_pair_are_a_golden_set_error(
    case: dict[str, Any],
) -> None:
    """As in a golden file: an error naming the case, not a UnicodeEncodeError from hashing."""
    from pytest_ragcheck import evaluate

    good = {"id": "c0", "query": "fine", "expected_ids": ["d"]}
    with pytest.raises(GoldenSetError) as caught:
        evaluate(lambda q: ["d"], [good, case], empty="zero")
    case_id = case.get("id") or derive_case_id(case["query"])
    assert str(caught.value).startswith(
        f"<cases>: case {case_id!r}: a string holds half a surrogate pair"
    )
    assert evaluate(lambda q: ["d"], [good])["mrr@10"] == 1.0
