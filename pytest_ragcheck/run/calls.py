"""One call of the retriever, over a query or a batch of queries, sync or async.

:mod:`pytest_ragcheck.run.runner` (a query per call) and :mod:`pytest_ragcheck.run.batches` (a list of
queries per call) both call through here, so a call means the same either way: it is timed
(``time.perf_counter``, lazy hits included: a generator is read inside the call, against
``timeout``); an exception, ``sys.exit()`` and ``pytest.skip()`` included, is the call's
error, with a traceback from the user's code down; a call that outlives ``timeout``, or
swallows the cancellation that enforces it, timed out; Ctrl-C stops the run, and
``pytest.exit()`` the session, as in any test. What a call
returned is handed with its wall and CPU time to the caller's ``read``: :func:`finish` reads
it as a query's hits, a batch as one hit list per query.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple, TypeVar

from pytest_ragcheck.common.errors import exception_message
from pytest_ragcheck.run import columns, retrievers
from pytest_ragcheck.run.aio import LazyTimeout, await_value, read_async, read_lazy, run_blocking
from pytest_ragcheck.run.columns import HitColumns, distinct_ids
from pytest_ragcheck.run.concurrency import Contention, RunOptions
from pytest_ragcheck.run.hits import Hit, normalize_hits
from pytest_ragcheck.run.output import Answer, split_output
from pytest_ragcheck.run.retrievers import ResolvedRetriever

__all__ = [
    "Read",
    "RetrievalOutcome",
    "WorkerCall",
    "call_async",
    "call_sync",
    "failed",
    "finish",
    "stops_session",
    "timed_out",
    "worker_call",
]

_TRACEBACK_FRAMES = 12
_ERROR_WIDTH = 300
#: Files whose frames sit in front of the user's code in a traceback (the hit readers too).
_OWN_FILES = frozenset(
    {
        __file__,
        retrievers.__file__,
        columns.__file__,
        inspect.getfile(normalize_hits),
        inspect.getfile(split_output),
    }
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

T = TypeVar("T")
#: What to make of a call that returned: ``read(value, wall ms, process CPU ms or None,
#: options)``, its lazy hits read already (:func:`finish` for a query's hits).
Read = Callable[[object, float, float | None, RunOptions], T]


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


def stops_session(exc: BaseException) -> bool:
    """Whether ``exc`` is ``pytest.exit()``'s: it means "stop the session now", in a retriever
    as in a test. Looked up, not imported: this core does not import pytest."""
    outcomes = sys.modules.get("_pytest.outcomes")
    return outcomes is not None and isinstance(exc, outcomes.Exit)


def failed(exc: BaseException, latency_ms: float | None) -> RetrievalOutcome:
    """The outcome of a call that raised ``exc``. ``pytest.exit()`` is raised on instead,
    wherever the call ran: a worker thread hands it to the calling thread, which ends the run
    (:func:`pytest_ragcheck.run.threads.run_on_threads`)."""
    if stops_session(exc):
        raise exc
    return RetrievalOutcome(
        [], latency_ms=latency_ms, error=_error_line(exc), traceback=_user_traceback(exc)
    )


def timed_out(timeout: float, share: int = 1) -> RetrievalOutcome:
    """A call abandoned at ``timeout`` s: its latency is the timeout (a lower bound of its
    time; ``share``: the queries of a batch, each its share), so p95 and max still see it."""
    return RetrievalOutcome(
        [],
        latency_ms=float(timeout) * 1000.0 / share,
        error=f"timed out after {float(timeout)} s",
        timed_out=True,
    )


def finish(
    raw: object, latency_ms: float, cpu_ms: float | None, options: RunOptions
) -> RetrievalOutcome:
    """One query's outcome from what the retriever returned for it: its hits, or why not."""
    if type(raw) is list and options.sources is None:  # the most common hits: distinct str ids
        ids = distinct_ids(raw)
        if ids is not None:
            return _outcome((HitColumns(ids), 0, latency_ms, None, None, False, cpu_ms, None))
    try:
        answer, raw = (None, raw) if type(raw) is list else split_output(raw)
        if options.sources is None:  # the common shapes as columns, no object per hit
            hits, duplicates = columns.read_hits(raw, id_key=options.id_key)
        else:  # an authority metric reads each hit's source: the general reader
            hits, duplicates = normalize_hits(raw, id_key=options.id_key, sources=options.sources)
    except TypeError as exc:  # its ``__cause__``: a hit whose own code raised, where it did
        cause = exc.__cause__
        if cause is not None and stops_session(cause):
            raise cause from None
        tb = None if exc.__cause__ is None else _user_traceback(exc.__cause__)
        return _outcome(([], 0, latency_ms, f"TypeError: {exc}", tb, False, cpu_ms, None))
    except Exception as exc:  # the user's object raised while it was read (a property, a mapping)
        return failed(exc, latency_ms)
    return _outcome((hits, duplicates, latency_ms, None, None, False, cpu_ms, answer))


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


# --------------------------------------------------------------------------- one call


