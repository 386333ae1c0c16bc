"""Calling the retriever on every golden query: sync or async, concurrently, timed, per-case errors.

Sync retrievers run on a small pool of daemon worker threads; async ones in a bounded set of
worker coroutines. A case that raises or exceeds ``timeout`` is recorded with its error and the
others still run. The event loop is never patched: when called from inside a running loop (a
pytest-asyncio test), async retrievers run in a fresh loop on a helper thread.

Daemon threads rather than ``ThreadPoolExecutor``: a retriever that hangs past its timeout cannot
be killed, and the executor's workers are joined at interpreter exit, so one hung call would
hang the whole pytest process at shutdown. An abandoned worker is replaced so that the remaining
cases keep their concurrency.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar

from pytest_ragcheck.aio import run_blocking
from pytest_ragcheck.errors import RetrieverError
from pytest_ragcheck.hits import Hit, normalize_hits

__all__ = [
    "ACCEPTED_RETRIEVERS",
    "ResolvedRetriever",
    "RetrievalOutcome",
    "arun_retriever",
    "resolve_retriever",
    "run_retriever",
]

T = TypeVar("T")
Progress = Callable[[int, int], None]

ACCEPTED_RETRIEVERS = (
    "a callable f(query) -> hits (sync or async def), or an object with .invoke/.ainvoke "
    "(LangChain), .retrieve/.aretrieve (LlamaIndex), .search(query) or .run(query=...) (Haystack)"
)
#: (sync method, async method, label), tried in this order. The sync variant is preferred when
#: both exist: frameworks implement the async one for sync backends by running the sync one in
#: an executor, which is what the thread pool does anyway, and sync clients are not tied to an
#: event loop.
_METHODS: tuple[tuple[str, str | None, str], ...] = (
    ("invoke", "ainvoke", "LangChain-style"),
    ("retrieve", "aretrieve", "LlamaIndex-style"),
    ("search", "asearch", ""),
    ("run", "run_async", "Haystack-style"),
)
_K_PARAMS = ("k", "top_k")
_TRACEBACK_FRAMES = 12


@dataclass
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


class _Invoker:
    """Calls the resolved function with the query (positional or ``query=``) and maybe ``k``."""

    __slots__ = ("fn", "k_param", "query_keyword")

    def __init__(self, fn: Callable[..., Any], k_param: str | None, query_keyword: str | None):
        self.fn = fn
        self.k_param = k_param
        self.query_keyword = query_keyword

    def __call__(self, query: str, k: int | None) -> Any:
        kwargs: dict[str, Any] = {}
        if k is not None and self.k_param is not None:
            kwargs[self.k_param] = k
        if self.query_keyword is not None:
            kwargs[self.query_keyword] = query
            return self.fn(**kwargs)
        return self.fn(query, **kwargs)


class ResolvedRetriever(NamedTuple):
    """``call(query, k)`` returns hits (or an awaitable of hits when ``is_async``)."""

    call: Callable[[str, int | None], Any]
    is_async: bool
    description: str


def _is_async(fn: object) -> bool:
    while isinstance(fn, functools.partial):
        fn = fn.func
    if inspect.iscoroutinefunction(fn):
        return True
    if inspect.isfunction(fn) or inspect.ismethod(fn) or inspect.isbuiltin(fn):
        return False
    return inspect.iscoroutinefunction(getattr(fn, "__call__", None))  # noqa: B004


def _params(fn: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    try:
        return dict(inspect.signature(fn).parameters)
    except (TypeError, ValueError):  # builtins and C callables without a signature
        return {}


def _k_param(params: dict[str, inspect.Parameter]) -> str | None:
    """``k`` or ``top_k`` when explicitly accepted by keyword (``**kwargs`` does not count)."""
    for name in _K_PARAMS:
        param = params.get(name)
        if param is not None and param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            return name
    return None


def _name(fn: object) -> str:
    if isinstance(fn, functools.partial):
        return f"partial({_name(fn.func)})"
    return _readable(str(getattr(fn, "__qualname__", None) or type(fn).__qualname__))


def _readable(qualname: str) -> str:
    """``test_x.<locals>.Retriever`` -> ``Retriever``: the part a user recognises."""
    return qualname.rsplit("<locals>.", 1)[-1]


def resolve_retriever(obj: object) -> ResolvedRetriever:
    """Work out how to call ``obj``; raises :class:`RetrieverError` when it is not usable.

    Objects with a framework method (``invoke``, ``retrieve``, ``search``, ``run``) use it in
    preference to ``__call__``; the sync method wins over the async one when both exist. A
    ``k``/``top_k`` parameter of the chosen callable receives the marker's ``k``.
    """
    if isinstance(obj, ResolvedRetriever):
        return obj
    if obj is None:
        raise RetrieverError(
            f"the retriever is None (did the fixture forget to return it?); pass {ACCEPTED_RETRIEVERS}"
        )
    if isinstance(obj, type):
        raise RetrieverError(
            f"the retriever is the class {_readable(obj.__qualname__)}, not an instance; create one first"
        )
    plain = isinstance(obj, functools.partial) or inspect.isroutine(obj)
    if not plain:
        for sync_name, async_name, label in _METHODS:
            for name in (sync_name, async_name):
                method = getattr(obj, name, None) if name else None
                if method is None or not callable(method):
                    continue
                params = _params(method)
                query_keyword = None
                if sync_name == "run":
                    if "query" not in params:
                        continue  # some other kind of run(); not a Haystack component
                    query_keyword = "query"
                is_async = _is_async(method)
                where = f"{_readable(type(obj).__qualname__)}.{name}"
                description = (
                    f"{where} ({label}{', ' if label else ''}{'async' if is_async else 'sync'})"
                )
                return ResolvedRetriever(
                    _Invoker(method, _k_param(params), query_keyword), is_async, description
                )
    if callable(obj):
        is_async = _is_async(obj)
        kind = "async callable" if is_async else "callable"
        return ResolvedRetriever(
            _Invoker(obj, _k_param(_params(obj)), None), is_async, f"{kind} {_name(obj)}"
        )
    raise RetrieverError(
        f"cannot use {_readable(type(obj).__qualname__)} as a retriever: pass {ACCEPTED_RETRIEVERS}"
    )


# --------------------------------------------------------------------------- outcomes


def _error_line(exc: BaseException) -> str:
    cls = type(exc)
    name = (
        cls.__qualname__
        if cls.__module__ in ("builtins", "__main__")
        else (f"{cls.__module__}.{cls.__qualname__}")
    )
    message = " ".join(str(exc).split())
    if len(message) > 300:
        message = message[:297] + "..."
    return f"{name}: {message}" if message else name


def _user_traceback(exc: BaseException) -> str:
    """The traceback from the user's code down, without this module's frames in front."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
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


