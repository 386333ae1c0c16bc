"""The quick way of one call is the general way: a list of distinct ``str`` ids read in a few
passes, the worker's call without layers, the deadline's start shared with the latency; same
outcomes, errors, tracebacks and timeouts on many generated retrievers."""

from __future__ import annotations

import asyncio
import gc
import random
import time
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from pytest_ragcheck.common.collector import fewer_collections
from pytest_ragcheck.run.calls import RetrievalOutcome, finish, worker_call
from pytest_ragcheck.run.columns import HitColumns, distinct_ids, read_columns, read_hits
from pytest_ragcheck.run.concurrency import PROBE_CALLS, Contention
from pytest_ragcheck.run.hits import normalize_hits
from pytest_ragcheck.run.retrievers import query_call, resolve_retriever
from pytest_ragcheck.run.runner import RunOptions, run_cases
from pytest_ragcheck.run.threads import run_timed_on_threads

IDS = ["a", "b", "é", "日本", "x y", "😀", "x" * 300, "0"]
_NAN = float("nan")  # one object: a nan equals only itself
ODD = ["", 7, None, np.str_("np"), b"raw", ("t", 0.5), {"id": "d"}, 2.5, True]


def _ids_list(rng: random.Random) -> list[Any]:
    """Mostly distinct str ids; some repeat one, hold an empty or odd id, or are empty."""
    items: list[Any] = rng.sample(IDS, rng.randint(0, len(IDS)))
    roll = rng.random()
    if roll < 0.15 and items:
        items.insert(rng.randrange(len(items) + 1), rng.choice(items))
    elif roll < 0.3:
        items.insert(rng.randrange(len(items) + 1), rng.choice(ODD))
    return items


def _any_list(rng: random.Random) -> list[Any]:
    """A hit list of any common shape (ids, pairs, dicts), repeats and odd items included."""
    shape = rng.choice(["ids", "ids", "pairs", "dicts"])
    items: list[Any] = _ids_list(rng)
    if shape == "pairs":
        items = [(i, rng.choice([0.5, 1.0, _NAN])) for i in items]
    elif shape == "dicts":
        items = [{"id": i, "text": rng.choice([None, "t"])} for i in items]
    return items


def test_distinct_ids_is_what_the_column_reader_reads() -> None:
    rng = random.Random(7)
    fast = 0
    for _ in range(5000):
        raw = _any_list(rng)
        ids = distinct_ids(raw)
        plain = bool(raw) and all(type(i) is str and i for i in raw) and len(set(raw)) == len(raw)
        assert (ids is not None) == plain, raw
        if ids is None:
            continue
        fast += 1
        found = read_columns(raw)
        assert found is not None
        columns, dropped = found
        assert (columns.ids, columns.texts, columns.scores, dropped) == (ids, None, None, 0)
        assert ids is not raw  # a copy: the retriever may change its list afterwards
    assert fast > 1000


def _general(raw: object) -> tuple[Any, ...]:
    """What finish() made of ``raw`` before its quick way: the column reader's hits or error."""
    try:
        hits, dropped = read_hits(raw)
    except TypeError as exc:
        return ("error", f"TypeError: {exc}")
    return ("ok", type(hits), list(hits), dropped)


@pytest.mark.parametrize("seed", range(3))
def test_finish_reads_every_list_as_the_general_reader(seed: int) -> None:
    rng = random.Random(seed)
    options = RunOptions(k=None, concurrency=1, timeout=None)
    for _ in range(3000):
        raw = _any_list(rng)
        cpu = rng.choice([None, 0.25])
        got = finish(raw, 1.5, cpu, options)
        assert (got.latency_ms, got.cpu_ms, got.answer, got.timed_out) == (1.5, cpu, None, False)
        if got.error is not None:
            assert ("error", got.error) == _general(raw), raw
        else:
            assert ("ok", type(got.hits), list(got.hits), got.duplicates) == _general(raw), raw


def test_finish_with_sources_reads_every_hit() -> None:
    options = RunOptions(k=None, concurrency=1, timeout=None, sources=("source",))
    got = finish(["a", "b"], 1.0, None, options)
    assert type(got.hits) is list
    assert got.hits == normalize_hits(["a", "b"], sources=("source",))[0]


# ----------------------------------------------------------------- the worker's call


class _Stop(Exception):
    pass


