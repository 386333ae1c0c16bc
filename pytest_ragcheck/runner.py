"""Calling the retriever on every golden query: sync or async, concurrently, timed, per-case errors.

Sync retrievers run on daemon worker threads (:mod:`pytest_ragcheck.threads`); async ones in a
bounded set of worker coroutines. A case that raises or exceeds ``timeout`` is recorded with its
error and the others still run; lazy hits (a generator) are read inside the call, so an error
while reading them is that case's error too. The event loop is never patched: when called from
inside a running loop (a pytest-asyncio test), async retrievers run in a fresh loop on a helper
thread. What the user passed is turned into a call by :mod:`pytest_ragcheck.retrievers`.
How many calls run at once is decided in :mod:`pytest_ragcheck.concurrency`.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import time
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from pytest_ragcheck import retrievers
from pytest_ragcheck.aio import (
    LazyTimeout,
    await_value,
    read_async,
    read_lazy,
    run_blocking,
    run_bounded,
)
from pytest_ragcheck.answers.output import Answer, split_output
from pytest_ragcheck.collector import settling
from pytest_ragcheck.concurrency import (
    AUTO,
    PROBE_CALLS,
    ConcurrencyChoice,
    RunOptions,
    choose,
    cpu_available,
)
from pytest_ragcheck.errors import exception_message
from pytest_ragcheck.hits import Hit, normalize_hits
from pytest_ragcheck.retrievers import ACCEPTED_RETRIEVERS, ResolvedRetriever, resolve_retriever
from pytest_ragcheck.threads import MAX_TIMEOUT, Progress, run_on_threads

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

_TRACEBACK_FRAMES = 12
_ERROR_WIDTH = 300
#: Files whose frames sit in front of the user's code in a traceback (the hit readers too).
_OWN_FILES = frozenset(
    {__file__, retrievers.__file__, inspect.getfile(normalize_hits), inspect.getfile(split_output)}
)


class RetrievalOutcome(NamedTuple):
    """What one retriever call produced: deduplicated hits in returned order, or an error.

    A named tuple (immutable) rather than a frozen dataclass: one is built per case, and a
    tuple is built several times faster.
    """

    #: A list; every outcome built here passes its own (a named tuple's defaults are shared).
    hits: Sequence[Hit] = ()
    duplicates: int = 0
    latency_ms: float | None = None
    error: str | None = None
    traceback: str | None = None
    timed_out: bool = False
    #: CPU time of the whole process during the call (sync retrievers only): native threads
    #: (BLAS, tokenizers) count too. Meaningful for calls that ran one at a time; measured
    #: only where it is read (``"auto"``'s first calls, batches).
    cpu_ms: float | None = None
    #: A pipeline's answer (``None`` for a plain retriever, whose return value is hits).
    answer: Answer | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


#: ``RetrievalOutcome`` of all eight fields in order: a third of the keyword form's time.
_outcome = functools.partial(tuple.__new__, RetrievalOutcome)


@dataclass(frozen=True, slots=True)
class RetrievalRun:
    """Every outcome (in query order), the retriever as resolved, and the concurrency used."""

    outcomes: list[RetrievalOutcome]
    retriever: ResolvedRetriever
    concurrency: ConcurrencyChoice
    #: ``batch_size=``: queries per call, and the wall time of every batch that returned.
    batch_size: int | None = None
    batch_ms: tuple[float, ...] = ()


# --------------------------------------------------------------------------- outcomes


def _error_line(exc: BaseException) -> str:
    cls = type(exc)
    builtin = cls.__module__ in ("builtins", "__main__")
    name = cls.__qualname__ if builtin else f"{cls.__module__}.{cls.__qualname__}"
    # a broken __str__ reads as Python's own traceback says it
    message = exception_message(exc, broken="<exception str() failed>")
    if len(message) > _ERROR_WIDTH:
        message = message[: _ERROR_WIDTH - 3] + "..."
    return f"{name}: {message}" if message else name


def _user_traceback(exc: BaseException) -> str:
    """The traceback from the user's code down, without the runner's frames in front."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename in _OWN_FILES:
        tb = tb.tb_next
    try:
        lines = traceback.format_exception(type(exc), exc, tb, limit=-_TRACEBACK_FRAMES)
    except Exception:  # an exception whose own attributes raise (``__notes__``): its line
        return _error_line(exc)  # will do; raising here would end a worker thread, a hang
    return "".join(lines).rstrip()


