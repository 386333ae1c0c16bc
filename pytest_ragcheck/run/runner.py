"""Calling the retriever on every golden query: sync or async, concurrently, timed, per-case errors.

Sync retrievers run on daemon worker threads (:mod:`pytest_ragcheck.run.threads`); async ones in a
bounded set of worker coroutines. A case that raises or exceeds ``timeout`` is recorded with its
error and the others still run; lazy hits (a generator) are read inside the call, so an error
while reading them is that case's error too (one call, as batches make it too, is
:mod:`pytest_ragcheck.run.calls`). The event loop is never patched: when called from
inside a running loop (a pytest-asyncio test), async retrievers run in a fresh loop on a helper
thread. What the user passed is turned into a call by :mod:`pytest_ragcheck.run.retrievers`.
How many calls run at once is decided in :mod:`pytest_ragcheck.run.concurrency`.
"""

from __future__ import annotations

import asyncio
import functools
import gc
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from pytest_ragcheck.common.collector import settle, settling
from pytest_ragcheck.common.validate import MAX_TIMEOUT
from pytest_ragcheck.run.aio import run_blocking
from pytest_ragcheck.run.calls import (
    RetrievalOutcome,
    call_async,
    call_sync,
    finish,
    timed_out,
    worker_call,
)
from pytest_ragcheck.run.concurrency import (
    AUTO,
    PROBE_CALLS,
    ConcurrencyChoice,
    Contention,
    RunOptions,
    choose,
)
from pytest_ragcheck.run.retrievers import ACCEPTED_RETRIEVERS, ResolvedRetriever, resolve_retriever
from pytest_ragcheck.run.schedule import map_async, map_sync, offset
from pytest_ragcheck.run.threads import Progress

__all__ = [
    "ACCEPTED_RETRIEVERS",
    "MAX_TIMEOUT",
    "Progress",
    "ResolvedRetriever",
    "RetrievalOutcome",
    "RetrievalRun",
    "RunOptions",
    "arun_cases",
    "arun_retriever",
    "resolve_retriever",
    "run_cases",
    "run_retriever",
]


@dataclass(frozen=True, slots=True)
class RetrievalRun:
    """Every outcome (in query order), the retriever as resolved, and the concurrency used."""

    outcomes: list[RetrievalOutcome]
    retriever: ResolvedRetriever
    concurrency: ConcurrencyChoice
    #: ``batch_size=``: queries per call, and the wall time of every batch that returned.
    batch_size: int | None = None
    batch_ms: tuple[float, ...] = ()


# --------------------------------------------------------------------------- every case


def _run_sync_with(
    resolved: ResolvedRetriever,
    queries: Sequence[str],
    options: RunOptions,
    workers: int,
    progress: Progress | None,
    *,
    seen: Contention | None = None,
) -> list[RetrievalOutcome]:
    """``seen``: measure each call's CPU time (``cpu_ms``) and the thread's share of a core."""
    return map_sync(
        functools.partial(call_sync, resolved, options=options, read=finish, seen=seen),
        queries,
        workers=workers,
        timeout=options.timeout,
        on_worker=worker_call(resolved, options, seen),
        timed_out=timed_out,
        progress=progress,
    )


def _collect_early() -> None:
    """The run's first young collection, made once ``"auto"`` has measured its first calls:
    it sees whether the retriever leaves reference cycles (which decides whether the next
    collections walk what the run keeps: :func:`~pytest_ragcheck.common.collector.settling`)
    while it has little to walk (what was alive before the run is settled as it starts)."""
    if gc.isenabled():
        gc.collect(0)


def _choice(measured: Sequence[RetrievalOutcome], seen: Contention) -> ConcurrencyChoice:
    """``"auto"``'s decision from the calls that ran one at a time."""
    calls = [
        (o.latency_ms, o.cpu_ms)
        for o in measured
        if o.ok and o.latency_ms is not None and o.cpu_ms is not None
    ]
    return choose(calls, available=seen.available())