def _behaviour(query: str) -> Any:
    """What the generated retriever does for ``query``: every shape and failure."""
    rng = random.Random(query)
    roll = rng.random()
    if roll < 0.45:
        return _any_list(rng)
    if roll < 0.5:
        return iter(_ids_list(rng))  # lazy hits

    if roll < 0.55:

        def broken() -> Iterator[str]:
            yield "a"
            raise _Stop(f"lazy {query}")

        return broken()
    if roll < 0.6:

        async def later() -> list[str]:
            return ["a", "b"]

        return later()
    if roll < 0.7:
        raise _Stop(f"boom {query}")
    if roll < 0.75:
        raise SystemExit(3)
    if roll < 0.8:
        return {"a", "b"}  # a set has no order: a TypeError
    if roll < 0.85:
        return None
    if roll < 0.9:
        return "one id"
    return [{"id": "a", "text": 3}]  # an odd text: the general reader says why


def _retriever(query: str) -> Any:
    return _behaviour(query)


def _facts(outcome: RetrievalOutcome) -> tuple[Any, ...]:
    hits = outcome.hits
    return (
        type(hits),
        list(hits),
        outcome.duplicates,
        outcome.error,
        outcome.traceback,
        outcome.timed_out,
        outcome.answer,
        outcome.latency_ms is None,
    )


def test_the_workers_call_is_the_general_call() -> None:
    """The worker's quick call against the general one (``call_sync``, as ``"auto"``'s
    measured calls make it): the same outcome, tracebacks included, but the CPU time."""
    options = RunOptions(k=3, concurrency=1, timeout=30.0)
    resolved = resolve_retriever(_retriever, depth=3)
    quick = worker_call(resolved, options)
    general = worker_call(resolved, options, Contention())
    kinds = set()
    for n in range(1500):
        query = f"q{n}"
        started = time.perf_counter()
        got = quick(query, started)
        assert got.latency_ms is not None
        assert 0 <= got.latency_ms <= (time.perf_counter() - started) * 1000.0
        want = general(query, time.perf_counter())
        assert _facts(got) == _facts(want), query
        assert got.cpu_ms is None
        kinds.add((type(got.hits), (got.error or "").split(":")[0]))
    assert len(kinds) >= 5  # columns, Hit lists and several kinds of error


@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit, _Stop])
def test_a_raised_error_on_a_worker_starts_at_the_users_frame(error: type[BaseException]) -> None:
    def retriever(query: str) -> list[str]:
        raise error("3")

    options = RunOptions(k=2, concurrency=1, timeout=5.0)
    for seen in (None, Contention()):
        call = worker_call(resolve_retriever(retriever, depth=2), options, seen)
        outcome = call("q", time.perf_counter())
        assert outcome.error is not None
        assert outcome.error.endswith(f"{error.__qualname__}: 3")
        assert outcome.traceback is not None
        assert "pytest_ragcheck" not in outcome.traceback, outcome.traceback
        assert "in retriever" in outcome.traceback


def test_pytest_exit_leaves_the_workers_call() -> None:
    def retriever(query: str) -> list[str]:
        pytest.exit("stop", returncode=3)

    call = worker_call(
        resolve_retriever(retriever, depth=2), RunOptions(k=2, concurrency=1, timeout=5.0)
    )
    with pytest.raises(pytest.exit.Exception):
        call("q", time.perf_counter())


def test_a_lazy_read_past_the_timeout_is_timed_out_from_the_workers_start() -> None:
    def endless(query: str) -> Iterator[str]:
        n = 0
        while True:
            n += 1
            yield f"d{n}"

    options = RunOptions(k=2, concurrency=1, timeout=0.2)
    call = worker_call(resolve_retriever(endless, depth=2), options)
    outcome = call("q", time.perf_counter() - 1.0)  # its deadline started a second ago
    assert outcome.timed_out
    assert outcome.error == "timed out after 0.2 s"
    assert outcome.latency_ms == pytest.approx(200.0)


def test_query_call_is_the_users_function_when_it_takes_the_query_only() -> None:
    def plain(query: str) -> list[str]:
        return [query]

    def with_k(query: str, k: int = 1) -> list[str]:
        return [query] * k

    assert query_call(resolve_retriever(plain, depth=4).call, 4) is plain
    assert query_call(resolve_retriever(with_k, depth=3).call, 3)("q") == ["q"] * 3
    assert query_call(lambda q, k: [q, k], 5)("q") == ["q", 5]


def test_the_worker_hands_each_call_its_deadlines_start() -> None:
    seen: list[tuple[int, float, float]] = []

    def call(item: int, started: float) -> int:
        seen.append((item, started, time.perf_counter()))
        return item * 2

    before = time.perf_counter()
    out = run_timed_on_threads(
        call, list(range(2000)), concurrency=2, timeout=30.0, timed_out=lambda t: -1
    )
    assert out == [i * 2 for i in range(2000)]
    assert sorted(item for item, _, _ in seen) == list(range(2000))
    assert all(before <= started <= now for _, started, now in seen)


# ----------------------------------------------------------------- whole runs