def _failed(exc: BaseException, latency_ms: float | None) -> RetrievalOutcome:
    return RetrievalOutcome(
        [], latency_ms=latency_ms, error=_error_line(exc), traceback=_user_traceback(exc)
    )


def _timed_out(timeout: float, share: int = 1) -> RetrievalOutcome:
    """A call abandoned at ``timeout`` s: its latency is the timeout (a lower bound of its
    time; ``share``: the queries of a batch, each its share), so p95 and max still see it."""
    return RetrievalOutcome(
        [],
        latency_ms=float(timeout) * 1000.0 / share,
        error=f"timed out after {float(timeout)} s",
        timed_out=True,
    )


def _finish(
    raw: object, latency_ms: float, id_key: str | None, cpu_ms: float | None = None
) -> RetrievalOutcome:
    try:
        answer, raw = (None, raw) if type(raw) is list else split_output(raw)
        hits, duplicates = normalize_hits(raw, id_key=id_key)
    except TypeError as exc:  # its ``__cause__``: a hit whose own code raised, where it did
        tb = None if exc.__cause__ is None else _user_traceback(exc.__cause__)
        return _outcome(([], 0, latency_ms, f"TypeError: {exc}", tb, False, cpu_ms, None))
    except Exception as exc:  # the user's object raised while it was read (a property, a mapping)
        return _failed(exc, latency_ms)
    return _outcome((hits, duplicates, latency_ms, None, None, False, cpu_ms, answer))


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


# --------------------------------------------------------------------------- one call


def _call_sync(
    resolved: ResolvedRetriever, options: RunOptions, query: str, cpu: bool = False
) -> RetrievalOutcome:
    """One call; ``cpu``: measure the process's CPU time during it (``cpu_ms``)."""
    start = time.perf_counter()
    cpu_start = time.process_time() if cpu else 0.0
    try:
        raw = resolved.call(query, options.k)
        if type(raw) is list:  # the common case, nothing to await or read
            pass
        elif inspect.isawaitable(raw) or hasattr(raw, "__aiter__"):  # e.g. a coroutine
            awaitable = raw if inspect.isawaitable(raw) else read_async(raw)
            raw = run_blocking(functools.partial(await_value, awaitable))
        elif isinstance(raw, Iterator):
            raw = read_lazy(raw, start, options.timeout)
    except LazyTimeout:  # the worker got there before the watching thread: the same outcome
        return _timed_out(options.timeout or 0.0)
    except BaseException as exc:  # SystemExit, pytest.skip() too, as on a worker; not Ctrl-C
        if isinstance(exc, KeyboardInterrupt):
            raise
        return _failed(exc, _ms(start))
    latency_ms = _ms(start)
    cpu_ms = (time.process_time() - cpu_start) * 1000.0 if cpu else None
    return _finish(raw, latency_ms, options.id_key, cpu_ms)


def _call_on_worker(
    resolved: ResolvedRetriever, options: RunOptions, cpu: bool, query: str
) -> RetrievalOutcome:
    """:func:`_call_sync` where nothing may escape: on a worker thread, even a
    ``KeyboardInterrupt`` raised by the retriever itself is only that case's error."""
    try:
        return _call_sync(resolved, options, query, cpu)
    except BaseException as exc:
        return _failed(exc, None)