def _run_sync(
    resolved: ResolvedRetriever,
    queries: Sequence[str],
    options: RunOptions,
    progress: Progress | None,
) -> tuple[list[RetrievalOutcome], ConcurrencyChoice]:
    if options.concurrency != AUTO:
        workers = int(options.concurrency)
        outcomes = _run_sync_with(resolved, queries, options, workers, progress)
        return outcomes, ConcurrencyChoice(workers, False)
    total = len(queries)
    seen = Contention()
    first = _run_sync_with(resolved, queries[:PROBE_CALLS], options, 1, progress, seen=seen)
    choice = _choice(first, seen)
    if total <= PROBE_CALLS:
        return first, choice
    _collect_early()
    rest = _run_sync_with(
        resolved,
        queries[PROBE_CALLS:],
        options,
        choice.workers,
        offset(progress, PROBE_CALLS, total),
    )
    return first + rest, choice


async def _run_async(
    resolved: ResolvedRetriever,
    queries: Sequence[str],
    options: RunOptions,
    progress: Progress | None,
) -> tuple[list[RetrievalOutcome], ConcurrencyChoice]:
    def calls(seen: Contention | None) -> Callable[[str], Awaitable[RetrievalOutcome]]:
        return functools.partial(call_async, resolved, options=options, read=finish, seen=seen)

    if options.concurrency != AUTO:
        workers = int(options.concurrency)
        outcomes = await map_async(calls(None), queries, workers=workers, progress=progress)
        return outcomes, ConcurrencyChoice(workers, False)
    total = len(queries)  # measured one at a time, like sync retrievers
    seen = Contention()
    first = await map_async(calls(seen), queries[:PROBE_CALLS], workers=1, progress=progress)
    choice = _choice(first, seen)
    _collect_early()
    rest = await map_async(
        calls(None),
        queries[PROBE_CALLS:],
        workers=choice.workers,
        progress=offset(progress, PROBE_CALLS, total),
    )
    return first + rest, choice


# --------------------------------------------------------------------------- public API


def run_cases(
    retriever: object,
    queries: Sequence[str],
    options: RunOptions,
    *,
    progress: Progress | None = None,
) -> RetrievalRun:
    """Call the retriever once per query: outcomes in query order, and how they were run.

    ``progress(done, total)`` is called from the thread running the cases. Works from sync
    code and from inside a running event loop.
    """
    resolved = resolve_retriever(retriever, depth=options.k)
    queries = list(queries)
    with settling():
        settle()  # what is alive as the run starts lives on: no collection of the run walks it
        if resolved.is_async:
            run = functools.partial(_run_async, resolved, queries, options, progress)
            outcomes, choice = run_blocking(run)
        else:
            outcomes, choice = _run_sync(resolved, queries, options, progress)
    return RetrievalRun(outcomes, resolved, choice)


async def arun_cases(
    retriever: object,
    queries: Sequence[str],
    options: RunOptions,
    *,
    progress: Progress | None = None,
) -> RetrievalRun:
    """The awaitable form of :func:`run_cases`: async retrievers run on the current loop
    (so clients bound to it keep working), sync ones on worker threads."""
    resolved = resolve_retriever(retriever, depth=options.k)
    queries = list(queries)
    if resolved.is_async:
        outcomes, choice = await _run_async(resolved, queries, options, progress)
    else:
        outcomes, choice = await asyncio.to_thread(_run_sync, resolved, queries, options, progress)
    return RetrievalRun(outcomes, resolved, choice)


def run_retriever(
    retriever: object,
    queries: Sequence[str],
    options: RunOptions,
    *,
    progress: Progress | None = None,
) -> list[RetrievalOutcome]:
    """The outcomes of :func:`run_cases`, one per query, in query order."""
    return run_cases(retriever, queries, options, progress=progress).outcomes


async def arun_retriever(
    retriever: object,
    queries: Sequence[str],
    options: RunOptions,
    *,
    progress: Progress | None = None,
) -> list[RetrievalOutcome]:
    """The outcomes of :func:`arun_cases`, one per query, in query order."""
    return (await arun_cases(retriever, queries, options, progress=progress)).outcomes
