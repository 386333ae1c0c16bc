"""What the user passed as a retriever, turned into one call: ``call(query, depth) -> hits``.

A retriever may be a plain or async callable, a framework retriever (LangChain, LlamaIndex,
Haystack, anything with ``.search``) or a container that holds one (a LangChain vector store,
a LlamaIndex index, a Haystack ``Pipeline``; see :mod:`pytest_ragcheck.run.frameworks`). Resolving
it once, up front, means a retriever that cannot be used fails with one clear message instead
of once per case, and the runner never has to know which framework it is talking to.
"""

from __future__ import annotations

import functools
import inspect
import traceback
from collections.abc import Callable
from typing import Any, NamedTuple

from pytest_ragcheck.common.errors import RetrieverError, exception_line
from pytest_ragcheck.run.frameworks import (
    Target,
    container_target,
    depth_support,
    explicit_k,
    params_of,
    readable,
)

__all__ = [
    "ACCEPTED_BATCH_RETRIEVERS",
    "ACCEPTED_RETRIEVERS",
    "ResolvedRetriever",
    "query_call",
    "resolve_batch_retriever",
    "resolve_retriever",
]

ACCEPTED_RETRIEVERS = (
    "a callable f(query) -> hits (sync or async def), or an object with .invoke/.ainvoke "
    "(LangChain), .retrieve/.aretrieve (LlamaIndex), .search(query) or .run(query=...) "
    "(Haystack), or a LangChain vector store, a LlamaIndex index or a Haystack Pipeline"
)
#: (sync method, async method, label), tried in this order. The sync variant is preferred when
#: both exist: frameworks implement the async one for sync backends by running the sync one in
#: an executor, which is what the thread pool does anyway, and sync clients are not tied to an
#: event loop. Pass the bound async method (``retriever.ainvoke``) to use it instead.
_METHODS: tuple[tuple[str, str, str], ...] = (
    ("invoke", "ainvoke", "LangChain-style"),
    ("retrieve", "aretrieve", "LlamaIndex-style"),
    ("search", "asearch", ""),
    ("run", "run_async", "Haystack-style"),
)
_METHOD_NAMES = frozenset(name for sync, async_, _ in _METHODS for name in (sync, async_))
#: Bound methods of containers that answer a query (a vector store's, a pipeline's).
_CONTAINER_METHODS = frozenset(
    {"similarity_search", "similarity_search_with_score", "run", "run_async"}
    | {"asimilarity_search", "asimilarity_search_with_score"}
)


class _Invoker:
    """Calls the resolved function with the query (positional or by keyword) and the depth."""

    __slots__ = ("fn", "k_param", "query_keyword")

    def __init__(self, fn: Callable[..., Any], k_param: str | None, query_keyword: str | None):
        self.fn = fn
        self.k_param = k_param
        self.query_keyword = query_keyword

    def __call__(self, query: str, k: int | None) -> Any:
        if self.k_param is None and self.query_keyword is None:
            return self.fn(query)  # the common case: no keyword dict to build
        kwargs: dict[str, Any] = {}
        if k is not None and self.k_param is not None:
            kwargs[self.k_param] = k
        if self.query_keyword is not None:
            kwargs[self.query_keyword] = query
            return self.fn(**kwargs)
        return self.fn(query, **kwargs)


def query_call(call: Callable[[Any, int | None], Any], k: int | None) -> Callable[[Any], Any]:
    """``call(query, k)`` as a function of the query alone: the user's function itself when
    the call passes it the query only (no layer per call between the two)."""
    if type(call) is _Invoker and call.k_param is None and call.query_keyword is None:
        return call.fn
    return lambda query: call(query, k)


class ResolvedRetriever(NamedTuple):
    """``call(query, depth)`` returns hits (or an awaitable of hits when ``is_async``); for a
    batch retriever, ``call(queries, depth)`` returns one hit list per query."""

    call: Callable[[Any, int | None], Any]
    is_async: bool
    description: str
    #: The depth reaches the retriever (passed per call, or given at construction).
    takes_depth: bool = False
    #: What to change when the retriever fixes its depth at construction (``{depth}``: the
    #: depth wanted); ``None`` when there is nothing specific to say.
    depth_hint: str | None = None


