"""In-memory cases built in runs of plain dicts (``plain_cases``) are what pydantic builds one
item at a time: the same cases, fields sets, hashes and facts, and the same problems in the
same words, odd strings, repeated ids and mixed lists included."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from pytest_ragcheck.common.errors import GoldenSetError
from pytest_ragcheck.golden import GoldenCase, build
from pytest_ragcheck.golden.build import CaseBuilder, from_objects
from pytest_ragcheck.golden.grades import COUNT_KEY, GRADES_KEY, case_facts
from pytest_ragcheck.golden.plain import plain_cases

#: ASCII, other text, and lone surrogates (as read with ``surrogateescape``)
STRINGS = ["a", "doc-1", "é", "日本", "😀", "\u2028", " pad ", "\udcff", "x\ud800", "q"]
BLANKS = ["", " ", "\t\n"]


class Name(str):
    """A ``str`` subclass (as numpy's ``str_``): pydantic stores a plain ``str``."""


ODD_TYPES: list[object] = [Name("sub"), 5, True, 2.5, None]


def _text(rng: random.Random) -> str:
    return rng.choice(STRINGS) + rng.choice(["", "", str(rng.randint(0, 9))])


def _strings(rng: random.Random, size: int) -> list[str]:
    return [_text(rng) for _ in range(size)]


def _raw(rng: random.Random, i: int) -> object:
    """A case dict, mostly valid, at times wrong in one of many ways (or not a dict at all)."""
    pick = rng.random()
    if pick < 0.03:
        return rng.choice([3, "text", None, ["x"], ("t",)])
    if pick < 0.06:
        return GoldenCase(id=f"obj{rng.randint(0, 30)}", query=_text(rng) + "?", expected_ids=["d"])
    raw: dict[str, Any] = {}
    order = ["id", "query", "expected_ids"]
    rng.shuffle(order)
    for key in order:
        if key == "id" and rng.random() < 0.8:
            raw["id"] = rng.choice([f"c{i}", f"c{i}", f"c{rng.randint(0, 40)}", _text(rng)])
            if rng.random() < 0.04:
                raw["id"] = rng.choice([*ODD_TYPES, *BLANKS])
        elif key == "query":
            raw["query"] = rng.choice([_text(rng) + " ?", f"query {rng.randint(0, 60)}"])
            if rng.random() < 0.03:
                raw["query"] = rng.choice([*BLANKS, *ODD_TYPES])
            if rng.random() < 0.01:
                del raw["query"]
        elif key == "expected_ids" and rng.random() < 0.85:
            raw["expected_ids"] = _strings(rng, rng.choice([0, 1, 2, 2, 3, 5]))
            if rng.random() < 0.04:
                raw["expected_ids"] = rng.choice(
                    [("a",), "a", None, [3], ["a", " "], [""], ["a", Name("b")]]
                )
    query = raw.get("query")
    if raw.get("id") is None and isinstance(query, str) and not query.isascii():
        raw["id"] = f"c{i}"  # an id derived from half a surrogate pair fails to encode
    extra = rng.random()
    if extra < 0.1:
        raw["relevance"] = {_text(rng): rng.choice([0, 1, 2, 3, -1]) for _ in range(2)}
        if rng.random() < 0.2:
            raw["relevance"] = rng.choice([{"a": True}, {"a": 1.0}, {" ": 1}, {3: 1}, []])
    elif extra < 0.16:
        raw["expected_texts"] = [rng.choice(["span", "é span", "sp\udcffan", " "])]
    elif extra < 0.2:
        raw["reference_answer"] = rng.choice(["yes", "réponse", "an\udcffswer", "", None, 3])
    elif extra < 0.23:
        raw["reference_answers"] = [rng.choice(["r", "ré", "r\ud800", " "])]
    elif extra < 0.27:
        raw["tags"] = [rng.choice(["t", "é", "t\udcff", "", Name("t")])]
    elif extra < 0.3:
        raw["metadata"] = {rng.choice(["k", "k\udcff", 3]): rng.choice([1, "v", None])}
    elif extra < 0.33:
        raw["answerable"] = rng.choice([False, True, 0, "no"])
    elif extra < 0.35:
        raw["subtopics"] = {"s": ["d"]}
    elif extra < 0.36:
        raw["qid"] = "unknown"
    return raw


def _by_pydantic(raws: list[object]) -> CaseBuilder:
    """The builder's general path, one item at a time (with ``build.plain_case`` patched to
    find nothing plain: every dict is left to pydantic)."""
    builder = CaseBuilder("cases")
    for position, raw in enumerate(raws, 1):
        builder.add(raw, f"case #{position}", f"case #{position}")
    return builder


def _grades(case: GoldenCase) -> dict[str, int]:
    """The merged grades by their definition: ids at 1, overridden by ``relevance``."""
    return {**dict.fromkeys(case.expected_ids, 1), **case.relevance}


def _count(case: GoldenCase) -> int:
    if case.relevance:
        return sum(1 for grade in _grades(case).values() if grade >= 1)
    return len(set(case.expected_ids)) if case.expected_ids else len(case.expected_texts)


def _assert_same_cases(fast: list[GoldenCase], slow: list[GoldenCase]) -> None:
    assert len(fast) == len(slow)
    for got, want in zip(fast, slow, strict=True):
        assert got == want
        assert got.model_dump() == want.model_dump()
        assert repr(got) == repr(want)
        assert got.model_fields_set == want.model_fields_set
        assert _hash_or_error(got) == _hash_or_error(want)
        fields = [k for k in want.__dict__ if not k.startswith("_")]
        assert [k for k in got.__dict__ if not k.startswith("_")] == fields
        assert [_typed(got.__dict__[k]) for k in fields] == [
            _typed(want.__dict__[k]) for k in fields
        ]
        if GRADES_KEY in got.__dict__:  # kept as the case was built
            assert got.__dict__[GRADES_KEY] == _grades(want)
            assert got.__dict__[COUNT_KEY] == _count(want)
        assert got.relevance_map() == _grades(want)
        assert got.relevant_count == _count(want)


def _typed(value: object) -> object:
    """``value`` with the exact type of every part beside it (a ``str`` subclass is equal to
    its ``str``, but it is not what pydantic stores)."""
    if isinstance(value, dict):
        return [(_typed(k), _typed(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value), value)


def _hash_or_error(case: GoldenCase) -> str:
    try:
        return case.content_hash
    except UnicodeEncodeError:  # half a surrogate pair: the set's check names the case
        return "not text"


@pytest.mark.parametrize("seed", range(6))
def test_items_built_in_runs_equal_items_built_by_pydantic(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    raws = [_raw(rng, i) for i in range(700)]
    fast = CaseBuilder("cases")
    fast.add_items(raws)
    with monkeypatch.context() as patched:
        patched.setattr(build, "plain_case", lambda raw: None)
        slow = _by_pydantic(raws)
    assert not any(GRADES_KEY in c.__dict__ for c in slow.cases)  # pydantic built them all
    assert fast.problems == slow.problems
    _assert_same_cases(fast.cases, slow.cases)
    assert any("duplicate id" in p for p in fast.problems)  # the generator reaches them
    assert any("derived from the same query" in p for p in fast.problems)
    assert any(GRADES_KEY in c.__dict__ for c in fast.cases)


@pytest.mark.parametrize("seed", range(4))
def test_valid_items_in_runs_equal_pydantic_cases(seed: int) -> None:
    """Only valid items, so no run is cut short by a problem: a whole list in one run."""
    rng = random.Random(100 + seed)
    raws: list[dict[str, Any]] = []
    for i in range(800):
        raw = _raw(rng, i)
        if not isinstance(raw, dict):
            continue
        raw["id"] = f"case-{i}-{raw.get('id')!s}"
        try:
            GoldenCase.model_validate(raw)
        except ValueError:
            continue
        raws.append(raw)
    golden = from_objects(raws)
    want = [GoldenCase.model_validate(raw) for raw in raws]
    _assert_same_cases(list(golden.cases), want)
    plain = sum(GRADES_KEY in c.__dict__ for c in golden.cases)
    assert plain > len(raws) * 0.9  # nearly every case went through the plain reader
    assert case_facts(golden.cases) == case_facts(want)


def test_a_run_stops_at_the_first_item_that_is_not_plain() -> None:
    items: list[object] = [
        {"id": "a", "query": "q"},
        {"id": "b", "query": "r", "subtopics": {"s": ["d"]}},
        {"id": "c", "query": "s"},
    ]
    remaining = iter(items)
    run = plain_cases(remaining)
    assert [c.id for c in run.cases] == run.ids == ["a"]
    assert run.rest == (items[1],)
    following = plain_cases(remaining)
    assert following.ids == ["c"]
    assert following.rest == ()
    assert following.ascii


@pytest.mark.parametrize(
    "raws",
    [
        # a duplicate after a case the plain reader leaves to pydantic
        [{"id": "a", "query": "q"}, {"id": 7, "query": "r"}, {"id": "7", "query": "s"}],
        # a case object between runs, then its id again in a dict
        [{"id": "a", "query": "q"}, GoldenCase(id="o", query="x"), {"id": "o", "query": "y"}],
        # two derived ids from one query, then a repeat of a given id
        [
            {"query": "same"},
            {"query": "same"},
            {"id": "b", "query": "q"},
            {"id": "b", "query": "r"},
        ],
        # a duplicate inside a run that ends the list
        [{"id": "a", "query": "q"}, {"id": "b", "query": "q"}, {"id": "a", "query": "r"}],
        # not a dict, then a duplicate of a case before it
        [{"id": "a", "query": "q"}, "a/path.jsonl", {"id": "a", "query": "r"}],
    ],
)
def test_mixed_lists_report_what_pydantic_reports(
    raws: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = CaseBuilder("cases")
    fast.add_items(raws)
    monkeypatch.setattr(build, "plain_case", lambda raw: None)
    slow = _by_pydantic(raws)
    assert fast.problems == slow.problems
    assert fast.problems  # each list has one
    _assert_same_cases(fast.cases, slow.cases)


def test_any_iterable_of_items_is_read_once_in_order() -> None:
    rows = [{"id": f"c{i}", "query": f"q{i}", "expected_ids": [f"d{i}"]} for i in range(50)]
    given = from_objects(iter(rows))
    assert given.cases == from_objects(tuple(rows)).cases == from_objects(rows).cases
    with pytest.raises(GoldenSetError, match=r"case #3: duplicate id 'c0' \(also on case #1\)"):
        from_objects(r for r in [rows[0], rows[1], rows[0]])
    with pytest.raises(GoldenSetError, match="cases contains no cases"):
        from_objects(iter([]))


def test_a_copy_with_changes_works_its_grades_out_again() -> None:
    case = from_objects([{"id": "a", "query": "q", "expected_ids": ["x", "y"]}]).cases[0]
    assert case.__dict__[GRADES_KEY] == {"x": 1, "y": 1}  # kept as it was built
    changed = case.model_copy(update={"expected_ids": ["z"]})
    assert changed.relevance_map() == {"z": 1}
    assert changed.relevant_count == 1
    graded = case.model_copy(update={"relevance": {"x": 0}}, deep=True)
    assert graded.relevance_map() == {"x": 0, "y": 1}
    assert graded.relevant_count == 1
    same = case.model_copy()
    assert same.relevance_map() == {"x": 1, "y": 1}
    assert copy.deepcopy(case).relevant_count == copy.copy(case).relevant_count == 2
    assert case_facts([case, changed, graded, same]).counts == [2, 1, 1, 2]
    assert case.relevant_count == 2  # the original is untouched


def test_case_facts_of_cases_built_any_way() -> None:
    rows: list[dict[str, Any]] = [
        {"id": "ids", "query": "q", "expected_ids": ["a", "a", "b"]},
        {"id": "graded", "query": "q", "expected_ids": ["a"], "relevance": {"a": 0, "b": 2}},
        {"id": "zero", "query": "q", "relevance": {"a": 0}},
        {"id": "spans", "query": "q", "expected_texts": ["one", "two"]},
        {"id": "none", "query": "q"},
    ]
    plain = list(from_objects(rows).cases)
    validated = [GoldenCase.model_validate(row) for row in rows]
    assert all(GRADES_KEY not in c.__dict__ for c in validated)
    want = ([_grades(c) for c in validated], [2, 1, 0, 2, 0], True)
    assert case_facts(plain) == want
    assert case_facts(validated) == want  # worked out, then kept
    assert all(GRADES_KEY in c.__dict__ for c in validated)
    mixed = [plain[0], validated[1], plain[3].model_copy(update={"expected_texts": []})]
    assert case_facts(mixed) == ([{"a": 1, "b": 1}, {"a": 0, "b": 2}, {}], [2, 1, 0], False)
