"""Absolute floors: the retriever must clear a fixed bar on all 225 Cranfield queries.

Floors catch a retriever that is plainly broken (wrong index, empty results, mis-mapped ids).
They do not catch a slow slide from 0.53 to 0.47 — that is the baseline's job
(see test_baseline.py). This test opts out of the baseline to show floors on their own.
"""

from __future__ import annotations

from pytest_ragcheck import ragcheck


@ragcheck(
    cases="golden/cranfield.jsonl",
    k=10,
    min_mrr=0.45,  # a name without @ takes k: this is mrr@10
    min_recall_at_5=0.25,  # `_at_` spells `@`: recall@5
    baseline=False,
)
def test_cranfield_floors(ragcheck, retriever):
    # The retriever object has a .search(query, k=...) method returning
    # {"id", "text", "score"} dicts; ragcheck calls it with the marker's k.
    result = ragcheck(retriever)
    # The result is an ordinary object: add any assertion the marker cannot express.
    assert not result.errors
    assert all(case.hits for case in result.cases), "some queries returned nothing"
