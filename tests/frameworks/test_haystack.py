"""Real Haystack objects over the Cranfield copy: content-hash ids, top_k, pipelines, run_async.

An ``InMemoryDocumentStore`` read by ``InMemoryBM25Retriever`` and, in a ``Pipeline``, by
``InMemoryEmbeddingRetriever`` behind a deterministic text embedder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from corpus import cases, collection, embed, haystack_text_embedder, hit_ids

from pytest_ragcheck import evaluate
from pytest_ragcheck.common.errors import RetrieverError
from pytest_ragcheck.evaluation.keywords import build_settings
from pytest_ragcheck.gate.verdict import check_floors

if TYPE_CHECKING:
    from haystack import Pipeline
    from haystack.document_stores.in_memory import InMemoryDocumentStore

# Haystack is imported by the tests that use it, not when every pytest-xdist worker collects.
CASES = cases(12)


@pytest.fixture(scope="module")
def store() -> InMemoryDocumentStore:
    """Documents with their id in ``meta``: Haystack names each by a hash of its content."""
    from haystack import Document
    from haystack.document_stores.in_memory import InMemoryDocumentStore

    store = InMemoryDocumentStore()
    store.write_documents(
        [
            Document(content=text, meta={"doc_id": doc_id}, embedding=embed(text))
            for doc_id, text in collection().corpus.items()
        ]
    )
    return store


def expected(store: InMemoryDocumentStore, k: int) -> dict[str, list[str]]:
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever

    retriever = InMemoryBM25Retriever(store)
    return {
        c["id"]: [d.meta["doc_id"] for d in retriever.run(query=c["query"], top_k=k)["documents"]]
        for c in CASES
    }


def test_bm25_gets_the_largest_cutoff_as_top_k(store):
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever

    result = evaluate(
        InMemoryBM25Retriever(store, top_k=5),
        CASES,
        k=10,
        metrics=["mrr", "recall@20"],
        id_key="doc_id",
    )
    info = result.info["retrieval"]
    assert info["retriever"] == "InMemoryBM25Retriever.run (Haystack-style, sync)"
    assert info["depth"] == 20
    assert {c["id"]: hit_ids(result, c["id"]) for c in CASES} == expected(store, 20)
    assert result["mrr@10"] > 0.4


def test_content_hash_ids_fail_with_the_fix(store):
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever

    result = evaluate(InMemoryBM25Retriever(store), CASES, k=10)
    (problem,) = check_floors(result, build_settings({"k": 10})).problems
    assert "content hashes" in problem
    assert "pass id_key='doc_id'" in problem


def test_documents_with_their_own_id_need_no_id_key():
    from haystack import Document
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
    from haystack.document_stores.in_memory import InMemoryDocumentStore

    store = InMemoryDocumentStore()
    store.write_documents(
        [Document(id=doc_id, content=text) for doc_id, text in collection().corpus.items()]
    )
    result = evaluate(InMemoryBM25Retriever(store), CASES[:4], k=10)
    assert not result.info["retrieval"]["problems"]
    assert result["hit_rate@10"] > 0


def test_run_async_reads_the_same(store):
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever

    retriever = InMemoryBM25Retriever(store)
    result = evaluate(retriever.run_async, CASES, k=10, id_key="doc_id")
    assert result.info["retrieval"]["retriever"] == (
        "InMemoryBM25Retriever.run_async (Haystack-style, async)"
    )
    assert {c["id"]: hit_ids(result, c["id"]) for c in CASES} == expected(store, 10)


def _dense(store: InMemoryDocumentStore) -> Pipeline:
    from haystack import Pipeline
    from haystack.components.retrievers.in_memory import InMemoryEmbeddingRetriever

    pipe = Pipeline()
    pipe.add_component("embedder", haystack_text_embedder()())
    pipe.add_component("retriever", InMemoryEmbeddingRetriever(store))
    pipe.connect("embedder.embedding", "retriever.query_embedding")
    return pipe


@pytest.mark.parametrize("method", ["run", "run_async"])
def test_a_pipeline_is_called_with_the_query_and_top_k(store, method):
    from haystack.components.retrievers.in_memory import InMemoryEmbeddingRetriever

    pipe = _dense(store)
    retriever = pipe if method == "run" else pipe.run_async
    result = evaluate(retriever, CASES, k=10, metrics=["mrr", "recall@20"], id_key="doc_id")
    info = result.info["retrieval"]
    kind = "sync" if method == "run" else "async"
    assert info["retriever"] == (
        f"Pipeline.{method} (Haystack-style pipeline, documents from 'retriever', {kind})"
    )
    ranked = InMemoryEmbeddingRetriever(store).run(
        query_embedding=embed(CASES[0]["query"]), top_k=20
    )
    assert hit_ids(result, CASES[0]["id"]) == [d.meta["doc_id"] for d in ranked["documents"]]


def test_a_hybrid_pipeline_sends_the_query_to_every_text_input(store):
    from haystack.components.joiners import DocumentJoiner
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever

    pipe = _dense(store)
    pipe.add_component("bm25", InMemoryBM25Retriever(store))
    pipe.add_component("joiner", DocumentJoiner(join_mode="reciprocal_rank_fusion"))
    pipe.connect("retriever", "joiner")
    pipe.connect("bm25", "joiner")
    result = evaluate(pipe, CASES, k=10, id_key="doc_id")
    assert "documents from 'joiner'" in result.info["retrieval"]["retriever"]
    assert result.info["retrieval"]["max_hits"] == 10
    assert result["mrr@10"] > 0.4


def test_an_ambiguous_pipeline_gets_the_one_line_wrapper(store):
    from haystack import Pipeline
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever

    pipe = Pipeline()
    pipe.add_component("a", InMemoryBM25Retriever(store))
    pipe.add_component("b", InMemoryBM25Retriever(store))
    with pytest.raises(RetrieverError) as info:
        evaluate(pipe, CASES, k=10)
    assert str(info.value) == (
        "cannot tell how to call this Haystack Pipeline: it needs exactly one open 'documents' "
        "output, found a, b. Pass a function that runs it and returns the documents, e.g. "
        'ragcheck(lambda query: pipe.run({"a": {"query": query, "top_k": 10}, '
        '"b": {"query": query, "top_k": 10}})["a"]["documents"])'
    )
