"""What the user passed as a retriever, turned into one call: ``call(query, k) -> hits``.

A retriever may be a plain or async callable or a framework object (LangChain, LlamaIndex,
Haystack, anything with ``.search``). Resolving it once, up front, means a retriever that cannot
be used fails with one clear message instead of once per case, and the runner never has to
know which framework it is talking to.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, NamedTuple

from pytest_ragcheck.errors import RetrieverError

__all__ = ["ACCEPTED_RETRIEVERS", "ResolvedRetriever", "resolve_retriever"]

ACCEPTED_RETRIEVERS = (
    "a callable f(query) -> hits (sync or async def), or an object with .invoke/.ainvoke "
    "(LangChain), .retrieve/.aretrieve (LlamaIndex), .search(query) or .run(query=...) (Haystack)"
)
#: (sync method, async method, label), tried in this order. The sync variant is preferred when
#: both exist: frameworks implement the async one for sync backends by running the sync one in
#: an executor, which is what the thread pool does anyway, and sync clients are not tied to an
#: event loop.
_METHODS: tuple[tuple[str, str, str], ...] = (
    ("invoke", "ainvoke", "LangChain-style"),
    ("retrieve", "aretrieve", "LlamaIndex-style"),
    ("search", "asearch", ""),
    ("run", "run_async", "Haystack-style"),
)
_K_PARAMS = ("k", "top_k")


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


def _framework_method(obj: object) -> ResolvedRetriever | None:
    """The first usable method of :data:`_METHODS` on ``obj``, or ``None``."""
    for sync_name, async_name, label in _METHODS:
        for name in (sync_name, async_name):
            method = getattr(obj, name, None)
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
    return None


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
    if not (isinstance(obj, functools.partial) or inspect.isroutine(obj)):
        resolved = _framework_method(obj)
        if resolved is not None:
            return resolved
    if callable(obj):
        is_async = _is_async(obj)
        kind = "async callable" if is_async else "callable"
        return ResolvedRetriever(
            _Invoker(obj, _k_param(_params(obj)), None), is_async, f"{kind} {_name(obj)}"
        )
    raise RetrieverError(
        f"cannot use {_readable(type(obj).__qualname__)} as a retriever: pass {ACCEPTED_RETRIEVERS}"
    )
