"""LangChain, LlamaIndex and Haystack objects, recognised by their shape (never imported).

Two questions per object: which method answers a query, and how the depth (the largest cutoff
the metrics need) reaches it. Some take it per call (a LangChain vector-store retriever's
``invoke(query, k=...)``, a Haystack component's ``top_k``); some only at construction (a
LlamaIndex retriever's ``similarity_top_k``, a LangChain retriever's ``k`` field): for those,
a hint says what to change. Containers that are not retrievers themselves (a LangChain vector
store, a LlamaIndex index, a Haystack ``Pipeline``) are turned into a method that is one.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pytest_ragcheck.common.errors import RetrieverError

__all__ = [
    "K_PARAMS",
    "Target",
    "container_target",
    "depth_support",
    "explicit_k",
    "params_of",
    "readable",
]

#: Parameter names that receive the depth when a callable declares them.
K_PARAMS = ("k", "top_k")
#: Haystack input sockets that take the query text.
_QUERY_SOCKETS = ("query", "text")


@dataclass(frozen=True, slots=True)
class Target:
    """The method that answers a query, and how the depth reaches it."""

    fn: Callable[..., Any]
    #: ``Class.method``, as the summary shows it.
    where: str
    #: ``LangChain-style vector store``...
    label: str
    #: Keyword that takes the depth on every call (``None``: it cannot be passed per call).
    k_param: str | None = None
    #: Keyword that takes the query (``None``: the first positional argument).
    query_keyword: str | None = None
    #: The depth was given at construction (a LlamaIndex index's retriever).
    depth_built_in: bool = False
    #: What to change when the depth is fixed at construction; ``{depth}`` is the depth wanted.
    hint: str | None = None


def readable(qualname: str) -> str:
    """``test_x.<locals>.Retriever`` -> ``Retriever``: the part a user recognises."""
    return qualname.rsplit("<locals>.", 1)[-1]


def _cls(obj: object) -> str:
    return readable(type(obj).__qualname__)


def _method(obj: object, name: str) -> Callable[..., Any] | None:
    method = getattr(obj, name, None)
    return method if callable(method) else None


def params_of(fn: object) -> dict[str, inspect.Parameter]:
    """The parameters of ``fn`` by name (none for builtins without a signature)."""
    if not callable(fn):
        return {}
    try:
        return dict(inspect.signature(fn).parameters)
    except (TypeError, ValueError):  # builtins and C callables without a signature
        return {}


def explicit_k(params: Mapping[str, inspect.Parameter]) -> str | None:
    """``k`` or ``top_k`` when explicitly accepted by keyword (``**kwargs`` does not count)."""
    for name in K_PARAMS:
        param = params.get(name)
        if param is not None and param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            return name
    return None


def _int_field(obj: object, *names: str) -> tuple[str, int] | None:
    for name in names:
        value = getattr(obj, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return name, value
    return None


# --------------------------------------------------------------------------- depth per method


def _is_vector_store_retriever(obj: object) -> bool:
    """LangChain's ``VectorStoreRetriever``: ``invoke(query, k=...)`` reaches the store."""
    return isinstance(getattr(obj, "search_kwargs", None), Mapping) and (
        getattr(obj, "vectorstore", None) is not None
    )


def _langchain_depth(obj: object) -> tuple[str | None, str | None]:
    if _is_vector_store_retriever(obj):
        return "k", None
    # A custom BaseRetriever whose _get_relevant_documents declares k: invoke forwards it.
    inner = getattr(type(obj), "_get_relevant_documents", None)
    name = explicit_k(params_of(inner)) if inner is not None else None
    if name is not None and getattr(obj, "_expects_other_args", True):
        return name, None
    steps = getattr(obj, "steps", None)
    if isinstance(steps, list) and steps:  # a Runnable chain: invoke's kwargs go to step one
        first_k, _ = _langchain_depth(steps[0])
        if first_k is not None:
            return first_k, None
        for step in steps:
            if _is_vector_store_retriever(step):
                return None, (
                    f"the chain's {_cls(step)} returns search_kwargs['k'] hits (default 4) and "
                    "is not its first step, so k cannot be passed per call: create it with "
                    "vectorstore.as_retriever(search_kwargs={'k': {depth}})"
                )
            _, hint = _langchain_depth(step)
            if hint is not None:
                return None, f"in the chain, {hint}"
        return None, None
    found = _int_field(obj, "k", "top_k")
    if found is not None:
        field, value = found
        return None, (
            f"{_cls(obj)} returns at most {field}={value} hits per call and takes no {field} "
            f"per call: create it with {field}={{depth}}"
        )
    return None, None


