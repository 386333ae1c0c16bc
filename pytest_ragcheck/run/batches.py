"""Calling the retriever with lists of queries (``batch_size=N``): one timed call per batch.

A local embedding model encodes many queries at once far faster than one at a time, so with
``batch_size`` the retriever takes a list of up to N queries and returns one hit list per
query, in order (see :func:`pytest_ragcheck.run.retrievers.resolve_batch_retriever`). A batch's
time is kept whole (the per-batch latency the summary reports) and split evenly over its
queries (each case's latency). A batch that raises, exceeds ``timeout`` or returns the wrong
number of hit lists gives every case in it that error; the other batches still run.
Batches run one at a time unless ``concurrency`` is a number.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from pytest_ragcheck.common.collector import settling
from pytest_ragcheck.run.aio import run_blocking
from pytest_ragcheck.run.calls import (
    RetrievalOutcome,
    call_async,
    call_sync,
    failed,
    finish,
    timed_out,
)
from pytest_ragcheck.run.concurrency import AUTO, ConcurrencyChoice, RunOptions
from pytest_ragcheck.run.retrievers import ResolvedRetriever, resolve_batch_retriever
from pytest_ragcheck.run.runner import RetrievalRun
from pytest_ragcheck.run.schedule import map_async, map_sync
from pytest_ragcheck.run.threads import Progress

__all__ = ["run_batches"]


@dataclass(frozen=True, slots=True)
class _Batch:
    number: int
    start: int
    queries: list[str]

    def where(self, batches: int) -> str:
        last = self.start + len(self.queries)
        return f"batch {self.number} of {batches}, cases {self.start + 1}-{last}"


@dataclass(frozen=True, slots=True)
class _Done:
    """One batch's outcomes (one per query) and its wall time (``None``: it failed)."""

    outcomes: list[RetrievalOutcome]
    batch_ms: float | None = None


def _split(queries: Sequence[str], size: int) -> list[_Batch]:
    return [
        _Batch(n, start, list(queries[start : start + size]))
        for n, start in enumerate(range(0, len(queries), size), 1)
    ]


def _every(batch: _Batch, outcome: RetrievalOutcome) -> _Done:
    return _Done([outcome] * len(batch.queries))


def _with_where(outcome: RetrievalOutcome, where: str) -> RetrievalOutcome:
    return outcome._replace(error=f"{outcome.error} ({where})")


def _hit_lists(raw: object) -> list[object] | None:
    """One item per query; a numpy array counts (FAISS's ids, one row per query)."""
    if isinstance(raw, str | bytes | Mapping) or not isinstance(raw, Iterable):
        return None
    array = hasattr(raw, "__array__") and not hasattr(raw, "columns")  # a data frame: columns
    if not isinstance(raw, Sequence | Iterator) and not array:
        return None  # a set has no order; other iterables are not what a batch returns
    return list(raw)


def _one_hit(item: object) -> bool:
    """Whether a batch's item is one hit (a str or int id, an ``(id, score)`` pair) rather than
    the hit list of a query."""
    if isinstance(item, str | numbers.Integral):
        return not isinstance(item, bool)
    return (
        type(item) is tuple
        and len(item) == 2
        and isinstance(item[1], numbers.Real)
        and not isinstance(item[1], bool)
    )


def _done(
    batch: _Batch,
    total: int,
    raw: object,
    batch_ms: float,
    cpu_ms: float | None,
    options: RunOptions,
) -> _Done:
    n = len(batch.queries)
    try:
        lists = _hit_lists(raw)
    except Exception as exc:  # a generator of hit lists that raised while it was read
        return _every(batch, _with_where(failed(exc, batch_ms / n), batch.where(total)))
    if lists is None:
        got = type(raw).__name__
    elif lists and _one_hit(lists[0]):  # one query's answer: a retriever not written for batches?
        got = f"{len(lists)} hits, not hit lists (the first is {lists[0]!r:.40})"
    else:
        got = "" if len(lists) == n else f"{len(lists)} hit lists"
    if lists is None or got:
        error = (
            f"the batch retriever returned {got} for {n} queries ({batch.where(total)}); "
            "it must return one hit list per query, in query order"
        )
        return _every(batch, RetrievalOutcome([], latency_ms=batch_ms / n, error=error))
    per_ms, per_cpu = batch_ms / n, None if cpu_ms is None else cpu_ms / n
    outcomes = [
        finish(h, per_ms, per_cpu, options)
        if not isinstance(h, Iterator)
        else _lazy(h, per_ms, per_cpu, options)
        for h in lists
    ]
    return _Done(outcomes, batch_ms)


