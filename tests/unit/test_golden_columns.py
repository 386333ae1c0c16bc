"""An in-memory set of plain ``{id, query, expected_ids}`` dicts kept as columns: the same set,
case by case, as the one built item by item; evaluate() makes no case object until one is read,
and gives the same result."""

from __future__ import annotations

import copy
import dataclasses
import gc
import pickle
import random
import threading
from typing import Any

import pytest

from pytest_ragcheck import evaluate
from pytest_ragcheck.common.errors import GoldenSetError
from pytest_ragcheck.golden import GoldenCase, GoldenSet, load_golden
from pytest_ragcheck.golden import build as golden_build
from pytest_ragcheck.golden.build import CaseBuilder, from_objects
from pytest_ragcheck.golden.columns import IdCases

IDS = ["a", "b", "doc-1", " padded ", "x" * 30, "7", "q-1"]


def _items(rng: random.Random, n: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for i in range(n):
        expected = [rng.choice(IDS) for _ in range(rng.randint(0, 4))]  # repeats, or none
        keys = [("id", f"c{i}-{rng.choice(IDS)}"), ("query", f"q {i} {rng.choice(IDS)}")]
        keys.append(("expected_ids", expected))
        rng.shuffle(keys)  # any order of the three keys
        items.append(dict(keys))
    return items


def _eager(items: list[Any]) -> GoldenSet:
    """The set as built item by item (the general path)."""
    builder = CaseBuilder("cases")
    builder.add_items(items)
    return builder.finish("<cases>")


def _alive() -> int:
    return sum(1 for o in gc.get_objects() if type(o) is GoldenCase)


@pytest.mark.parametrize("seed", range(25))
def test_a_set_kept_as_columns_is_the_set_built_item_by_item(seed: int) -> None:
    rng = random.Random(seed)
    items = _items(rng, rng.randint(1, 40))
    lazy, eager = from_objects(items), _eager(items)
    assert "cases" not in lazy.__dict__
    assert type(lazy.view()) is IdCases
    assert len(lazy) == len(eager)
    assert "cases" not in lazy.__dict__  # len() makes no case
    assert lazy.cases == eager.cases
    for made, built in zip(lazy.cases, eager.cases, strict=True):
        assert made.__dict__ == built.__dict__
        assert list(made.__dict__) == list(built.__dict__)
        assert made.model_fields_set == built.model_fields_set
        assert made.model_dump() == built.model_dump()
        assert made.relevance_map() == built.relevance_map()
        assert made.relevant_count == built.relevant_count
        assert made.content_hash == built.content_hash
    assert lazy.cases is lazy.cases is lazy.view().cases()
    assert lazy == eager
    assert repr(lazy) == repr(eager)
    assert list(lazy) == list(eager)
    assert lazy.content_hash == eager.content_hash
    assert lazy.case_hashes == eager.case_hashes
    lazy.check_hashable()


def test_equality_repr_copies_and_pickles_make_the_cases() -> None:
    items = _items(random.Random(1), 12)
    eager = _eager(items)
    assert from_objects(items) == eager
    assert eager == from_objects(items)
    assert repr(from_objects(items)) == repr(eager)
    assert pickle.loads(pickle.dumps(from_objects(items))) == eager
    assert copy.deepcopy(from_objects(items)) == eager
    assert copy.copy(from_objects(items)) == eager
    replaced = dataclasses.replace(from_objects(items), source="other")
    assert replaced.cases == eager.cases
    assert replaced.source == "other"
    unpickled = pickle.loads(pickle.dumps(from_objects(items)))
    assert "_columns" not in unpickled.__dict__
    assert unpickled.__dict__.keys() == pickle.loads(pickle.dumps(eager)).__dict__.keys()
    assert from_objects(items).select(None).cases == eager.cases


def test_other_items_take_the_general_path() -> None:
    base = [{"id": "a", "query": "q a", "expected_ids": ["d"]}]
    others: list[list[Any]] = [
        [*base, {"query": "q b", "expected_ids": ["d"]}],  # derived id
        [*base, {"id": "b", "query": "q b"}],  # no expected_ids
        [*base, {"id": "b", "query": "q b", "expected_ids": ["d"], "tags": ["t"]}],
        [*base, {"id": "b", "query": "qé", "expected_ids": ["d"]}],  # not ASCII
        [*base, {"id": "b", "query": "q", "expected_ids": ["dé"]}],
        [*base, GoldenCase(id="b", query="q b")],
        [*base, {"id": 3, "query": "q", "expected_ids": []}],  # an int id, made a string
    ]
    for items in others:
        built = from_objects(items)
        assert "cases" in built.__dict__
        assert built == _eager(items)
    for bad in (
        [*base, {"id": "a", "query": "q again", "expected_ids": []}],  # a repeated id
        [*base, {"id": " ", "query": "q", "expected_ids": []}],
        [*base, {"id": "b", "query": " ", "expected_ids": []}],
        [*base, {"id": "b", "query": "q", "expected_ids": ["d", ""]}],
        [*base, {"id": "b", "query": "q", "expected_ids": "d"}],
        [*base, {"id": "b", "query": "q", "expected": ["d"]}],
        [],
    ):
        with pytest.raises(GoldenSetError) as lazy_error:
            from_objects(bad)
        with pytest.raises(GoldenSetError) as eager_error:
            _eager(bad)
        assert str(lazy_error.value) == str(eager_error.value)


def _read_together(golden: GoldenSet) -> list[tuple[GoldenCase, ...]]:
    seen: list[tuple[GoldenCase, ...]] = []
    readers = [threading.Thread(target=lambda: seen.append(golden.cases)) for _ in range(4)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    return seen


def test_two_threads_reading_the_cases_get_the_same_tuple() -> None:
    for _ in range(20):
        golden = from_objects(_items(random.Random(2), 300))
        seen = _read_together(golden)
        assert len(seen) == 4
        assert all(cases is seen[0] for cases in seen)
        assert golden.cases is seen[0]


def _ranking(query: str) -> list[str]:
    rng = random.Random(query)
    return [rng.choice(IDS) for _ in range(rng.randint(0, 6))]


def _comparable(result: Any) -> tuple[Any, ...]:
    info = {k: v for k, v in result.info.items() if k != "timings"}
    cases = [{**c.to_dict(), "latency_ms": None} for c in result.cases]
    metrics = {k: v for k, v in result.metrics.items() if not k.startswith("latency")}
    return metrics, cases, info, result.golden.content_hash, result.golden.case_hashes


@pytest.mark.parametrize("seed", range(8))
def test_evaluate_makes_no_case_until_one_is_read_and_gives_the_eager_result(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    items = [item for item in _items(rng, 50) if item["expected_ids"]]  # none empty
    gc.collect()
    before = _alive()
    quick = evaluate(_ranking, items, concurrency=1, timeout=None)
    assert _alive() == before
    assert len(quick.cases) == len(items)  # the case results come from the columns
    assert [c.id for c in quick.cases] == [item["id"] for item in items]
    assert all(c.tags == () for c in quick.cases)
    assert _alive() == before
    assert "cases" not in quick.golden.__dict__
    assert len(quick.golden.cases) == len(items)
    assert _alive() >= before + len(items)
    monkeypatch.setattr(golden_build, "id_set", lambda *args: None)
    eager = evaluate(_ranking, items, concurrency=1, timeout=None)
    assert "cases" in eager.golden.__dict__
    assert _comparable(quick) == _comparable(eager)
    assert quick.golden == eager.golden


@pytest.mark.parametrize(
    "options",
    [
        {"empty": "zero"},
        {"empty": "skip"},
        {"metrics": ["judged@5", "mrr@5"]},
        {"metrics": ["recall@3", "rejection_rate"]},
    ],
)
def test_other_runs_read_the_cases_and_give_the_eager_result(
    options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    items = _items(random.Random(5), 40)  # some without expected ids
    outcomes = []
    for patched in (False, True):
        if patched:
            monkeypatch.setattr(golden_build, "id_set", lambda *args: None)
        try:
            outcomes.append(_comparable(evaluate(_ranking, items, concurrency=1, **options)))
        except GoldenSetError as error:
            outcomes.append(str(error))
    assert outcomes[0] == outcomes[1]


def test_ids_that_match_nothing_are_named_as_for_built_cases(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    items = [{"id": f"c{i}", "query": f"q {i}", "expected_ids": [f"d{i}"]} for i in range(30)]

    def wrong(query: str) -> list[str]:
        return [f"other-{query}"]

    quick = evaluate(wrong, items, concurrency=1)
    monkeypatch.setattr(golden_build, "id_set", lambda *args: None)
    eager = evaluate(wrong, items, concurrency=1)
    assert quick.info["retrieval"]["ids"]["unmatched_ids"] == ["c0", "c1", "c2", "c3", "c4"]
    assert _comparable(quick) == _comparable(eager)


def test_changing_the_items_after_evaluate_changes_nothing() -> None:
    items = [{"id": f"c{i}", "query": f"q {i}", "expected_ids": [f"d{i}"]} for i in range(10)]
    result = evaluate(lambda q: ["d1"], items, concurrency=1)
    assert "cases" not in result.golden.__dict__  # read nothing yet
    kept = [dict(item, expected_ids=list(item["expected_ids"])) for item in items]
    for item in items:
        item["expected_ids"].append("changed")
        item["query"] = "changed"
        item["id"] = "changed"
    assert result.golden == _eager(kept)
    assert [c.query for c in result.cases] == [f"q {i}" for i in range(10)]


def test_load_golden_keeps_a_list_of_plain_dicts_as_columns() -> None:
    items = [{"id": "a", "query": "q", "expected_ids": ["d"]}]
    golden = load_golden(items)
    assert type(golden.view()) is IdCases
    assert load_golden({"cases": items}) == golden
    assert load_golden(iter(items)) == golden  # not a list: built item by item