def _llamaindex_depth(obj: object) -> str | None:
    found = _int_field(obj, "similarity_top_k", "top_k")
    if found is None:
        return None
    field, value = found
    how = (
        "index.as_retriever(similarity_top_k={depth})"
        if field == "similarity_top_k"
        else f"{field}={{depth}}"
    )
    return f"{_cls(obj)} returns {field}={value} hits per call: create it with {how}"


def depth_support(
    obj: object, method: str, fn: Callable[..., Any]
) -> tuple[str | None, str | None]:
    """How the depth reaches ``obj.method``: (keyword taking it per call, hint otherwise)."""
    name = explicit_k(params_of(fn))
    if name is not None:
        return name, None
    if method in ("invoke", "ainvoke"):
        return _langchain_depth(obj)
    if method in ("retrieve", "aretrieve"):
        return None, _llamaindex_depth(obj)
    return None, None


# --------------------------------------------------------------------------- containers


_STORE_METHODS = ("similarity_search_with_score", "similarity_search")


def _vector_store(obj: object, method: str | None) -> Target | None:
    """A LangChain ``VectorStore``: ``similarity_search_with_score(query, k=...)``."""
    if _method(obj, "similarity_search") is None or _method(obj, "as_retriever") is None:
        return None
    names: tuple[str, ...] = _STORE_METHODS
    if method is not None and method.removeprefix("a") in _STORE_METHODS:
        names = (method,)  # the user's choice, e.g. store.asimilarity_search
    for name in names:
        fn = _method(obj, name)
        if fn is not None:
            return Target(fn, f"{_cls(obj)}.{name}", "LangChain-style vector store", k_param="k")
    return None  # pragma: no cover - similarity_search exists


def _llamaindex_index(obj: object, depth: int | None) -> Target | None:
    """A LlamaIndex index: ``as_retriever(similarity_top_k=depth)``, built once."""
    build = _method(obj, "as_retriever")
    if build is None or _method(obj, "as_query_engine") is None or hasattr(obj, "retrieve"):
        return None
    call = f"as_retriever(similarity_top_k={depth})" if depth is not None else "as_retriever()"
    try:
        retriever = build(similarity_top_k=depth) if depth is not None else build()
    except Exception as exc:
        raise RetrieverError(
            f"{_cls(obj)}.{call} failed ({type(exc).__name__}: {exc}); pass a retriever "
            "instead: ragcheck(index.as_retriever(...))"
        ) from None
    fn = _method(retriever, "retrieve")
    if fn is None:
        raise RetrieverError(
            f"{_cls(obj)}.{call} returned {_cls(retriever)}, which has no .retrieve method"
        )
    return Target(
        fn,
        f"{_cls(obj)}.{call}.retrieve",
        "LlamaIndex-style index",
        depth_built_in=depth is not None,
        hint=None if depth is not None else _llamaindex_depth(retriever),
    )


def _wrapper(data: Mapping[str, Mapping[str, str]], producer: str, *, include: bool) -> str:
    """The one-line function a user can pass instead of the pipeline (``include``: the
    producer's output is connected, so ``run`` returns it only when asked to)."""
    parts = ", ".join(
        f'"{component}": {{' + ", ".join(f'"{k}": {v}' for k, v in sockets.items()) + "}"
        for component, sockets in data.items()
    )
    extra = f', include_outputs_from={{"{producer}"}}' if include else ""
    return f'ragcheck(lambda query: pipe.run({{{parts}}}{extra})["{producer}"]["documents"])'


def _connected_producer(obj: object) -> str | None:
    """The last component with a ``documents`` output, connected ones included (a RAG
    pipeline feeds its retriever's documents to a prompt builder)."""
    outputs = _method(obj, "outputs")
    if outputs is None or "include_components_with_connected_outputs" not in params_of(outputs):
        return None
    try:
        every = outputs(include_components_with_connected_outputs=True)
    except Exception:
        return None
    found = [name for name, sockets in every.items() if "documents" in sockets]
    return found[-1] if found else None