def _is_async(fn: object) -> bool:
    while isinstance(fn, functools.partial):
        fn = fn.func
    if inspect.iscoroutinefunction(fn):
        return True
    if inspect.isfunction(fn) or inspect.ismethod(fn) or inspect.isbuiltin(fn):
        return False
    return inspect.iscoroutinefunction(getattr(fn, "__call__", None))  # noqa: B004


def _name(fn: object) -> str:
    if isinstance(fn, functools.partial):
        return f"partial({_name(fn.func)})"
    return readable(str(getattr(fn, "__qualname__", None) or type(fn).__qualname__))


def _resolved(target: Target) -> ResolvedRetriever:
    is_async = _is_async(target.fn)
    label = f"{target.label}, " if target.label else ""
    return ResolvedRetriever(
        _Invoker(target.fn, target.k_param, target.query_keyword),
        is_async,
        f"{target.where} ({label}{'async' if is_async else 'sync'})",
        takes_depth=target.k_param is not None or target.depth_built_in,
        depth_hint=target.hint,
    )


def _framework_method(obj: object, only: str | None = None) -> Target | None:
    """The first usable method of :data:`_METHODS` on ``obj`` (or the method ``only``)."""
    for sync_name, async_name, label in _METHODS:
        for name in (sync_name, async_name):
            if only is not None and name != only:
                continue
            method = getattr(obj, name, None)
            if method is None or not callable(method):
                continue
            query_keyword = None
            if sync_name == "run":
                if "query" not in params_of(method):
                    continue  # some other kind of run(); not a Haystack component
                query_keyword = "query"
            k_param, hint = depth_support(obj, name, method)
            return Target(
                method,
                f"{readable(type(obj).__qualname__)}.{name}",
                label,
                k_param=k_param,
                query_keyword=query_keyword,
                hint=hint,
            )
    return None


def _bound_framework_method(obj: object, depth: int | None) -> Target | None:
    """``retriever.ainvoke``, ``pipe.run_async``...: the framework handling of that method."""
    owner = getattr(obj, "__self__", None)
    name = getattr(obj, "__name__", "")
    if owner is None or isinstance(owner, type) or not isinstance(name, str):
        return None
    if name in _CONTAINER_METHODS:
        container = container_target(owner, depth, method=name)
        if container is not None:
            return container
    return _framework_method(owner, only=name) if name in _METHOD_NAMES else None


def _probe_error(obj: object, exc: Exception, what: str) -> RetrieverError:
    """The user's object raised while it was inspected (a property of a client that is not
    connected, a ``__getattr__`` that raises): say so, and where, in one message."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    return RetrieverError(
        f"cannot use {readable(type(obj).__qualname__)} {what}: reading its attributes raised "
        f"{exception_line(exc)}{where}"
    )


def _probed(
    resolve: Callable[[object, int | None], ResolvedRetriever],
    obj: object,
    depth: int | None,
    what: str,
) -> ResolvedRetriever:
    """``resolve(obj, depth)``, the user's object raising while inspected made one message."""
    try:
        return resolve(obj, depth)
    except RetrieverError:
        raise
    except Exception as exc:
        raise _probe_error(obj, exc, what) from exc


def resolve_retriever(obj: object, *, depth: int | None = None) -> ResolvedRetriever:
    """Work out how to call ``obj``; raises :class:`RetrieverError` when it is not usable.

    Objects with a framework method (``invoke``, ``retrieve``, ``search``, ``run``) use it in
    preference to ``__call__``; the sync method wins over the async one when both exist. A
    ``k``/``top_k`` parameter of the chosen callable receives the depth. ``depth`` is needed
    here only for containers that build their retriever (a LlamaIndex index).
    """
    return _probed(_resolve, obj, depth, "as a retriever")


