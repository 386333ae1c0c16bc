"""In-memory cases read from plain dicts whose hashed strings are all ASCII need no surrogate
check; any other set is checked as before, and the check finds half a surrogate pair in
every field the hashes write, naming the case."""

from __future__ import annotations

import random
from typing import Any

import pytest

from pytest_ragcheck.common.errors import GoldenSetError
from pytest_ragcheck.golden import GoldenCase, GoldenSet, model
from pytest_ragcheck.golden.build import from_objects
from pytest_ragcheck.golden.hashing import hashable

#: Text that is not ASCII (kept as it is), and half surrogate pairs (not text)
TEXT = ["é", "日本", "😀", "a\u2028b", "\U0001f600x"]
HALVES = ["\udcff", "x\ud800", "\udc80y"]
#: Every field the content hashes write, with a way to put a string in it
HASHED: dict[str, Any] = {
    "id": lambda s: {"id": "c" + s},
    "query": lambda s: {"query": "q" + s},
    "expected_ids": lambda s: {"expected_ids": ["d", "d" + s]},
    "relevance": lambda s: {"relevance": {"d" + s: 2}},
    "expected_texts": lambda s: {"expected_texts": ["span" + s]},
    "reference_answer": lambda s: {"reference_answer": "a" + s},
    "reference_answers": lambda s: {"reference_answers": ["a" + s]},
}


def _checked(golden: GoldenSet) -> bool:
    """Whether the set is known to hold only text (``check_hashable`` looks at nothing)."""
    return bool(golden.__dict__.get("_hashable"))


def _outcome(golden: GoldenSet) -> str:
    try:
        golden.check_hashable()
    except GoldenSetError as exc:
        return str(exc)
    return "text"


def _rows(n: int, **fields: Any) -> list[dict[str, Any]]:
    return [
        {"id": f"c{i}", "query": f"q{i}", "expected_ids": [f"d{i}"], **fields} for i in range(n)
    ]


def test_ascii_cases_read_from_dicts_are_not_looked_at_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = [*_rows(5), {"query": "no id"}, {"id": "r", "query": "q", "relevance": {"a": 2}}]
    rows.append({"id": "t", "query": "q", "expected_texts": ["s"], "reference_answer": "a"})
    golden = from_objects(rows)
    assert _checked(golden)

    def looked(cases: object) -> bool:
        raise AssertionError("the cases were looked at again")

    monkeypatch.setattr(model, "hashable", looked)
    golden.check_hashable()
    assert _checked(golden.select(None))


@pytest.mark.parametrize("field", HASHED)
@pytest.mark.parametrize("text", TEXT)
def test_text_that_is_not_ascii_is_checked_and_passes(field: str, text: str) -> None:
    rows = _rows(3)
    rows[1] = {**rows[1], **HASHED[field](text)}
    golden = from_objects(rows)
    assert not _checked(golden)  # looked at by check_hashable, not taken on trust
    golden.check_hashable()
    assert golden.content_hash
    assert _checked(golden)


@pytest.mark.parametrize("field", HASHED)
@pytest.mark.parametrize("half", HALVES)
def test_half_a_surrogate_pair_in_a_hashed_field_is_an_error_naming_the_case(
    field: str, half: str
) -> None:
    rows = _rows(3)
    rows[1] = {**rows[1], **HASHED[field](half)}
    golden = from_objects(rows)
    assert not _checked(golden)
    name = rows[1]["id"]
    with pytest.raises(GoldenSetError) as caught:
        golden.check_hashable()
    assert str(caught.value).startswith(
        f"<cases>: case {name!r}: a string holds half a surrogate pair"
    )


@pytest.mark.parametrize(
    "fields", [{"tags": ["t\udcff"]}, {"metadata": {"k\udcff": "v\udcff"}}, {"tags": ["é"]}]
)
def test_strings_the_hashes_do_not_write_are_not_looked_at(fields: dict[str, Any]) -> None:
    golden = from_objects(_rows(2, **fields))
    golden.check_hashable()  # as before: tags and metadata are not hashed
    assert golden.content_hash == GoldenSet(golden.cases, "<cases>").content_hash


def test_cases_given_as_objects_are_checked() -> None:
    rows: list[object] = [*_rows(2), GoldenCase(id="o", query="q\udcff")]
    golden = from_objects(rows)
    assert not _checked(golden)
    with pytest.raises(GoldenSetError, match="case 'o': a string holds half a surrogate pair"):
        golden.check_hashable()
    plain_objects = from_objects([*_rows(2), GoldenCase(id="o", query="q")])
    assert not _checked(plain_objects)  # not read here: checked, and found to be text
    plain_objects.check_hashable()


def test_a_selection_of_text_is_text() -> None:
    golden = from_objects([*_rows(4, tags=["t"]), {"id": "x", "query": "q", "tags": ["u"]}])
    assert _checked(golden.select(["u"]))
    unchecked = GoldenSet(golden.cases, "<cases>")
    assert not _checked(unchecked.select(["u"]))


def _string(rng: random.Random) -> str:
    return rng.choice(["a", "b", "c", *TEXT, *HALVES]) if rng.random() < 0.02 else "abc"


@pytest.mark.parametrize("seed", range(8))
def test_the_check_says_what_it_said_before_on_any_set(seed: int) -> None:
    """A set read from dicts (perhaps taken on trust) and the same cases in a set that is
    not: the same outcome, and a set is taken on trust only when it does hold only text."""
    rng = random.Random(seed)
    rows: list[object] = []
    for i in range(rng.choice([1, 5, 40, 300])):
        row: dict[str, Any] = {"id": f"c{i}{_string(rng)}", "query": _string(rng)}
        row["expected_ids"] = [_string(rng) for _ in range(rng.randint(0, 3))]
        if rng.random() < 0.1:
            row["relevance"] = {_string(rng): rng.choice([0, 1, 2])}
        for field in ("expected_texts", "reference_answers", "tags"):
            if rng.random() < 0.1:
                row[field] = [_string(rng)]
        if rng.random() < 0.05:
            row["reference_answer"] = _string(rng)
        rows.append(row)
    if rng.random() < 0.3:
        rows.insert(rng.randrange(len(rows) + 1), GoldenCase(id="obj", query=_string(rng)))
    golden = from_objects(rows)
    reference = GoldenSet(golden.cases, "<cases>")
    if _checked(golden):
        assert hashable(golden.cases)
    assert _outcome(golden) == _outcome(reference)