async def _call_async(
    resolved: ResolvedRetriever, options: RunOptions, query: str
) -> RetrievalOutcome:
    start = time.perf_counter()
    cpu_start = time.process_time()
    scope = asyncio.timeout(options.timeout)  # no deadline when None
    try:
        async with scope:
            raw = resolved.call(query, options.k)
            if inspect.isawaitable(raw):
                raw = await raw
            raw = await read_async(raw, start, options.timeout)
    except TimeoutError as exc:
        late = options.timeout is not None and time.perf_counter() - start > options.timeout
        if options.timeout is not None and (scope.expired() or late):  # late: lazy hits' read
            return _timed_out(options.timeout)
        return _failed(exc, _ms(start))  # the retriever's own TimeoutError
    except BaseException as exc:  # SystemExit, pytest.skip() too, as for sync ones
        if isinstance(exc, KeyboardInterrupt | asyncio.CancelledError):
            raise
        return _failed(exc, _ms(start))
    if options.timeout is not None and scope.expired():  # it swallowed the cancellation
        return _timed_out(options.timeout)
    return _finish(raw, _ms(start), options.id_key, (time.process_time() - cpu_start) * 1000.0)


# --------------------------------------------------------------------------- every case


def _run_sync_with(
    resolved: ResolvedRetriever,
    queries: Sequence[str],
    options: RunOptions,
    workers: int,
    progress: Progress | None,
    *,
    cpu: bool = False,
) -> list[RetrievalOutcome]:
    if workers == 1 and options.timeout is None:
        # In the calling thread: the escape hatch for retrievers bound to their creating thread
        # (e.g. sqlite3 connections) or not thread-safe.
        if progress is None:
            return [_call_sync(resolved, options, query, cpu) for query in queries]
        outcomes = []
        for done, query in enumerate(queries, 1):
            outcomes.append(_call_sync(resolved, options, query, cpu))
            progress(done, len(queries))
        return outcomes
    return run_on_threads(
        functools.partial(_call_on_worker, resolved, options, cpu),
        queries,
        concurrency=workers,
        timeout=options.timeout,
        timed_out=_timed_out,
        progress=progress,
    )


def _choice(measured: Sequence[RetrievalOutcome]) -> ConcurrencyChoice:
    """``"auto"``'s decision from the calls that ran one at a time."""
    calls = [
        (o.latency_ms, o.cpu_ms)
        for o in measured
        if o.ok and o.latency_ms is not None and o.cpu_ms is not None
    ]
    return choose(calls, available=cpu_available())


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
    first = _run_sync_with(resolved, queries[:PROBE_CALLS], options, 1, progress, cpu=True)
    choice = _choice(first)
    if total <= PROBE_CALLS:
        return first, choice

    def rest_progress(done: int, _: int) -> None:
        if progress is not None:
            progress(done + PROBE_CALLS, total)

    rest = _run_sync_with(resolved, queries[PROBE_CALLS:], options, choice.workers, rest_progress)
    return first + rest, choice


async def _run_async(
    resolved: ResolvedRetriever,
    queries: Sequence[str],
    options: RunOptions,
    progress: Progress | None,
) -> tuple[list[RetrievalOutcome], ConcurrencyChoice]:
    total = len(queries)
    results: list[RetrievalOutcome | None] = [None] * total
    done = 0

    async def call(index: int) -> None:
        nonlocal done
        results[index] = await _call_async(resolved, options, queries[index])
        done += 1
        if progress is not None:
            progress(done, total)

    if options.concurrency == AUTO:  # measured one at a time, like sync retrievers
        probe = min(PROBE_CALLS, total)
        for index in range(probe):
            await call(index)
        choice = _choice([o for o in results[:probe] if o is not None])
    else:
        probe, choice = 0, ConcurrencyChoice(int(options.concurrency), False)
    await run_bounded(call, range(probe, total), min(choice.workers, total))
    return [outcome for outcome in results if outcome is not None], choice


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
