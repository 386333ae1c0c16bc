"""Real LangChain objects over the Cranfield copy: ids from metadata, order, k, async, chains.

An ``InMemoryVectorStore`` with a deterministic embedding, as teams build one: documents carry
their id in ``metadata["doc_id"]`` and the store gives each a random UUID.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from bm25 import BM25
from corpus import cases, collection, hit_ids, langchain_embeddings

from pytest_ragcheck import evaluate
from pytest_ragcheck.evaluation.keywords import build_settings
from pytest_ragcheck.gate.verdict import check_floors

if TYPE_CHECKING:
    from langchain_core.vectorstores import InMemoryVectorStore

# LangChain is imported by the tests that use it, not when every pytest-xdist worker collects.
CASES = cases(12)


@pytest.fixture(scope="module")
def custom() -> tuple[type[Any], type[Any]]:
    """Two custom retrievers as teams write them: ``CranfieldBM25`` has its depth as a field,
    set at construction; ``CranfieldBM25PerCall`` takes ``k`` per call (``invoke(query, k=...)``
    reaches it)."""
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever

    class CranfieldBM25(BaseRetriever):
        index: Any
        k: int = 4

        def _get_relevant_documents(
            self, query: str, *, run_manager: CallbackManagerForRetrieverRun
        ) -> list[Document]:
            return [
                Document(page_content="", metadata={"doc_id": doc})
                for doc in self.index.search(query, self.k)
            ]

    class CranfieldBM25PerCall(BaseRetriever):
        index: Any

        def _get_relevant_documents(
            self, query: str, *, run_manager: CallbackManagerForRetrieverRun, k: int = 4
        ) -> list[Document]:
            return [Document(page_content="", id=doc) for doc in self.index.search(query, k)]

    return CranfieldBM25, CranfieldBM25PerCall


@pytest.fixture(scope="module")
def store() -> InMemoryVectorStore:
    from langchain_core.documents import Document
    from langchain_core.vectorstores import InMemoryVectorStore

    store = InMemoryVectorStore(embedding=langchain_embeddings())
    store.add_documents(
        [
            Document(page_content=text, metadata={"doc_id": doc_id})
            for doc_id, text in collection().corpus.items()
        ]
    )
    return store


@pytest.fixture(scope="module")
def bm25() -> BM25:
    return BM25(collection().corpus)


def expected(store: InMemoryVectorStore, k: int) -> dict[str, list[str]]:
    """The store's own top k per case, read directly: what the plugin must read too."""
    return {
        case["id"]: [d.metadata["doc_id"] for d in store.similarity_search(case["query"], k=k)]
        for case in CASES
    }


def test_ids_from_metadata_in_the_retrievers_order_and_k_per_call(store):
    retriever = store.as_retriever()  # 4 hits unless k is passed per call
    result = evaluate(retriever, CASES, k=10, id_key="doc_id", concurrency=1)
    ranked = expected(store, 10)
    assert {case["id"]: hit_ids(result, case["id"]) for case in CASES} == ranked
    # The same ranked ids given as plain lists score the same.
    plain = evaluate(lambda query: ranked[_id(query)], CASES, k=10)
    assert result.metrics.keys() == plain.metrics.keys()
    for name in result.metric_names:
        assert result[name] == plain[name], name
    info = result.info["retrieval"]
    assert (info["depth"], info["max_hits"], info["takes_depth"]) == (10, 10, True)
    assert info["shortfall"] is None
    assert result["mrr@10"] > 0.2


def _id(query: str) -> str:
    return next(case["id"] for case in CASES if case["query"] == query)


def test_the_largest_cutoff_reaches_the_retriever(store):
    result = evaluate(
        store.as_retriever(), CASES, k=10, metrics=["mrr", "recall@20"], id_key="doc_id"
    )
    assert result.info["retrieval"]["depth"] == 20
    assert all(len(case.hits) == 20 for case in result.cases)
    assert hit_ids(result, CASES[0]["id"]) == expected(store, 20)[CASES[0]["id"]]