# --------------------------------------------------------------------------- event loops


async def _await_value(awaitable: Any) -> Any:
    return await awaitable


# --------------------------------------------------------------------------- sync retrievers


def _call_sync(
    resolved: ResolvedRetriever, query: str, k: int | None, id_key: str | None
) -> RetrievalOutcome:
    start = time.perf_counter()
    try:
        raw = resolved.call(query, k)
        if inspect.isawaitable(raw):  # a plain function that returned a coroutine
            raw = run_blocking(functools.partial(_await_value, raw))
    except Exception as exc:
        return _failed(exc, _ms(start))
    return _finish(raw, _ms(start), id_key)


class _ThreadRun:
    """Worker threads pulling case indices; the calling thread watches the deadlines."""

    def __init__(
        self,
        resolved: ResolvedRetriever,
        queries: Sequence[str],
        *,
        k: int | None,
        id_key: str | None,
        concurrency: int,
        timeout: float | None,
        progress: Progress | None,
    ) -> None:
        self.resolved = resolved
        self.queries = queries
        self.k = k
        self.id_key = id_key
        self.concurrency = concurrency
        self.timeout = timeout
        self.progress = progress
        self.total = len(queries)
        self.results: list[RetrievalOutcome | None] = [None] * self.total
        self.cond = threading.Condition()
        self.next_index = 0
        self.done = 0
        self.running: dict[int, float] = {}  # case index -> start time
        self.abandoned: set[int] = set()
        self.stopped = False
        self.spawned = 0

    def _spawn(self) -> None:
        self.spawned += 1
        worker = threading.Thread(
            target=self._work, name=f"ragcheck-retriever-{self.spawned}", daemon=True
        )
        worker.start()

    def _work(self) -> None:
        while True:
            with self.cond:
                if self.stopped or self.next_index >= self.total:
                    return
                index = self.next_index
                self.next_index += 1
                self.running[index] = time.perf_counter()
            try:
                outcome = _call_sync(self.resolved, self.queries[index], self.k, self.id_key)
            except BaseException as exc:  # SystemExit, pytest outcomes...: still one case's error
                outcome = _failed(exc, None)
            with self.cond:
                self.running.pop(index, None)
                if index in self.abandoned:
                    return  # recorded as timed out; a replacement worker took this slot
                self.results[index] = outcome
                self.done += 1
                self.cond.notify()

    def _expire(self, timeout: float) -> float:
        """Record overdue cases as timed out; return how long to wait for the next deadline."""
        now = time.perf_counter()
        for index, started in list(self.running.items()):
            if now - started >= timeout:
                del self.running[index]
                self.abandoned.add(index)
                self.results[index] = _timed_out(timeout)
                self.done += 1
                if self.next_index < self.total:
                    self._spawn()
        deadlines = [started + timeout for started in self.running.values()]
        return max(min(deadlines, default=now + timeout) - now, 0.0)

    def run(self) -> list[RetrievalOutcome]:
        reported = 0
        try:
            with self.cond:
                for _ in range(min(self.concurrency, self.total)):
                    self._spawn()
            while True:
                with self.cond:
                    wait = None if self.timeout is None else self._expire(self.timeout)
                    if self.done == reported and self.done < self.total:
                        self.cond.wait(wait)
                        if self.timeout is not None:
                            self._expire(self.timeout)
                    done = self.done
                if self.progress is not None and done != reported:
                    self.progress(done, self.total)
                reported = done
                if done >= self.total:
                    break
        finally:
            with self.cond:
                self.stopped = True
        return [outcome for outcome in self.results if outcome is not None]