def _lazy(
    hits: Iterator[object], per_ms: float, per_cpu: float | None, options: RunOptions
) -> RetrievalOutcome:
    """One query's lazy hits (a generator), read now: an error while reading them is that
    case's error only."""
    try:
        read = list(hits)
    except Exception as exc:
        return failed(exc, per_ms)
    return finish(read, per_ms, per_cpu, options)


def _of_batch(done: _Done | RetrievalOutcome, batch: _Batch, total: int) -> _Done:
    """A batch's outcomes: as read from its call, or the call's error for every case in it."""
    return done if isinstance(done, _Done) else _every(batch, _with_where(done, batch.where(total)))


def _call_sync(
    resolved: ResolvedRetriever, options: RunOptions, total: int, batch: _Batch
) -> _Done:
    # a copy: a retriever that drains or extends its list must not change the batch
    queries = list(batch.queries)
    read = functools.partial(_done, batch, total)
    return _of_batch(
        call_sync(resolved, queries, options, read, len(queries), cpu=True), batch, total
    )


def _call_on_worker(
    resolved: ResolvedRetriever, options: RunOptions, total: int, batch: _Batch, _: float
) -> _Done:
    """A batch's call on a worker thread (``_``: when its deadline started; a batch times its
    wall and CPU time itself)."""
    try:
        return _call_sync(resolved, options, total, batch)
    except BaseException as exc:  # on a worker thread nothing may escape
        return _every(batch, _with_where(failed(exc, None), batch.where(total)))


async def _call_async(
    resolved: ResolvedRetriever, options: RunOptions, total: int, batch: _Batch
) -> _Done:
    queries = list(batch.queries)  # a copy, as for sync ones
    read = functools.partial(_done, batch, total)
    return _of_batch(await call_async(resolved, queries, options, read, len(queries)), batch, total)


def _run_sync(
    resolved: ResolvedRetriever,
    batches: list[_Batch],
    options: RunOptions,
    workers: int,
    progress: Progress | None,
) -> list[_Done]:
    total = len(batches)
    results = map_sync(
        functools.partial(_call_sync, resolved, options, total),
        batches,
        workers=workers,
        timeout=options.timeout,
        on_worker=functools.partial(_call_on_worker, resolved, options, total),
        timed_out=lambda _: _Done([]),  # expanded below: the batch's size is not known here
        progress=progress,
    )
    return [
        r
        if r.outcomes
        else _every(b, _with_where(timed_out(options.timeout or 0, len(b.queries)), b.where(total)))
        for b, r in zip(batches, results, strict=True)
    ]


def run_batches(
    retriever: object,
    queries: Sequence[str],
    options: RunOptions,
    batch_size: int,
    *,
    progress: Progress | None = None,
) -> RetrievalRun:
    """Call the retriever once per batch of up to ``batch_size`` queries: one outcome per
    query, in query order, and every successful batch's wall time."""
    resolved = resolve_batch_retriever(retriever, depth=options.k)
    batches = _split(list(queries), batch_size)
    auto = options.concurrency == AUTO
    workers = 1 if auto else int(options.concurrency)
    choice = ConcurrencyChoice(workers, auto, f"batches of {batch_size} run one at a time")

    def batch_progress(done: int, total: int) -> None:
        if progress is not None:
            progress(min(done * batch_size, len(queries)), len(queries))

    shown = batch_progress if progress is not None else None
    with settling():
        if resolved.is_async:
            call = functools.partial(_call_async, resolved, options, len(batches))
            run = functools.partial(map_async, call, batches, workers=workers, progress=shown)
            done = run_blocking(run)
        else:
            done = _run_sync(resolved, batches, options, workers, shown)
    outcomes = [outcome for d in done for outcome in d.outcomes]
    batch_ms = tuple(d.batch_ms for d in done if d.batch_ms is not None)
    return RetrievalRun(outcomes, resolved, choice, batch_size=batch_size, batch_ms=batch_ms)