def _resolve(obj: object, depth: int | None) -> ResolvedRetriever:
    if isinstance(obj, ResolvedRetriever):
        return obj
    if obj is None:
        raise RetrieverError(
            f"the retriever is None (did the fixture forget to return it?); pass {ACCEPTED_RETRIEVERS}"
        )
    if isinstance(obj, type):
        raise RetrieverError(
            f"the retriever is the class {readable(obj.__qualname__)}, not an instance; create one first"
        )
    if inspect.ismethod(obj):
        target = _bound_framework_method(obj, depth)
        if target is not None:
            return _resolved(target)
    elif not (isinstance(obj, functools.partial) or inspect.isroutine(obj)):
        target = container_target(obj, depth) or _framework_method(obj)
        if target is not None:
            return _resolved(target)
    if callable(obj):
        return _plain_callable(obj, "callable")
    raise RetrieverError(
        f"cannot use {readable(type(obj).__qualname__)} as a retriever: pass {ACCEPTED_RETRIEVERS}"
    )


def _plain_callable(obj: Callable[..., Any], kind: str) -> ResolvedRetriever:
    """A function (or callable object) called with the query, and ``k`` if it takes one."""
    is_async = _is_async(obj)
    k_param = explicit_k(params_of(obj))
    label = f"{'async ' if is_async else ''}{kind} {_name(obj)}"
    return ResolvedRetriever(_Invoker(obj, k_param, None), is_async, label, k_param is not None)


ACCEPTED_BATCH_RETRIEVERS = (
    "a callable f(queries) -> one hit list per query (sync or async def), or an object with "
    ".batch/.abatch (a LangChain retriever)"
)


def _batch_method(owner: object, name: str, method: Callable[..., Any]) -> ResolvedRetriever:
    """``owner.batch``/``owner.abatch``: a ``k``/``top_k`` parameter of its own takes the
    depth, else it reaches it as it reaches ``owner.invoke``."""
    k_param = explicit_k(params_of(method))
    invoke = getattr(owner, "ainvoke" if name == "abatch" else "invoke", None)
    if k_param is None and callable(invoke):
        k_param, _ = depth_support(owner, "invoke", invoke)
    return ResolvedRetriever(
        _Invoker(method, k_param, None),
        _is_async(method),
        f"{readable(type(owner).__qualname__)}.{name} (batches)",
        takes_depth=k_param is not None,
    )


def resolve_batch_retriever(obj: object, *, depth: int | None = None) -> ResolvedRetriever:
    """How to call ``obj`` with a list of queries (``batch_size=``): ``call(queries, depth)``.

    An object's ``batch`` (or ``abatch``) method wins, as LangChain runnables have it; the
    depth reaches it the way it reaches their ``invoke``, also when the bound method itself
    is passed (``retriever.abatch``, to use the async one). Anything else callable is called
    with the list itself.
    """
    return _probed(_resolve_batch, obj, depth, "as a batch retriever")


def _resolve_batch(obj: object, depth: int | None) -> ResolvedRetriever:
    if obj is None or isinstance(obj, type):
        resolve_retriever(obj)  # the same message as without batches
    owner = getattr(obj, "__self__", None)
    name = getattr(obj, "__name__", "")
    if inspect.ismethod(obj) and name in ("batch", "abatch") and not isinstance(owner, type):
        return _batch_method(owner, name, obj)
    is_routine = isinstance(obj, functools.partial) or inspect.isroutine(obj)
    for name in ("batch", "abatch"):
        method = None if is_routine else getattr(obj, name, None)
        if method is not None and callable(method):
            return _batch_method(obj, name, method)
    if callable(obj):
        return _plain_callable(obj, "batch callable")
    raise RetrieverError(
        f"batch_size needs {ACCEPTED_BATCH_RETRIEVERS}; cannot use "
        f"{readable(type(obj).__qualname__)}"
    )
