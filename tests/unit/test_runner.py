"""The retriever runner: resolving retriever forms, concurrency, timeouts, errors, event loops."""

from __future__ import annotations

import asyncio
import functools
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from pytest_ragcheck.common.errors import RetrieverError
from pytest_ragcheck.run.hits import Hit
from pytest_ragcheck.run.runner import (
    ResolvedRetriever,
    RetrievalOutcome,
    RunOptions,
    arun_retriever,
    resolve_retriever,
    run_cases,
    run_retriever,
)

QUERIES = ["alpha", "beta", "gamma", "delta", "epsilon"]


def run(
    retriever: object, queries: list[str] | None = None, *, progress: Any = None, **options: Any
) -> list[RetrievalOutcome]:
    settings: dict[str, Any] = {"k": None, "concurrency": 4, "timeout": None}
    settings.update(options)
    return run_retriever(
        retriever,
        QUERIES if queries is None else queries,
        RunOptions(**settings),
        progress=progress,
    )


def ids(outcome: RetrievalOutcome) -> list[str]:
    return [hit.id for hit in outcome.hits]


def echo(query: str) -> list[str]:
    return [f"{query}-1", f"{query}-2"]


async def aecho(query: str) -> list[str]:
    await asyncio.sleep(0)
    return [f"{query}-1", f"{query}-2"]


# ----------------------------------------------------------------- framework look-alikes


@dataclass
class LCDocument:
    page_content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