def _haystack_pipeline(obj: object, depth: int | None, prefer_async: bool) -> Target | None:
    """A Haystack ``Pipeline``: the query goes to its open text inputs, ``top_k`` to every
    open ``top_k`` input, and the documents come from its one open ``documents`` output."""
    run = _method(obj, "run")
    if run is None or "data" not in params_of(run):
        return None
    if _method(obj, "inputs") is None or _method(obj, "outputs") is None:
        return None
    inputs: Mapping[str, Mapping[str, Any]] = obj.inputs()  # type: ignore[attr-defined]
    outputs: Mapping[str, Mapping[str, Any]] = obj.outputs()  # type: ignore[attr-defined]
    producers = [name for name, sockets in outputs.items() if "documents" in sockets]
    query_sockets = [
        (component, socket)
        for component, sockets in inputs.items()
        for socket in sockets
        if socket in _QUERY_SOCKETS
    ]
    missing = [
        f"{component}.{socket}"
        for component, sockets in inputs.items()
        for socket, info in sockets.items()
        if socket not in _QUERY_SOCKETS and isinstance(info, Mapping) and info.get("is_mandatory")
    ]
    top_k = [component for component, sockets in inputs.items() if "top_k" in sockets]
    problem = ""
    if len(producers) != 1:
        found = ", ".join(producers) or "none"
        problem = f"it needs exactly one open 'documents' output, found {found}"
    elif not query_sockets:
        problem = "no open 'query' or 'text' input takes the query"
    elif missing:
        problem = f"inputs other than the query need values: {', '.join(missing)}"
    if problem:
        # the example fills what the call would (every query input, every top_k): Haystack
        # refuses a run that leaves a mandatory query input empty
        first = next(iter(inputs), "retriever")
        example: dict[str, dict[str, str]] = {}
        for component, socket in query_sockets or [(first, "query")]:
            example.setdefault(component, {})[socket] = "query"
        for component in top_k if depth is not None else ():
            example.setdefault(component, {})["top_k"] = str(depth)
        connected = None if producers else _connected_producer(obj)
        producer = producers[0] if producers else connected or next(reversed(list(outputs)), first)
        answers = any(s in ("answers", "replies") for sockets in outputs.values() for s in sockets)
        raise RetrieverError(
            f"cannot tell how to call this Haystack Pipeline: {problem}. Pass a function that "
            f"runs it and returns the documents, e.g. "
            f"{_wrapper(example, producer, include=connected is not None)}"
            + (
                " (to gate its answers too, return {'answer': <the generated text>, "
                "'documents': <those documents>})"
                if answers
                else ""
            )
        )
    producer = producers[0]

    def data(query: str, top: int | None) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for component, socket in query_sockets:
            out.setdefault(component, {})[socket] = query
        if top is not None:
            for component in top_k:
                out.setdefault(component, {})["top_k"] = top
        return out

    run_async = _method(obj, "run_async")
    if prefer_async and run_async is not None:

        async def call_async(query: str, top_k: int | None = None) -> Any:
            return (await run_async(data(query, top_k)))[producer]["documents"]

        fn: Callable[..., Any] = call_async
        where = f"{_cls(obj)}.run_async"
    else:

        def call(query: str, top_k: int | None = None) -> Any:
            return run(data(query, top_k))[producer]["documents"]

        fn, where = call, f"{_cls(obj)}.run"
    label = f"Haystack-style pipeline, documents from {producer!r}"
    return Target(fn, where, label, k_param="top_k" if top_k else None)


def container_target(obj: object, depth: int | None, *, method: str | None = None) -> Target | None:
    """A vector store, index or pipeline as a retriever method, or ``None`` for other objects.

    ``method`` is set when the user passed a bound method (``store.asimilarity_search``,
    ``pipe.run_async``): its sync or async variant is kept.
    """
    return (
        _vector_store(obj, method)
        or _llamaindex_index(obj, depth)
        or _haystack_pipeline(obj, depth, prefer_async=method == "run_async")
    )
