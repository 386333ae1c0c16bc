"""Calling the retriever on every golden query: sync or async, concurrently, timed, per-case errors.

Sync retrievers run on daemon worker threads (:mod:`pytest_ragcheck.threads`); async ones in a
bounded set of worker coroutines. A case that raises or exceeds ``timeout`` is recorded with its
error and the others still run. The event loop is never patched: when called from inside a
running loop (a pytest-asyncio test), async retrievers run in a fresh loop on a helper thread.
What the user passed is turned into a call by :mod:`pytest_ragcheck.retrievers`.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_ragcheck import retrievers
from pytest_ragcheck.aio import run_blocking
from pytest_ragcheck.hits import Hit, normalize_hits
from pytest_ragcheck.retrievers import ACCEPTED_RETRIEVERS, ResolvedRetriever, resolve_retriever
from pytest_ragcheck.threads import Progress, run_on_threads

__all__ = [
    "ACCEPTED_RETRIEVERS",
    "Progress",
    "ResolvedRetriever",
    "RetrievalOutcome",
    "RunOptions",
    "arun_retriever",
    "resolve_retriever",
    "run_retriever",
]

_TRACEBACK_FRAMES = 12
_ERROR_WIDTH = 300
#: Frames of these files sit in front of the user's code in a retriever's traceback.
_OWN_FILES = frozenset({__file__, retrievers.__file__})


@dataclass(frozen=True, slots=True, kw_only=True)
class RunOptions:
    """How every case is run, checked once and handed down whole to each call.

    ``k`` is passed to retrievers that accept ``k``/``top_k`` (never when ``None``); hits are
    not cut at ``k``. ``timeout`` is per case, in seconds (``None``: no limit). ``id_key`` is
    the metadata key that holds a hit's id.
    """

    k: int | None
    concurrency: int
    timeout: float | None
    id_key: str | None = None

    def __post_init__(self) -> None:
        concurrency = self.concurrency
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(f"concurrency must be an integer >= 1, got {concurrency!r}")
        if self.timeout is not None and not self.timeout > 0:
            raise ValueError(
                f"timeout must be a positive number of seconds or None, got {self.timeout!r}"
            )


@dataclass(frozen=True, slots=True)
class RetrievalOutcome:
    """What one retriever call produced: deduplicated hits in returned order, or an error."""

    hits: list[Hit] = field(default_factory=list)
    duplicates: int = 0
    latency_ms: float | None = None
    error: str | None = None
    traceback: str | None = None
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


# --------------------------------------------------------------------------- outcomes


def _error_line(exc: BaseException) -> str:
    cls = type(exc)
    builtin = cls.__module__ in ("builtins", "__main__")
    name = cls.__qualname__ if builtin else f"{cls.__module__}.{cls.__qualname__}"
    message = " ".join(str(exc).split())
    if len(message) > _ERROR_WIDTH:
        message = message[: _ERROR_WIDTH - 3] + "..."
    return f"{name}: {message}" if message else name


def _user_traceback(exc: BaseException) -> str:
    """The traceback from the user's code down, without the runner's frames in front."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename in _OWN_FILES:
        tb = tb.tb_next
    lines = traceback.format_exception(type(exc), exc, tb, limit=-_TRACEBACK_FRAMES)
    return "".join(lines).rstrip()


def _failed(exc: BaseException, latency_ms: float | None) -> RetrievalOutcome:
    return RetrievalOutcome(
        latency_ms=latency_ms, error=_error_line(exc), traceback=_user_traceback(exc)
    )


def _timed_out(timeout: float) -> RetrievalOutcome:
    return RetrievalOutcome(error=f"timed out after {float(timeout)} s", timed_out=True)


def _finish(raw: object, latency_ms: float, id_key: str | None) -> RetrievalOutcome:
    try:
        hits, duplicates = normalize_hits(raw, id_key=id_key)
    except TypeError as exc:
        return RetrievalOutcome(latency_ms=latency_ms, error=f"TypeError: {exc}")
    return RetrievalOutcome(hits=hits, duplicates=duplicates, latency_ms=latency_ms)


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


# --------------------------------------------------------------------------- one call


async def _await_value(awaitable: Any) -> Any:
    return await awaitable


