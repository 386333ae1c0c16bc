"""A run's golden hash is made when something reads it: ``evaluate()`` alone hashes nothing,
and the hash read later is the golden set's, in the result, its dict and a baseline alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_ragcheck import evaluate, load_golden
from pytest_ragcheck.common.errors import GoldenSetError

CASES = [
    {"id": "a", "query": "what is a", "expected_ids": ["d1", "d2"]},
    {"id": "b", "query": "what is b", "relevance": {"d3": 2}},
]


def test_evaluate_hashes_nothing_until_the_hash_is_read() -> None:
    result = evaluate(lambda q: ["d1", "d3"], CASES, metrics=["mrr"])
    assert result.golden is not None
    assert "_hashes" not in result.golden.__dict__  # nothing hashed yet
    expected = load_golden([dict(c) for c in CASES]).content_hash
    assert result.golden_hash == expected
    assert result.to_dict()["golden_hash"] == expected
    assert result.golden.case_hashes.keys() == {"a", "b"}


def test_tags_hash_the_selected_cases(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    rows = [{**c, "tags": [c["id"]]} for c in CASES]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = evaluate(lambda q: ["d1"], path, metrics=["mrr"], tags=["a"])
    assert result.golden_hash == load_golden([CASES[0]]).content_hash


def test_a_string_that_cannot_be_hashed_is_still_an_error_at_once() -> None:
    bad = {"id": "c", "query": "half a pair \ud800", "expected_ids": ["d"]}
    with pytest.raises(GoldenSetError, match="'c': a string holds half a surrogate pair"):
        evaluate(lambda q: ["d"], [*CASES, bad], metrics=["mrr"])