def _value_of(raw: object, start: float, timeout: float | None) -> object:
    """What a call returned that is not a list, awaited and read (a coroutine, lazy hits)."""
    if inspect.isawaitable(raw) or hasattr(raw, "__aiter__"):  # e.g. a coroutine
        awaitable = raw if inspect.isawaitable(raw) else read_async(raw)
        return run_blocking(functools.partial(await_value, awaitable))
    if isinstance(raw, Iterator):
        return read_lazy(raw, start, timeout)
    return raw


def _raised(
    exc: BaseException, start: float, timeout: float | None, share: int
) -> RetrievalOutcome:
    """The outcome of a sync call that raised ``exc``: ``SystemExit``, ``pytest.skip()`` too,
    as on a worker (the caller raises Ctrl-C on)."""
    if isinstance(exc, LazyTimeout):  # the worker got there before the watching thread
        return timed_out(timeout or 0.0, share)
    return failed(exc, _ms(start) / share)


def call_sync(
    resolved: ResolvedRetriever,
    argument: str | list[str],
    options: RunOptions,
    read: Read[T],
    share: int = 1,
    cpu: bool = False,
    seen: Contention | None = None,
) -> T | RetrievalOutcome:
    """Call a sync retriever with ``argument`` (a query, or a batch of ``share`` queries) and
    ``read`` what it returned; ``cpu``: measure the process's CPU time during the call, and
    ``seen`` (which measures it too) what the machine's load left this thread of a core. A
    failed or timed-out call is its outcome, its latency each query's share."""
    before = None if seen is None else seen.start()
    cpu = cpu or seen is not None
    start = time.perf_counter()
    cpu_start = time.process_time() if cpu else 0.0
    try:
        raw = resolved.call(argument, options.k)
        if type(raw) is not list:  # a list, the common case, has nothing to await or read
            raw = _value_of(raw, start, options.timeout)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        return _raised(exc, start, options.timeout, share)
    latency_ms = _ms(start)
    cpu_ms = (time.process_time() - cpu_start) * 1000.0 if cpu else None
    if seen is not None:
        seen.add(before)
    return read(raw, latency_ms, cpu_ms, options)


#: One query's call on a worker thread: ``call(query, started)`` (see :func:`worker_call`).
WorkerCall = Callable[[str, float], RetrievalOutcome]


def worker_call(
    resolved: ResolvedRetriever, options: RunOptions, seen: Contention | None = None
) -> WorkerCall:
    """One query's :func:`call_sync` as a worker thread makes it, where nothing may escape:
    even a ``KeyboardInterrupt`` raised by the retriever itself is only that case's error
    (``pytest.exit()`` goes on to end the run). ``started``, when the worker started the
    call's deadline, is when its latency starts too: one clock read per call fewer, and no
    layer between the worker and the user's function. ``seen``: the calls ``"auto"``
    measures, which time themselves."""
    if seen is not None:

        def measured(query: str, _: float) -> RetrievalOutcome:
            try:
                return call_sync(resolved, query, options, finish, seen=seen)
            except BaseException as exc:
                return failed(exc, None)

        return measured
    ask = retrievers.query_call(resolved.call, options.k)
    timeout, clock = options.timeout, time.perf_counter

    def call(query: str, started: float) -> RetrievalOutcome:
        try:
            try:
                raw = ask(query)
                if type(raw) is not list:
                    raw = _value_of(raw, started, timeout)
            except BaseException as exc:
                if isinstance(exc, KeyboardInterrupt):
                    return failed(exc, None)
                return _raised(exc, started, timeout, 1)
            return finish(raw, (clock() - started) * 1000.0, None, options)
        except BaseException as exc:  # raised while the hits were read (or pytest.exit())
            return failed(exc, None)

    return call


async def call_async(
    resolved: ResolvedRetriever,
    argument: str | list[str],
    options: RunOptions,
    read: Read[T],
    share: int = 1,
    seen: Contention | None = None,
) -> T | RetrievalOutcome:
    """:func:`call_sync` for an async retriever, on the running loop: ``timeout`` cancels it."""
    before = None if seen is None else seen.start()
    start = time.perf_counter()
    cpu_start = time.process_time()
    scope = asyncio.timeout(options.timeout)  # no deadline when None
    try:
        async with scope:
            raw = resolved.call(argument, options.k)
            if inspect.isawaitable(raw):
                raw = await raw
            raw = await read_async(raw, start, options.timeout)
    except TimeoutError as exc:
        late = options.timeout is not None and time.perf_counter() - start > options.timeout
        if options.timeout is not None and (scope.expired() or late):  # late: lazy hits' read
            return timed_out(options.timeout, share)
        return failed(exc, _ms(start) / share)  # the retriever's own TimeoutError
    except BaseException as exc:  # SystemExit, pytest.skip() too, as for sync ones
        if isinstance(exc, KeyboardInterrupt | asyncio.CancelledError):
            raise
        return failed(exc, _ms(start) / share)
    if options.timeout is not None and scope.expired():  # it swallowed the cancellation
        return timed_out(options.timeout, share)
    latency_ms, cpu_ms = _ms(start), (time.process_time() - cpu_start) * 1000.0
    if seen is not None:
        seen.add(before)
    return read(raw, latency_ms, cpu_ms, options)