def _run_sync(
    resolved: ResolvedRetriever,
    queries: Sequence[str],
    *,
    k: int | None,
    concurrency: int,
    timeout: float | None,
    id_key: str | None,
    progress: Progress | None,
) -> list[RetrievalOutcome]:
    if concurrency == 1 and timeout is None:
        # In the calling thread: the escape hatch for retrievers bound to their creating thread
        # (e.g. sqlite3 connections) or not thread-safe.
        outcomes = []
        for done, query in enumerate(queries, 1):
            outcomes.append(_call_sync(resolved, query, k, id_key))
            if progress is not None:
                progress(done, len(queries))
        return outcomes
    return _ThreadRun(
        resolved,
        queries,
        k=k,
        id_key=id_key,
        concurrency=concurrency,
        timeout=timeout,
        progress=progress,
    ).run()


# --------------------------------------------------------------------------- async retrievers


async def _call_async(
    resolved: ResolvedRetriever,
    query: str,
    k: int | None,
    id_key: str | None,
    timeout: float | None,
) -> RetrievalOutcome:
    start = time.perf_counter()
    scope: asyncio.Timeout | None = None
    try:
        if timeout is None:
            raw = resolved.call(query, k)
            if inspect.isawaitable(raw):
                raw = await raw
        else:
            async with asyncio.timeout(timeout) as scope:
                raw = resolved.call(query, k)
                if inspect.isawaitable(raw):
                    raw = await raw
    except TimeoutError as exc:
        if scope is not None and scope.expired():
            return _timed_out(timeout if timeout is not None else 0.0)
        return _failed(exc, _ms(start))
    except Exception as exc:
        return _failed(exc, _ms(start))
    return _finish(raw, _ms(start), id_key)


async def _run_async(
    resolved: ResolvedRetriever,
    queries: Sequence[str],
    *,
    k: int | None,
    concurrency: int,
    timeout: float | None,
    id_key: str | None,
    progress: Progress | None,
) -> list[RetrievalOutcome]:
    total = len(queries)
    results: list[RetrievalOutcome | None] = [None] * total
    indices = iter(range(total))  # shared by the workers: at most `concurrency` calls in flight
    done = 0

    async def worker() -> None:
        nonlocal done
        for index in indices:
            results[index] = await _call_async(resolved, queries[index], k, id_key, timeout)
            done += 1
            if progress is not None:
                progress(done, total)

    await asyncio.gather(*(worker() for _ in range(min(concurrency, total))))
    return [outcome for outcome in results if outcome is not None]


# --------------------------------------------------------------------------- public API


def _check_options(concurrency: int, timeout: float | None) -> None:
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be an integer >= 1, got {concurrency!r}")
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")


def run_retriever(
    retriever: object,
    queries: Sequence[str],
    *,
    k: int | None,
    concurrency: int,
    timeout: float | None,
    id_key: str | None = None,
    progress: Progress | None = None,
) -> list[RetrievalOutcome]:
    """Call the retriever once per query; outcomes come back in query order.

    ``k`` is passed to retrievers that accept ``k``/``top_k`` (never when ``None``); hits are
    not cut at ``k``. ``progress(done, total)`` is called from the thread running the cases.
    Works from sync code and from inside a running event loop.
    """
    resolved = resolve_retriever(retriever)
    _check_options(concurrency, timeout)
    queries = list(queries)
    if not queries:
        return []
    if not resolved.is_async:
        return _run_sync(
            resolved,
            queries,
            k=k,
            concurrency=concurrency,
            timeout=timeout,
            id_key=id_key,
            progress=progress,
        )
    return run_blocking(
        functools.partial(
            _run_async,
            resolved,
            queries,
            k=k,
            concurrency=concurrency,
            timeout=timeout,
            id_key=id_key,
            progress=progress,
        )
    )


async def arun_retriever(
    retriever: object,
    queries: Sequence[str],
    *,
    k: int | None,
    concurrency: int,
    timeout: float | None,
    id_key: str | None = None,
    progress: Progress | None = None,
) -> list[RetrievalOutcome]:
    """The awaitable form of :func:`run_retriever`: async retrievers run on the current loop
    (so clients bound to it keep working), sync ones on worker threads."""
    resolved = resolve_retriever(retriever)
    _check_options(concurrency, timeout)
    queries = list(queries)
    if not queries:
        return []
    if resolved.is_async:
        return await _run_async(
            resolved,
            queries,
            k=k,
            concurrency=concurrency,
            timeout=timeout,
            id_key=id_key,
            progress=progress,
        )
    return await asyncio.to_thread(
        _run_sync,
        resolved,
        queries,
        k=k,
        concurrency=concurrency,
        timeout=timeout,
        id_key=id_key,
        progress=progress,
    )