def test_generated_uuids_fail_with_the_fix(store):
    result = evaluate(store.as_retriever(), CASES, k=10)
    assert result["mrr@10"] == 0.0
    verdict = check_floors(result, build_settings({"k": 10}))
    assert verdict.failed
    (problem,) = verdict.problems
    assert problem.startswith("No retrieved id matches an id of the golden set (12 cases")
    assert "UUIDs" in problem
    assert "pass id_key='doc_id' (metadata['doc_id'] holds ids of the golden set in" in problem
    golden_ids = list(CASES[0]["relevance"])[:3]
    assert all(repr(doc) in problem for doc in golden_ids)


def test_a_vector_store_is_searched_with_k(store):
    result = evaluate(store, CASES, k=10, id_key="doc_id")
    assert result.info["retrieval"]["retriever"] == (
        "InMemoryVectorStore.similarity_search_with_score (LangChain-style vector store, sync)"
    )
    assert {case["id"]: hit_ids(result, case["id"]) for case in CASES} == expected(store, 10)
    assert all(hit.score is not None for case in result.cases for hit in case.hits)


def test_async_variants_read_the_same(store):
    sync = evaluate(store.as_retriever(), CASES, k=10, id_key="doc_id")
    for retriever in (store.as_retriever().ainvoke, store.asimilarity_search):
        result = evaluate(retriever, CASES, k=10, id_key="doc_id")
        assert "async" in result.info["retrieval"]["retriever"]
        assert [hit_ids(result, c["id"]) for c in CASES] == [hit_ids(sync, c["id"]) for c in CASES]


def test_a_chain_ending_in_documents(store):
    from langchain_core.runnables import RunnableLambda

    first = store.as_retriever() | RunnableLambda(lambda docs: docs)
    result = evaluate(first, CASES, k=10, id_key="doc_id")
    assert result.info["retrieval"]["max_hits"] == 10  # k goes to the chain's first step
    later = RunnableLambda(str) | store.as_retriever()
    result = evaluate(later, CASES, k=10, id_key="doc_id")
    assert result.info["retrieval"]["shortfall"] == (
        "retriever returned at most 4 hits; metrics @10 are computed on 4; the chain's "
        "VectorStoreRetriever returns search_kwargs['k'] hits (default 4) and is not its first "
        "step, so k cannot be passed per call: create it with "
        "vectorstore.as_retriever(search_kwargs={'k': 10})"
    )


def test_a_custom_retriever_with_a_k_field_is_told_what_to_change(bm25, custom):
    CranfieldBM25, CranfieldBM25PerCall = custom
    result = evaluate(CranfieldBM25(index=bm25), CASES, k=10, metrics=["mrr", "recall@20"])
    info = result.info["retrieval"]
    assert info["shortfall"] == (
        "retriever returned at most 4 hits; metrics @10, @20 are computed on 4; CranfieldBM25 "
        "returns at most k=4 hits per call and takes no k per call: create it with k=20"
    )
    assert info["shortfall"] in info["notes"]
    # ... and created so, it returns what the metrics need; k per call reaches the other one.
    assert (
        evaluate(CranfieldBM25(index=bm25, k=20), CASES, k=10).info["retrieval"]["shortfall"]
        is None
    )
    per_call = evaluate(CranfieldBM25PerCall(index=bm25), CASES, k=10)
    assert per_call.info["retrieval"]["max_hits"] == 10
    assert hit_ids(per_call, CASES[0]["id"]) == list(bm25.search(CASES[0]["query"], 10))


def test_in_process_bm25_runs_serially_by_default(bm25, custom):
    CranfieldBM25, _ = custom
    result = evaluate(CranfieldBM25(index=bm25, k=10), CASES, k=10)
    info = result.info["retrieval"]
    assert (info["concurrency"], info["concurrency_auto"]) == (1, True)
    assert info["concurrency_reason"].startswith(("CPU-bound: ", "fast: "))
    explicit = evaluate(CranfieldBM25(index=bm25, k=10), CASES, k=10, concurrency=4)
    assert (
        explicit.info["retrieval"]["concurrency"],
        explicit.info["retrieval"]["concurrency_auto"],
    ) == (4, False)