class LangChainLike:
    """Both ``invoke`` and ``ainvoke``, like a LangChain ``BaseRetriever``."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def invoke(self, input: str, config: Any = None, **kwargs: Any) -> list[LCDocument]:
        self.calls.append("invoke")
        return [LCDocument(f"text of {input}", metadata={"source": f"{input}.md"})]

    async def ainvoke(self, input: str, config: Any = None, **kwargs: Any) -> list[LCDocument]:
        self.calls.append("ainvoke")
        return []


class AsyncOnlyLangChainLike:
    async def ainvoke(self, input: str) -> list[str]:
        await asyncio.sleep(0)
        return [f"a-{input}"]


class LINode:
    def __init__(self, node_id: str, text: str) -> None:
        self.node_id = node_id
        self.text = text

    def get_content(self) -> str:
        return self.text


@dataclass
class NodeWithScore:
    node: LINode
    score: float | None = None


class LlamaIndexLike:
    def retrieve(self, str_or_query_bundle: str) -> list[NodeWithScore]:
        return [NodeWithScore(LINode(f"n-{str_or_query_bundle}", "t"), 0.5)]

    async def aretrieve(self, str_or_query_bundle: str) -> list[NodeWithScore]:
        raise AssertionError("the sync variant must be preferred")


class AsyncOnlyLlamaIndexLike:
    async def aretrieve(self, str_or_query_bundle: str) -> list[NodeWithScore]:
        return [NodeWithScore(LINode(f"an-{str_or_query_bundle}", "t"), 1.0)]


@dataclass
class HSDocument:
    id: str
    content: str | None = None
    score: float | None = None


class HaystackLike:
    def __init__(self) -> None:
        self.seen_top_k: list[int | None] = []

    def run(self, query: str, filters: Any = None, top_k: int | None = None) -> dict[str, Any]:
        self.seen_top_k.append(top_k)
        return {"documents": [HSDocument(f"h-{query}", "c", 1.0)]}


class SearchLike:
    def search(self, query: str, k: int = 3) -> list[tuple[str, float]]:
        return [(f"{query}-{i}", 1.0 / (i + 1)) for i in range(k)]


class CallableObject:
    def __call__(self, query: str) -> list[str]:
        return [query.upper()]


class AsyncCallableObject:
    async def __call__(self, query: str) -> list[str]:
        await asyncio.sleep(0)
        return [query[::-1]]


# ----------------------------------------------------------------- resolving


def test_resolve_sync_function() -> None:
    resolved = resolve_retriever(echo)
    assert isinstance(resolved, ResolvedRetriever)
    call, is_async, description, takes_depth, hint = resolved
    assert not is_async
    assert not takes_depth
    assert hint is None
    assert description == "callable echo"
    assert call("q", None) == ["q-1", "q-2"]


def test_resolve_async_forms() -> None:
    async def with_k(query: str, k: int) -> list[str]:
        return []

    assert resolve_retriever(aecho).is_async
    assert resolve_retriever(AsyncCallableObject()).is_async
    assert resolve_retriever(functools.partial(with_k, k=3)).is_async
    assert resolve_retriever(AsyncOnlyLangChainLike()).is_async
    assert "partial(" in resolve_retriever(functools.partial(with_k)).description


def test_resolve_prefers_sync_method_when_both_exist() -> None:
    resolved = resolve_retriever(LangChainLike())
    assert not resolved.is_async
    assert resolved.description == "LangChainLike.invoke (LangChain-style, sync)"
    resolved = resolve_retriever(LlamaIndexLike())
    assert resolved.description == "LlamaIndexLike.retrieve (LlamaIndex-style, sync)"


def test_resolve_async_only_methods() -> None:
    assert resolve_retriever(AsyncOnlyLlamaIndexLike()).description == (
        "AsyncOnlyLlamaIndexLike.aretrieve (LlamaIndex-style, async)"
    )


def test_resolve_run_requires_a_query_parameter() -> None:
    class Server:
        def run(self) -> None:
            raise AssertionError("must not be called")

    with pytest.raises(RetrieverError, match="cannot use Server as a retriever"):
        resolve_retriever(Server())


@pytest.mark.parametrize(
    ("bad", "pattern"),
    [
        (None, r"the retriever is None \(did the fixture forget to return it\?\)"),
        (42, r"cannot use int as a retriever: pass a callable f\(query\) -> hits"),
        ("bm25", r"cannot use str as a retriever"),
        (CallableObject, r"the retriever is the class CallableObject, not an instance"),
    ],
)
def test_resolve_rejects_unusable(bad: object, pattern: str) -> None:
    with pytest.raises(RetrieverError, match=pattern) as info:
        resolve_retriever(bad)
    if bad is not CallableObject:
        assert ".invoke/.ainvoke (LangChain)" in str(info.value)
        assert ".run(query=...) (Haystack)" in str(info.value)


def test_run_retriever_raises_for_unusable_retriever() -> None:
    with pytest.raises(RetrieverError):
        run(object())


@pytest.mark.parametrize(("concurrency", "timeout"), [(0, None), (2.5, None), (1, 0), (1, -1.0)])
def test_bad_options(concurrency: Any, timeout: Any) -> None:
    with pytest.raises(ValueError, match=r"concurrency|timeout"):
        run(echo, concurrency=concurrency, timeout=timeout)


# ----------------------------------------------------------------- running every form


@pytest.mark.parametrize("concurrency", [1, 3])
def test_sync_function_order_and_latency(concurrency: int) -> None:
    outcomes = run(echo, concurrency=concurrency)
    assert [ids(o) for o in outcomes] == [[f"{q}-1", f"{q}-2"] for q in QUERIES]
    assert all(o.ok and o.latency_ms is not None and o.latency_ms >= 0 for o in outcomes)
    assert all(o.duplicates == 0 and o.traceback is None for o in outcomes)


@pytest.mark.parametrize("concurrency", [1, 3])
def test_async_function(concurrency: int) -> None:
    outcomes = run(aecho, concurrency=concurrency)
    assert [ids(o) for o in outcomes] == [[f"{q}-1", f"{q}-2"] for q in QUERIES]
    assert all(o.latency_ms is not None for o in outcomes)


def test_callable_objects() -> None:
    assert [ids(o) for o in run(CallableObject())] == [[q.upper()] for q in QUERIES]
    assert [ids(o) for o in run(AsyncCallableObject())] == [[q[::-1]] for q in QUERIES]


def test_langchain_like_uses_invoke_and_reads_documents() -> None:
    retriever = LangChainLike()
    outcomes = run(retriever, id_key="source")
    assert [ids(o) for o in outcomes] == [[f"{q}.md"] for q in QUERIES]
    assert outcomes[0].hits[0].text == "text of alpha"
    assert set(retriever.calls) == {"invoke"}


def test_async_only_langchain_like() -> None:
    assert [ids(o) for o in run(AsyncOnlyLangChainLike())] == [[f"a-{q}"] for q in QUERIES]


def test_llamaindex_like() -> None:
    outcomes = run(LlamaIndexLike())
    assert outcomes[0].hits == [Hit("n-alpha", "t", 0.5)]
    assert [ids(o) for o in run(AsyncOnlyLlamaIndexLike())] == [[f"an-{q}"] for q in QUERIES]


def test_haystack_like_gets_query_keyword_and_top_k() -> None:
    retriever = HaystackLike()
    outcomes = run(retriever, k=7)
    assert [ids(o) for o in outcomes] == [[f"h-{q}"] for q in QUERIES]
    assert retriever.seen_top_k == [7] * len(QUERIES)


def test_search_like_gets_k() -> None:
    outcomes = run(SearchLike(), ["q"], k=5)
    assert ids(outcomes[0]) == [f"q-{i}" for i in range(5)]


def test_k_and_top_k_keywords() -> None:
    seen: list[tuple[str, int]] = []

    def with_k(query: str, k: int = 100) -> list[str]:
        seen.append(("k", k))
        return []

    def with_top_k(query: str, *, top_k: int = 100) -> list[str]:
        seen.append(("top_k", top_k))
        return []

    async def async_with_k(query: str, k: int = 100) -> list[str]:
        seen.append(("async k", k))
        return []

    run(with_k, ["q"], k=3)
    run(with_top_k, ["q"], k=4)
    run(async_with_k, ["q"], k=5)
    assert seen == [("k", 3), ("top_k", 4), ("async k", 5)]


def test_k_not_passed_when_none_or_only_kwargs() -> None:
    seen: list[dict[str, Any]] = []

    def only_kwargs(query: str, **kwargs: Any) -> list[str]:
        seen.append(kwargs)
        return []

    def with_k(query: str, k: int = 100) -> list[str]:
        seen.append({"k": k})
        return []

    run(only_kwargs, ["q"], k=3)
    run(with_k, ["q"], k=None)
    assert seen == [{}, {"k": 100}]


def test_hits_not_cut_at_k_and_not_resorted() -> None:
    def many(query: str) -> list[tuple[str, float]]:
        return [(f"d{i}", float(i)) for i in range(20)]

    (outcome,) = run(many, ["q"], k=5)
    assert ids(outcome) == [f"d{i}" for i in range(20)]


def test_dedup_counts_per_case() -> None:
    def repeats(query: str) -> list[str]:
        return ["a", "b", "a", "a", "c", "b"] if query == "alpha" else ["x"]

    outcomes = run(repeats, ["alpha", "beta"])
    assert ids(outcomes[0]) == ["a", "b", "c"]
    assert outcomes[0].duplicates == 3
    assert outcomes[1].duplicates == 0


def test_sync_function_returning_a_coroutine_is_awaited() -> None:
    def wrapper(query: str) -> Any:
        return aecho(query)

    assert ids(run(wrapper, ["q"])[0]) == ["q-1", "q-2"]


# ----------------------------------------------------------------- errors


class BoomError(RuntimeError):
    pass


def _explode(query: str) -> None:
    raise BoomError(f"index offline\nfor {query}")


@pytest.mark.parametrize("concurrency", [1, 4])
def test_sync_exception_recorded_and_others_complete(concurrency: int) -> None:
    def flaky(query: str) -> list[str]:
        if query == "gamma":
            _explode(query)
        return [query]

    outcomes = run(flaky, concurrency=concurrency)
    failed = outcomes[2]
    assert not failed.ok
    assert failed.error is not None
    assert failed.error.endswith("BoomError: index offline for gamma")
    assert "\n" not in failed.error
    assert failed.hits == []
    assert failed.traceback is not None
    assert "in _explode" in failed.traceback
    assert "in flaky" in failed.traceback
    assert "pytest_ragcheck" not in failed.traceback  # starts at the user's frame
    assert [ids(o) for i, o in enumerate(outcomes) if i != 2] == [
        [q] for q in QUERIES if q != "gamma"
    ]


def test_async_exception_recorded_and_others_complete() -> None:
    async def flaky(query: str) -> list[str]:
        if query == "beta":
            raise ValueError("bad query")
        return [query]

    outcomes = run(flaky)
    assert outcomes[1].error == "ValueError: bad query"
    assert outcomes[1].traceback is not None
    assert "in flaky" in outcomes[1].traceback
    assert [o.ok for o in outcomes] == [True, False, True, True, True]


def test_user_timeout_error_is_not_reported_as_our_timeout() -> None:
    async def slow_backend(query: str) -> list[str]:
        raise TimeoutError("backend took too long")

    (outcome,) = run(slow_backend, ["q"], timeout=5.0)
    assert outcome.error == "TimeoutError: backend took too long"
    assert not outcome.timed_out


def test_exception_without_message() -> None:
    def bare(query: str) -> list[str]:
        raise KeyError

    assert run(bare, ["q"])[0].error == "KeyError"


def test_long_messages_are_shortened() -> None:
    def chatty(query: str) -> list[str]:
        raise RuntimeError("x" * 1000)

    error = run(chatty, ["q"])[0].error
    assert error is not None
    assert len(error) < 350
    assert error.endswith("...")


def test_bad_hit_shape_becomes_the_case_error() -> None:
    def odd(query: str) -> Any:
        return [query, 3.5] if query == "alpha" else None

    outcomes = run(odd, ["alpha", "beta", "gamma"])
    assert outcomes[0].error is not None
    assert outcomes[0].error.startswith("TypeError: hit #2: cannot read a hit from float 3.5")
    assert outcomes[1].error is not None
    assert "returned None" in outcomes[1].error
    assert outcomes[0].traceback is None
    assert outcomes[0].latency_ms is not None


def test_base_exception_in_a_worker_thread_is_recorded() -> None:
    def exits(query: str) -> list[str]:
        if query == "beta":
            raise SystemExit(3)
        return [query]

    outcomes = run(exits, concurrency=2)
    assert outcomes[1].error == "SystemExit: 3"
    assert [o.ok for o in outcomes] == [True, False, True, True, True]


# ----------------------------------------------------------------- timeouts


@pytest.mark.parametrize("concurrency", [1, 3])
def test_sync_timeout_recorded_and_others_complete(concurrency: int) -> None:
    release = threading.Event()

    def hangs_on_beta(query: str) -> list[str]:
        if query == "beta":
            release.wait(10)
        return [query]

    try:
        outcomes = run(hangs_on_beta, concurrency=concurrency, timeout=0.2)
    finally:
        release.set()
    assert outcomes[1].timed_out
    assert outcomes[1].error == "timed out after 0.2 s"
    assert outcomes[1].latency_ms == 200.0  # the timeout: a lower bound of its time
    assert outcomes[1].hits == []
    assert [ids(o) for i, o in enumerate(outcomes) if i != 1] == [
        [q] for q in QUERIES if q != "beta"
    ]


def test_sync_every_case_hangs_with_one_worker() -> None:
    release = threading.Event()

    def hangs(query: str) -> list[str]:
        release.wait(10)
        return [query]

    try:
        outcomes = run(hangs, ["a", "b", "c"], concurrency=1, timeout=0.1)
    finally:
        release.set()
    assert [o.error for o in outcomes] == ["timed out after 0.1 s"] * 3


def test_async_timeout_recorded_and_others_complete() -> None:
    async def sleeps_on_gamma(query: str) -> list[str]:
        if query == "gamma":
            await asyncio.sleep(10)
        return [query]

    outcomes = run(sleeps_on_gamma, timeout=0.2)
    assert outcomes[2].timed_out
    assert outcomes[2].error == "timed out after 0.2 s"
    assert sum(o.ok for o in outcomes) == 4


# ----------------------------------------------------------------- concurrency + progress


def test_sync_concurrency_is_bounded() -> None:
    lock = threading.Lock()
    active = 0
    peak = 0

    def tracked(query: str) -> list[str]:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        time.sleep(0.01)
        with lock:
            active -= 1
        return [query]

    outcomes = run(tracked, [str(i) for i in range(24)], concurrency=3)
    assert [ids(o) for o in outcomes] == [[str(i)] for i in range(24)]
    assert 1 <= peak <= 3


def test_async_concurrency_is_bounded() -> None:
    active = 0
    peak = 0

    async def tracked(query: str) -> list[str]:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.005)
        active -= 1
        return [query]

    run(tracked, [str(i) for i in range(20)], concurrency=4)
    assert peak == 4


def test_concurrency_one_without_timeout_runs_in_the_calling_thread() -> None:
    threads: set[int] = set()

    def record(query: str) -> list[str]:
        threads.add(threading.get_ident())
        return [query]

    run(record, concurrency=1)
    assert threads == {threading.get_ident()}


@pytest.mark.parametrize("retriever", [echo, aecho])
@pytest.mark.parametrize("concurrency", [1, 3])
def test_progress_reports_every_case(retriever: Any, concurrency: int) -> None:
    calls: list[tuple[int, int]] = []
    run(
        retriever, concurrency=concurrency, progress=lambda done, total: calls.append((done, total))
    )
    assert calls[-1] == (len(QUERIES), len(QUERIES))
    assert all(total == len(QUERIES) for _, total in calls)
    assert [done for done, _ in calls] == sorted({done for done, _ in calls})


def test_empty_query_list() -> None:
    assert run(echo, []) == []
    assert run(aecho, []) == []


# ----------------------------------------------------------------- event loops


def test_async_retriever_from_inside_a_running_loop() -> None:
    async def main() -> tuple[list[RetrievalOutcome], bool]:
        outer = asyncio.get_running_loop()
        loops: set[int] = set()

        async def retriever(query: str) -> list[str]:
            loops.add(id(asyncio.get_running_loop()))
            return [query]

        outcomes = run_retriever(retriever, QUERIES, RunOptions(k=None, concurrency=2, timeout=1.0))
        return outcomes, id(outer) in loops

    outcomes, used_outer_loop = asyncio.run(main())
    assert [ids(o) for o in outcomes] == [[q] for q in QUERIES]
    assert not used_outer_loop


def test_sync_retriever_returning_coroutine_inside_a_running_loop() -> None:
    def wrapper(query: str) -> Any:
        return aecho(query)

    async def main() -> list[RetrievalOutcome]:
        return run_retriever(wrapper, ["q"], RunOptions(k=None, concurrency=1, timeout=None))

    assert ids(asyncio.run(main())[0]) == ["q-1", "q-2"]


def test_sync_run_leaves_the_threads_event_loop_setting_alone() -> None:
    policy = asyncio.get_event_loop_policy()
    loop = policy.new_event_loop()
    policy.set_event_loop(loop)
    try:
        run(aecho)
        assert policy.get_event_loop() is loop
    finally:
        policy.set_event_loop(None)
        loop.close()


def test_arun_retriever_uses_the_current_loop_for_async() -> None:
    async def main() -> tuple[list[RetrievalOutcome], list[RetrievalOutcome], bool]:
        outer = asyncio.get_running_loop()
        same: list[bool] = []
        two_workers = RunOptions(k=None, concurrency=2, timeout=None)

        async def retriever(query: str) -> list[str]:
            same.append(asyncio.get_running_loop() is outer)
            return [query]

        async_outcomes = await arun_retriever(retriever, QUERIES, two_workers)
        sync_outcomes = await arun_retriever(echo, QUERIES, two_workers)
        return async_outcomes, sync_outcomes, all(same)

    async_outcomes, sync_outcomes, on_outer_loop = asyncio.run(main())
    assert [ids(o) for o in async_outcomes] == [[q] for q in QUERIES]
    assert [ids(o) for o in sync_outcomes] == [[f"{q}-1", f"{q}-2"] for q in QUERIES]
    assert on_outer_loop


# ----------------------------------------------------------------- lazy and unordered hits


def _lazy(query: str) -> Any:
    yield f"{query}-1"
    raise RuntimeError(f"cursor closed for {query}")


async def _alazy(query: str) -> Any:
    yield f"{query}-1"
    raise RuntimeError(f"cursor closed for {query}")


async def _returns_lazy(query: str) -> Any:
    return _lazy(query)


@pytest.mark.parametrize("retriever", [_lazy, _alazy, _returns_lazy])
@pytest.mark.parametrize(
    ("concurrency", "timeout"), [(1, None), (1, 5.0), (3, None), ("auto", None)]
)
def test_lazy_hits_that_raise_are_that_cases_error(
    retriever: Any, concurrency: Any, timeout: float | None
) -> None:
    outcomes = run(retriever, ["a", "b"], concurrency=concurrency, timeout=timeout)
    assert [o.error for o in outcomes] == [
        "RuntimeError: cursor closed for a",
        "RuntimeError: cursor closed for b",
    ]
    assert all(o.traceback and "cursor closed" in o.traceback for o in outcomes)


def test_lazy_hits_are_read_inside_the_call() -> None:
    def gen(query: str) -> Any:
        time.sleep(0.01)
        yield query

    (outcome,) = run(gen, ["q"])
    assert ids(outcome) == ["q"]
    assert outcome.latency_ms is not None
    assert outcome.latency_ms >= 10


@pytest.mark.parametrize("hits", [{"a", "b"}, frozenset({"a"})])
def test_unordered_hits_are_an_error(hits: Any) -> None:
    (outcome,) = run(lambda q: hits, ["q"])
    assert outcome.error is not None
    assert outcome.error.startswith("TypeError: the retriever returned a ")
    assert "which has no order; hits must be ordered" in outcome.error


def test_dict_views_keep_their_order() -> None:
    scores = {"b": 2.0, "a": 1.0}
    assert ids(run(lambda q: scores.keys(), ["q"])[0]) == ["b", "a"]
    assert ids(run(lambda q: scores.items(), ["q"])[0]) == ["b", "a"]


def test_a_timeout_beyond_what_a_thread_can_wait_is_refused() -> None:
    with pytest.raises(ValueError, match=r"timeout must be a positive number of seconds up to"):
        RunOptions(k=None, concurrency=1, timeout=1e10)
    with pytest.raises(ValueError, match=r"concurrency must be an integer >= 1 or 'auto'"):
        RunOptions(k=None, concurrency="fast", timeout=None)  # type: ignore[arg-type]


# ----------------------------------------------------------------- concurrency "auto"


@pytest.mark.parametrize("timeout", [None, 5.0])
@pytest.mark.parametrize("retriever", [echo, aecho])
def test_auto_keeps_the_order_and_reports_every_case(retriever: Any, timeout: Any) -> None:
    calls: list[tuple[int, int]] = []
    queries = [str(i) for i in range(8)]
    result = run_cases(
        retriever,
        queries,
        RunOptions(k=None, concurrency="auto", timeout=timeout),
        progress=lambda done, total: calls.append((done, total)),
    )
    assert [ids(o) for o in result.outcomes] == [[f"{q}-1", f"{q}-2"] for q in queries]
    assert result.concurrency.auto
    assert calls[-1] == (8, 8)
    assert [done for done, _ in calls] == sorted({done for done, _ in calls})


def test_auto_measures_cpu_time_of_the_first_calls() -> None:
    outcomes = run(echo, ["a", "b", "c", "d"], concurrency="auto")
    assert all(o.cpu_ms is not None and o.cpu_ms >= 0 for o in outcomes[:3])


def test_auto_with_one_serial_worker_and_no_timeout_stays_in_the_calling_thread() -> None:
    threads: set[int] = set()

    def record(query: str) -> list[str]:
        threads.add(threading.get_ident())
        return [query]

    result = run_cases(record, QUERIES, RunOptions(k=None, concurrency="auto", timeout=None))
    assert result.concurrency.workers == 1  # it does nothing but use the CPU
    assert threads == {threading.get_ident()}


# ----------------------------------------------------------------- containers and bound methods


class VectorStoreLike:
    """Shaped like a LangChain ``VectorStore``: its ``search`` needs a ``search_type``."""

    def __init__(self) -> None:
        self.seen: list[int] = []

    def search(self, query: str, search_type: str, **kwargs: Any) -> list[LCDocument]:
        raise AssertionError("a vector store is read with similarity_search_with_score")

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[LCDocument]:
        raise AssertionError("the scored variant is preferred")

    def similarity_search_with_score(self, *args: Any, **kwargs: Any) -> list[Any]:
        self.seen.append(kwargs["k"])
        return [(LCDocument("t", id=f"{args[0]}-{i}"), 1.0 - i / 10) for i in range(kwargs["k"])]

    async def asimilarity_search(self, query: str, k: int = 4) -> list[LCDocument]:
        return [LCDocument("t", id=f"a-{query}-{i}") for i in range(k)]

    def as_retriever(self, **kwargs: Any) -> Any:
        raise AssertionError("not needed")


def test_a_vector_store_is_searched_with_the_depth() -> None:
    store = VectorStoreLike()
    result = run_cases(store, ["q"], RunOptions(k=3, concurrency=1, timeout=None))
    assert ids(result.outcomes[0]) == ["q-0", "q-1", "q-2"]
    assert result.outcomes[0].hits[1].score == 0.9
    assert store.seen == [3]
    assert result.retriever.description == (
        "VectorStoreLike.similarity_search_with_score (LangChain-style vector store, sync)"
    )
    bound = run_cases(store.asimilarity_search, ["q"], RunOptions(k=2, concurrency=1, timeout=None))
    assert ids(bound.outcomes[0]) == ["a-q-0", "a-q-1"]
    assert bound.retriever.is_async


class VectorStoreRetrieverLike(LangChainLike):
    """Shaped like ``VectorStoreRetriever``: ``invoke(query, k=...)`` reaches the store."""

    def __init__(self) -> None:
        super().__init__()
        self.search_kwargs: dict[str, Any] = {}
        self.vectorstore = object()
        self.kwargs: list[dict[str, Any]] = []

    def invoke(self, input: str, config: Any = None, **kwargs: Any) -> list[LCDocument]:
        self.kwargs.append(kwargs)
        return []


class FixedKRetriever(LangChainLike):
    k = 4


class ChainLike:
    def __init__(self, *steps: Any) -> None:
        self.steps = list(steps)

    def invoke(self, input: str, config: Any = None, **kwargs: Any) -> list[LCDocument]:
        return []


def test_langchain_depth_per_call_or_a_hint() -> None:
    store_retriever = VectorStoreRetrieverLike()
    run(store_retriever, ["q"], k=12)
    assert store_retriever.kwargs == [{"k": 12}]
    assert resolve_retriever(ChainLike(store_retriever, object())).takes_depth
    fixed = resolve_retriever(FixedKRetriever())
    assert not fixed.takes_depth
    assert fixed.depth_hint == (
        "FixedKRetriever returns at most k=4 hits per call and takes no k per call: "
        "create it with k={depth}"
    )
    late = resolve_retriever(ChainLike(LangChainLike(), VectorStoreRetrieverLike()))
    assert late.depth_hint is not None
    assert "vectorstore.as_retriever(search_kwargs={'k': {depth}})" in late.depth_hint


class IndexLike:
    """Shaped like a LlamaIndex index: it builds retrievers."""

    def __init__(self) -> None:
        self.built: list[dict[str, Any]] = []

    def as_retriever(self, **kwargs: Any) -> Any:
        self.built.append(kwargs)
        retriever = LlamaIndexLike()
        retriever.similarity_top_k = kwargs.get("similarity_top_k", 2)  # type: ignore[attr-defined]
        return retriever

    def as_query_engine(self) -> None:
        raise AssertionError("not needed")


def test_an_index_builds_its_retriever_with_the_depth_once() -> None:
    index = IndexLike()
    result = run_cases(index, QUERIES, RunOptions(k=7, concurrency=2, timeout=None))
    assert index.built == [{"similarity_top_k": 7}]
    assert [ids(o) for o in result.outcomes] == [[f"n-{q}"] for q in QUERIES]
    assert result.retriever.takes_depth
    own = resolve_retriever(IndexLike())
    assert own.depth_hint == (
        "LlamaIndexLike returns similarity_top_k=2 hits per call: create it with "
        "index.as_retriever(similarity_top_k={depth})"
    )


class PipelineLike:
    """Shaped like a Haystack ``Pipeline``: an embedder feeding a retriever."""

    def __init__(self, outputs: dict[str, Any] | None = None) -> None:
        self.data: list[dict[str, Any]] = []
        self._outputs = outputs or {"retriever": {"documents": {}}}

    def run(self, data: dict[str, Any], include_outputs_from: Any = None) -> dict[str, Any]:
        self.data.append(data)
        query = data["embedder"]["text"]
        return {"retriever": {"documents": [HSDocument(f"p-{query}")]}}

    def inputs(self) -> dict[str, Any]:
        return {
            "embedder": {"text": {"is_mandatory": True}},
            "retriever": {"filters": {"is_mandatory": False}, "top_k": {"is_mandatory": False}},
        }

    def outputs(self) -> dict[str, Any]:
        return self._outputs

    def get_component(self, name: str) -> Any:
        raise AssertionError("not needed")


def test_a_pipeline_gets_the_query_and_top_k() -> None:
    pipe = PipelineLike()
    (outcome,) = run(pipe, ["q"], k=5)
    assert ids(outcome) == ["p-q"]
    assert pipe.data == [{"embedder": {"text": "q"}, "retriever": {"top_k": 5}}]


def test_an_ambiguous_pipeline_shows_the_wrapper() -> None:
    pipe = PipelineLike({"a": {"documents": {}}, "b": {"documents": {}}})
    with pytest.raises(RetrieverError) as info:
        resolve_retriever(pipe, depth=10)
    assert str(info.value) == (
        "cannot tell how to call this Haystack Pipeline: it needs exactly one open 'documents' "
        "output, found a, b. Pass a function that runs it and returns the documents, e.g. "
        'ragcheck(lambda query: pipe.run({"embedder": {"text": query}, "retriever": {"top_k": 10}})'
        '["a"]["documents"])'
    )


def test_bound_async_methods_keep_the_framework_handling() -> None:
    retriever = LangChainLike()
    resolved = resolve_retriever(retriever.ainvoke)
    assert resolved.is_async
    assert resolved.description == "LangChainLike.ainvoke (LangChain-style, async)"
    assert resolve_retriever(HaystackLike().run).takes_depth
