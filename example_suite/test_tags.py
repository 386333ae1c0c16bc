"""Subsets by tag: one gate per topic, so a regression on one kind of query is not averaged away.

golden/cranfield.jsonl tags every query with a length bucket (short / medium / long) and topic
keywords (boundary-layer, heat-transfer, structures, ...); see data/make_golden.py. A test
selects the cases carrying ANY of its `tags`, or gates every tag at once with `per_tag=True`.
"""

from __future__ import annotations

import pytest

from pytest_ragcheck import ragcheck


@ragcheck(cases="golden/cranfield.jsonl", k=10, metrics=["mrr@10", "ndcg@10"])
@pytest.mark.parametrize("topic", ["boundary-layer", "heat-transfer", "structures"])
def test_topic(ragcheck, retriever, topic):
    # Keywords given to the fixture call override the marker's: here, the tag subset.
    result = ragcheck(retriever, tags=[topic])
    assert all(topic in case.tags for case in result.cases)


@ragcheck(cases="golden/cranfield.jsonl", k=10, tags=["short"], min_mrr=0.4)
def test_short_queries(ragcheck, retriever):
    # The plainest hit shape: a list of document ids, best first.
    def ids_only(query: str, k: int = 10) -> list[str]:
        return [hit["id"] for hit in retriever.search(query, k=k)]

    ragcheck(ids_only)


# One test for every slice: `per_tag=True` gates each tag with at least `min_tag_cases` cases
# (default 10; 10 of the 11 Cranfield tags) against its own baseline values, Holm-corrected
# across tags. A failure names the slice: `mrr@10 [tag flutter]: 0.612 → 0.401 (...)`.
@ragcheck(cases="golden/cranfield.jsonl", k=10, metrics=["mrr@10", "ndcg@10"], per_tag=True)
def test_every_tag(ragcheck, retriever):
    ragcheck(retriever)
