"""The Cranfield copy in ``tests/data/cranfield`` as framework tests need it.

A deterministic hashing bag-of-words embedding stands in for an embedding model (no network,
no model download): each lowercase ``[a-z0-9]+`` token adds ``±(1 + log tf)`` to one of
:data:`DIM` dimensions chosen by a BLAKE2b hash of the token, and the vector is L2-normalised,
so cosine similarity is a TF-weighted term overlap. Identical on every machine and run.
The framework adapters below import their framework only when called.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections import Counter
from typing import Any

from bm25 import Collection, load_cranfield, tokenize

__all__ = [
    "DIM",
    "cases",
    "collection",
    "embed",
    "haystack_text_embedder",
    "hit_ids",
    "langchain_embeddings",
    "llamaindex_embedding",
]

DIM = 256


@functools.cache
def _slot(token: str) -> tuple[int, float]:
    digest = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "big")
    return digest % DIM, 1.0 if digest >> 63 else -1.0


@functools.cache
def _vector(text: str) -> tuple[float, ...]:
    vector = [0.0] * DIM
    for token, tf in Counter(tokenize(text)).items():
        slot, sign = _slot(token)
        vector[slot] += sign * (1.0 + math.log(tf))
    norm = math.sqrt(sum(v * v for v in vector))
    if not norm:  # two Cranfield abstracts are empty: a zero vector breaks cosine similarity
        return (1.0,) + (0.0,) * (DIM - 1)
    return tuple(v / norm for v in vector)


def embed(text: str) -> list[float]:
    """The text's unit vector; cached per text."""
    return list(_vector(text))


@functools.cache
def collection() -> Collection:
    return load_cranfield()


def cases(n: int) -> list[dict[str, Any]]:
    """The first ``n`` Cranfield queries as golden cases with graded relevance."""
    data = collection()
    return [
        {"id": qid, "query": data.queries[qid], "relevance": data.qrels[qid]}
        for qid in list(data.queries)[:n]
    ]


def hit_ids(result: Any, case_id: str) -> list[str]:
    """The ids a ragcheck result read for one case, in rank order."""
    (case,) = [c for c in result.cases if c.id == case_id]
    return [h.id for h in case.hits]


# Each adapter is built once per framework module: a pytester run in this process drops the
# framework modules it imported, and an adapter built on a dropped base class would fail the
# next ``isinstance`` check of the re-imported framework (the order of test files must not
# matter).


def langchain_embeddings() -> Any:
    """``corpus.embed`` as a LangChain ``Embeddings`` (imports LangChain when called)."""
    from langchain_core.embeddings import Embeddings

    return _langchain_embeddings(Embeddings)


@functools.cache
def _langchain_embeddings(base: type) -> Any:
    class HashEmbeddings(base):  # type: ignore[misc, valid-type]
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [embed(text) for text in texts]

        def embed_query(self, text: str) -> list[float]:
            return embed(text)

    return HashEmbeddings()


def llamaindex_embedding() -> Any:
    """``corpus.embed`` as a LlamaIndex ``BaseEmbedding`` (imports LlamaIndex when called)."""
    from llama_index.core.embeddings import BaseEmbedding

    return _llamaindex_embedding(BaseEmbedding)


@functools.cache
def _llamaindex_embedding(base: type) -> Any:
    class HashEmbedding(base):  # type: ignore[misc, valid-type]
        def _get_query_embedding(self, query: str) -> list[float]:
            return embed(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return embed(text)

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return embed(query)

    return HashEmbedding()


def haystack_text_embedder() -> Any:
    """A Haystack component ``text -> embedding`` with ``corpus.embed`` (imports Haystack)."""
    from haystack import component

    return _haystack_text_embedder(component)


@functools.cache
def _haystack_text_embedder(component: Any) -> Any:
    @component
    class HashTextEmbedder:
        @component.output_types(embedding=list[float])
        def run(self, text: str) -> dict[str, list[float]]:
            return {"embedding": embed(text)}

    return HashTextEmbedder