def _call_sync(resolved: ResolvedRetriever, options: RunOptions, query: str) -> RetrievalOutcome:
    start = time.perf_counter()
    try:
        raw = resolved.call(query, options.k)
        if inspect.isawaitable(raw):  # a plain function that returned a coroutine
            raw = run_blocking(functools.partial(_await_value, raw))
    except Exception as exc:
        return _failed(exc, _ms(start))
    return _finish(raw, _ms(start), options.id_key)


def _call_on_worker(
    resolved: ResolvedRetriever, options: RunOptions, query: str
) -> RetrievalOutcome:
    """:func:`_call_sync` where nothing may escape: on a worker thread, ``SystemExit`` or a
    pytest outcome raised by the retriever is still only that case's error."""
    try:
        return _call_sync(resolved, options, query)
    except BaseException as exc:
        return _failed(exc, None)


async def _call_async(
    resolved: ResolvedRetriever, options: RunOptions, query: str
) -> RetrievalOutcome:
    start = time.perf_counter()
    scope = asyncio.timeout(options.timeout)  # no deadline when None
    try:
        async with scope:
            raw = resolved.call(query, options.k)
            if inspect.isawaitable(raw):
                raw = await raw
    except TimeoutError as exc:
        if options.timeout is not None and scope.expired():
            return _timed_out(options.timeout)
        return _failed(exc, _ms(start))  # the retriever's own TimeoutError
    except Exception as exc:
        return _failed(exc, _ms(start))
    return _finish(raw, _ms(start), options.id_key)


# --------------------------------------------------------------------------- every case


def _run_sync(
    resolved: ResolvedRetriever,
    queries: Sequence[str],
    options: RunOptions,
    progress: Progress | None,
) -> list[RetrievalOutcome]:
    if options.concurrency == 1 and options.timeout is None:
        # In the calling thread: the escape hatch for retrievers bound to their creating thread
        # (e.g. sqlite3 connections) or not thread-safe.
        outcomes = []
        for done, query in enumerate(queries, 1):
            outcomes.append(_call_sync(resolved, options, query))
            if progress is not None:
                progress(done, len(queries))
        return outcomes
    return run_on_threads(
        functools.partial(_call_on_worker, resolved, options),
        queries,
        concurrency=options.concurrency,
        timeout=options.timeout,
        timed_out=_timed_out,
        progress=progress,
    )


async def _run_async(
    resolved: ResolvedRetriever,
    queries: Sequence[str],
    options: RunOptions,
    progress: Progress | None,
) -> list[RetrievalOutcome]:
    total = len(queries)
    results: list[RetrievalOutcome | None] = [None] * total
    indices = iter(range(total))  # shared by the workers: at most `concurrency` calls in flight
    done = 0

    async def worker() -> None:
        nonlocal done
        for index in indices:
            results[index] = await _call_async(resolved, options, queries[index])
            done += 1
            if progress is not None:
                progress(done, total)

    await asyncio.gather(*(worker() for _ in range(min(options.concurrency, total))))
    return [outcome for outcome in results if outcome is not None]


# --------------------------------------------------------------------------- public API


def run_retriever(
    retriever: object,
    queries: Sequence[str],
    options: RunOptions,
    *,
    progress: Progress | None = None,
) -> list[RetrievalOutcome]:
    """Call the retriever once per query; outcomes come back in query order.

    ``progress(done, total)`` is called from the thread running the cases. Works from sync
    code and from inside a running event loop.
    """
    resolved = resolve_retriever(retriever)
    queries = list(queries)
    if not queries:
        return []
    if resolved.is_async:
        return run_blocking(functools.partial(_run_async, resolved, queries, options, progress))
    return _run_sync(resolved, queries, options, progress)


async def arun_retriever(
    retriever: object,
    queries: Sequence[str],
    options: RunOptions,
    *,
    progress: Progress | None = None,
) -> list[RetrievalOutcome]:
    """The awaitable form of :func:`run_retriever`: async retrievers run on the current loop
    (so clients bound to it keep working), sync ones on worker threads."""
    resolved = resolve_retriever(retriever)
    queries = list(queries)
    if not queries:
        return []
    if resolved.is_async:
        return await _run_async(resolved, queries, options, progress)
    return await asyncio.to_thread(_run_sync, resolved, queries, options, progress)