QUERIES = [f"q{n}" for n in range(600)]


def _users_frames(traceback: str | None) -> str | None:
    """A traceback from the user's first frame on (lazy hits are read by one line of the
    runner without a timeout, by another with one)."""
    if traceback is None:
        return None
    return traceback[traceback.index(f'File "{__file__}"') :]


def _run(options: RunOptions) -> tuple[list[tuple[Any, ...]], list[tuple[int, int]]]:
    shown: list[tuple[int, int]] = []
    run = run_cases(_retriever, QUERIES, options, progress=lambda d, t: shown.append((d, t)))
    facts = [_facts(o._replace(traceback=_users_frames(o.traceback))) for o in run.outcomes]
    return facts, shown


@pytest.mark.parametrize(
    "mode",
    [
        {"concurrency": 1, "timeout": 30.0},
        {"concurrency": 3, "timeout": 30.0},
        {"concurrency": 3, "timeout": None},
        {"concurrency": "auto", "timeout": 60.0},
    ],
)
def test_a_run_on_workers_gives_what_the_calling_thread_gives(mode: dict[str, Any]) -> None:
    plain, _ = _run(RunOptions(k=3, concurrency=1, timeout=None))
    got, shown = _run(RunOptions(k=3, **mode))
    assert got == plain
    assert shown[-1] == (len(QUERIES), len(QUERIES))
    assert [done for done, _ in shown] == sorted({done for done, _ in shown})


def test_timed_out_calls_among_quick_ones() -> None:
    def retriever(query: str) -> list[str]:
        if query in ("q3", "q7"):
            time.sleep(3.0)
        return [query, "shared"]

    queries = [f"q{n}" for n in range(12)]
    run = run_cases(retriever, queries, RunOptions(k=2, concurrency=1, timeout=0.5))
    late = [o for o in run.outcomes if o.timed_out]
    assert len(late) == 2
    assert all(o.error == "timed out after 0.5 s" and o.latency_ms == 500.0 for o in late)
    for query, outcome in zip(queries, run.outcomes, strict=True):
        if query not in ("q3", "q7"):
            assert type(outcome.hits) is HitColumns
            assert outcome.hits.ids == [query, "shared"]
            assert outcome.latency_ms is not None
            assert outcome.latency_ms < 500.0


def test_a_retriever_that_changes_its_list_afterwards_changes_no_outcome() -> None:
    shared = ["a", "b"]

    def retriever(query: str) -> list[str]:
        shared[:] = [query, "b"]
        return shared

    run = run_cases(retriever, ["x", "y"], RunOptions(k=2, concurrency=1, timeout=5.0))
    assert [o.hits.ids for o in run.outcomes] == [["x", "b"], ["y", "b"]]  # type: ignore[attr-defined]


def test_an_async_retriever_reads_its_hits_as_a_sync_one() -> None:
    async def retriever(query: str) -> list[str]:
        await asyncio.sleep(0)
        return [query, query]

    run = run_cases(retriever, ["a", "b"], RunOptions(k=2, concurrency="auto", timeout=5.0))
    assert [(list(o.hits), o.duplicates) for o in run.outcomes] == [
        (normalize_hits(["a"])[0], 1),
        (normalize_hits(["b"])[0], 1),
    ]


# ----------------------------------------------------------------- the collector during a run


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the collector frees it


def test_an_auto_run_collects_once_its_first_calls_are_measured() -> None:
    """The run's first collection comes right after ``"auto"``'s measured calls, while it
    has little to walk."""
    calls: list[str] = []
    starts: list[int] = []

    def watch(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            starts.append(len(calls))

    def retriever(query: str) -> list[str]:
        calls.append(query)
        return [query]

    gc.callbacks.append(watch)
    try:
        with fewer_collections():
            run_cases(retriever, QUERIES[:10], RunOptions(k=1, concurrency="auto", timeout=5.0))
    finally:
        gc.callbacks.remove(watch)
    assert PROBE_CALLS in starts


@pytest.mark.parametrize("timeout", [None, 60.0])
def test_an_auto_run_still_collects_the_cycles_its_retriever_makes(timeout: float | None) -> None:
    alive: list[weakref.ref[_Node]] = []

    def retriever(query: str) -> list[str]:
        node = _Node()
        alive.append(weakref.ref(node))
        return [query, "other"]

    queries = [f"q{i}" for i in range(150_000)]
    with fewer_collections():
        run = run_cases(retriever, queries, RunOptions(k=3, concurrency="auto", timeout=timeout))
        still = sum(ref() is not None for ref in alive)
    assert [o.hits[0].id for o in run.outcomes[:3]] == ["q0", "q1", "q2"]
    assert still < len(queries) // 4, still
