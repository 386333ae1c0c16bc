"""A real BM25 retriever over the Cranfield abstracts, built with ``bm25s``.

This is the "your retriever" of the example suite: ragcheck knows nothing about it and only
calls it. Swap it for your own (see README.md, "Adapt it to your retriever").

The choices that matter for quality are in :class:`BM25Config`. Two variants are predefined:

* ``default`` — stemmed, stopwords removed, title + abstract indexed (the one the baselines
  were recorded with);
* ``weak`` — no stemming, titles only: a plausible-looking "optimisation" that hurts recall.

Pick one with the environment variable ``RAGCHECK_EXAMPLE_VARIANT`` (see :func:`config_from_env`)
and watch the regression gate catch the weak one.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
import Stemmer

HERE = Path(__file__).resolve().parent
CORPUS_PATH = HERE / "data" / "cranfield" / "corpus.jsonl"
VARIANT_ENV = "RAGCHECK_EXAMPLE_VARIANT"
#: ASCII letters and digits, lowercased: the tokenisation of the Cranfield sanity anchor.
TOKEN_PATTERN = r"[a-z0-9]+"

# bm25s logs every index build at DEBUG; keep failure reports readable.
logging.getLogger("bm25s").setLevel(logging.WARNING)


@dataclass(frozen=True, slots=True)
class BM25Config:
    """Tokenisation and scoring choices: the knobs a retrieval engineer actually turns."""

    #: Snowball English stemming ("layers" and "layer" match).
    stem: bool = True
    #: Drop English stopwords ("what", "the", "of"...) from documents and queries.
    stopwords: bool = True
    #: Document fields concatenated into the indexed text.
    fields: tuple[str, ...] = ("title", "text")
    #: BM25 term-frequency saturation.
    k1: float = 1.2
    #: BM25 document-length normalisation.
    b: float = 0.75


#: The variants selectable with ``RAGCHECK_EXAMPLE_VARIANT``.
VARIANTS: dict[str, BM25Config] = {
    "default": BM25Config(),
    "weak": BM25Config(stem=False, fields=("title",)),
}


def config_from_env(environ: dict[str, str] | None = None) -> BM25Config:
    """The config named by ``RAGCHECK_EXAMPLE_VARIANT`` (unset or empty: ``default``)."""
    env = os.environ if environ is None else environ
    name = (env.get(VARIANT_ENV) or "default").strip().lower()
    try:
        return VARIANTS[name]
    except KeyError:
        valid = ", ".join(VARIANTS)
        raise ValueError(f"{VARIANT_ENV}={name!r} is not a variant; valid: {valid}") from None


@dataclass(frozen=True, slots=True)
class Document:
    id: str
    title: str
    text: str


def load_corpus(path: Path = CORPUS_PATH) -> list[Document]:
    """Read ``corpus.jsonl`` (``{"id", "title", "text"}`` per line)."""
    with path.open(encoding="utf-8") as handle:
        return [
            Document(id=str(row["id"]), title=row["title"], text=row["text"])
            for row in map(json.loads, handle)
        ]


@dataclass
class BM25Retriever:
    """An in-memory BM25 index; build it once, query it from many threads."""

    documents: Sequence[Document]
    config: BM25Config = field(default_factory=BM25Config)

    def __post_init__(self) -> None:
        self._stemmer: Callable[[list[str]], list[str]] | None = (
            Stemmer.Stemmer("english").stemWords if self.config.stem else None
        )
        texts = [
            " ".join(getattr(doc, name) for name in self.config.fields) for doc in self.documents
        ]
        self._index = bm25s.BM25(k1=self.config.k1, b=self.config.b)
        self._index.index(self._tokenize(texts), show_progress=False)
        self._vocab: dict[str, int] = self._index.vocab_dict

    def _tokenize(self, texts: list[str]) -> list[list[str]]:
        tokens: list[list[str]] = bm25s.tokenize(
            texts,
            lower=True,
            token_pattern=TOKEN_PATTERN,
            stopwords="en" if self.config.stopwords else [],
            stemmer=self._stemmer,
            return_ids=False,
            show_progress=False,
        )
        return tokens

    def search(self, query: str, k: int = 10) -> list[dict[str, Any]]:
        """The top ``k`` documents as ``{"id", "text", "score"}`` dicts, best first.

        Ties are broken by corpus order so that runs (and baselines) are reproducible.
        """
        known = [t for t in self._tokenize([query])[0] if t in self._vocab]
        if not known:
            return []
        scores = self._index.get_scores(known)
        order = np.argsort(-scores, kind="stable")[:k]
        return [
            {
                "id": self.documents[i].id,
                "text": self.documents[i].text,
                "score": float(scores[i]),
            }
            for i in order
            if scores[i] > 0
        ]

    # The same retriever in the other shapes ragcheck accepts (see the tests).

    def __call__(self, query: str, k: int = 10) -> list[dict[str, Any]]:
        return self.search(query, k=k)

    def ids_and_scores(self, query: str, k: int = 10) -> list[tuple[str, float]]:
        """Hits as ``(id, score)`` tuples: no text, the cheapest shape."""
        return [(hit["id"], hit["score"]) for hit in self.search(query, k=k)]

    async def asearch(self, query: str, k: int = 10) -> list[dict[str, Any]]:
        """An ``async`` version, as an HTTP client of a vector store would expose."""
        await asyncio.sleep(0)  # a real one awaits the network here
        return self.search(query, k=k)
