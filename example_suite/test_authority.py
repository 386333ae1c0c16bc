"""Source authority: how much of the top 5 comes from sources you trust.

authority.toml weighs sources from 0 (a content farm) to 1 (an official report server). The
hits carry their source as LangChain documents do, in metadata["source"]; ragcheck also reads
"url", "source" or "domain" from a hit or its metadata without configuration (source_key=
names another key). The URLs are illustrative: Cranfield has none, so
data/make_golden.py gives each abstract a made-up one (data/sources.json).

* authority@5: the mean weight of the sources of the top 5;
* untrusted@5: the share of the top 5 weighing less than trusted_min (0.5), lower is better.

A reranker change that lets a content farm into the top 5 fails here, naming the sources.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_ragcheck import ragcheck

SOURCES: dict[str, str] = json.loads(
    (Path(__file__).parent / "data" / "sources.json").read_text(encoding="utf-8")
)


@ragcheck(
    cases="golden/cranfield.jsonl",
    k=5,
    metrics=["authority@5", "untrusted@5"],
    authority="authority.toml",
    min_authority_at_5=0.6,
    max_untrusted_at_5=0.4,
)
def test_top_5_comes_from_trusted_sources(ragcheck, retriever):
    def with_sources(query: str, k: int = 5) -> list[dict[str, Any]]:
        return [
            {**hit, "metadata": {"source": SOURCES[hit["id"]]}}
            for hit in retriever.search(query, k=k)
        ]

    result = ragcheck(with_sources)
    # Each case keeps the sources of its top 5 with the pattern that weighed them.
    first = result.cases[0].facets["sources"][0]
    assert set(first) == {"rank", "id", "source", "pattern", "weight"}
