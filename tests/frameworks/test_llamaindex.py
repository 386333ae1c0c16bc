"""Real LlamaIndex objects over the Cranfield copy: node ids, similarity_top_k, the index itself.

A ``VectorStoreIndex`` with a deterministic embedding (LlamaIndex has no BM25 in its core):
nodes carry the document id in ``metadata["doc_id"]`` and get a random UUID as ``node_id``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from corpus import cases, collection, hit_ids, llamaindex_embedding

from pytest_ragcheck import evaluate
from pytest_ragcheck.evaluation.keywords import build_settings
from pytest_ragcheck.gate.verdict import check_floors

if TYPE_CHECKING:
    from llama_index.core import VectorStoreIndex

# LlamaIndex is imported by the tests that use it, not when every pytest-xdist worker collects.
CASES = cases(12)


@pytest.fixture(scope="module")
def index() -> VectorStoreIndex:
    from llama_index.core import VectorStoreIndex
    from llama_index.core.schema import TextNode

    nodes = [
        TextNode(text=text, metadata={"doc_id": doc_id})
        for doc_id, text in collection().corpus.items()
    ]
    return VectorStoreIndex(nodes, embed_model=llamaindex_embedding())


def expected(index: VectorStoreIndex, k: int) -> dict[str, list[str]]:
    retriever = index.as_retriever(similarity_top_k=k)
    return {
        case["id"]: [n.node.metadata["doc_id"] for n in retriever.retrieve(case["query"])]
        for case in CASES
    }


def test_an_index_is_asked_for_the_largest_cutoff(index):
    result = evaluate(index, CASES, k=10, metrics=["mrr", "ndcg", "recall@20"], id_key="doc_id")
    info = result.info["retrieval"]
    assert info["retriever"] == (
        "VectorStoreIndex.as_retriever(similarity_top_k=20).retrieve (LlamaIndex-style index, sync)"
    )
    assert {c["id"]: hit_ids(result, c["id"]) for c in CASES} == expected(index, 20)
    assert info["shortfall"] is None
    first = result.cases[0].hits[0]
    assert first.score is not None
    assert first.text is not None
    assert result["mrr@10"] > 0.2


def test_a_retriever_fixed_at_two_hits_is_told_what_to_change(index):
    result = evaluate(index.as_retriever(), CASES, k=10, id_key="doc_id")
    assert result.info["retrieval"]["shortfall"] == (
        "retriever returned at most 2 hits; metrics @10 are computed on 2; VectorIndexRetriever "
        "returns similarity_top_k=2 hits per call: create it with "
        "index.as_retriever(similarity_top_k=10)"
    )
    right = evaluate(index.as_retriever(similarity_top_k=10), CASES, k=10, id_key="doc_id")
    assert right.info["retrieval"]["shortfall"] is None
    assert {c["id"]: hit_ids(right, c["id"]) for c in CASES} == expected(index, 10)


def test_node_uuids_fail_with_the_fix(index):
    result = evaluate(index, CASES, k=10)
    (problem,) = check_floors(result, build_settings({"k": 10})).problems
    assert "UUIDs" in problem
    assert "pass id_key='doc_id'" in problem


def test_aretrieve_reads_the_same(index):
    retriever = index.as_retriever(similarity_top_k=10)
    sync = evaluate(retriever, CASES, k=10, id_key="doc_id")
    result = evaluate(retriever.aretrieve, CASES, k=10, id_key="doc_id")
    assert result.info["retrieval"]["retriever"] == (
        "VectorIndexRetriever.aretrieve (LlamaIndex-style, async)"
    )
    assert [hit_ids(result, c["id"]) for c in CASES] == [hit_ids(sync, c["id"]) for c in CASES]


def test_nodes_created_with_the_document_id_need_no_id_key():
    from llama_index.core import VectorStoreIndex
    from llama_index.core.schema import TextNode

    nodes = [TextNode(id_=doc_id, text=text) for doc_id, text in collection().corpus.items()]
    index = VectorStoreIndex(nodes, embed_model=llamaindex_embedding())
    result = evaluate(index, CASES[:4], k=10)
    assert not result.info["retrieval"]["problems"]
    assert result["hit_rate@10"] > 0
