"""Settling a run's survivors: only inside a frozen heap, and cycles are still collected."""

from __future__ import annotations

import gc
import weakref
from typing import Any

from pytest_ragcheck.common.collector import fewer_collections, settling
from pytest_ragcheck.run.runner import RunOptions, run_cases

_OPTIONS = RunOptions(k=3, concurrency=1, timeout=None)
_NAN = float("nan")  # one object: a nan equals only itself


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the collector frees it


def test_outside_a_frozen_heap_nothing_is_frozen_or_hooked() -> None:
    callbacks = list(gc.callbacks)
    assert gc.get_freeze_count() == 0
    with settling():
        assert gc.callbacks == callbacks
        run = run_cases(lambda q: [q, ("x", 0.5)], [f"q{i}" for i in range(5_000)], _OPTIONS)
    assert gc.get_freeze_count() == 0
    assert len(run.outcomes) == 5_000


def test_inside_a_frozen_heap_survivors_are_frozen_and_the_hook_removed() -> None:
    callbacks = list(gc.callbacks)
    with fewer_collections():
        frozen = gc.get_freeze_count()
        with settling():
            assert len(gc.callbacks) == len(callbacks) + 1
            kept = [[object()] for _ in range(300_000)]  # enough for young collections
        assert gc.get_freeze_count() > frozen + 100_000
        assert gc.callbacks == callbacks
        del kept
    assert gc.get_freeze_count() == 0


def test_cycles_a_retriever_makes_are_still_collected() -> None:
    alive: list[weakref.ref[_Node]] = []

    def retriever(query: str) -> list[Any]:
        node = _Node()
        alive.append(weakref.ref(node))
        return [query, ("other", 0.5)]

    queries = [f"q{i}" for i in range(150_000)]
    with fewer_collections():
        run = run_cases(retriever, queries, _OPTIONS)
        still = sum(ref() is not None for ref in alive)
    assert [o.hits[0].id for o in run.outcomes[:3]] == ["q0", "q1", "q2"]
    # every young collection that found a cycle runs again in full: most cycles are gone
    assert still < len(queries) // 4, still


def test_a_settled_run_gives_the_same_outcomes() -> None:
    def retriever(query: str) -> Any:
        if query.endswith("7"):
            raise ValueError(f"bad {query}")
        if query.endswith("5"):
            return []
        if query.endswith("3"):
            return [{"id": query + "!", "text": "t"}, ("ü-🙂", _NAN)]
        return [("x", 0.9), (query, 0.5), "x", ("ü-🙂", _NAN)]

    queries = [f"q{i}" for i in range(60_000)]
    plain = run_cases(retriever, queries, _OPTIONS).outcomes
    with fewer_collections():
        settled = run_cases(retriever, queries, _OPTIONS).outcomes

    def facts(outcomes: list[Any]) -> list[Any]:
        return [(o.hits, o.duplicates, o.error) for o in outcomes]

    assert facts(settled) == facts(plain)
    assert plain[3].hits[0].text == "t"
    assert plain[7].error == "ValueError: bad q7"
    assert plain[5].hits == []
    assert plain[1].duplicates == 1
    assert len(plain[1].hits) == 3
