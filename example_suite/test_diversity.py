"""Diversity: do the top 10 cover the facets of a question, or ten variations of one?

golden/facets.jsonl has twelve Cranfield questions with several facets ("what are the
structural and aeroelastic problems of high speed flight": panel flutter, heated structures,
wing flutter, scale models...). Each case lists, by hand, which relevant abstracts cover which
facet as its "subtopics"; the diversity metrics are TREC's (ndeval's):

* subtopic_recall@10: the share of the facets the top 10 covers;
* alpha_ndcg@10: nDCG where a second abstract on an already covered facet is worth half
  (diversity_alpha=0.5) of the first, so that covering a new facet beats repeating one.

A retriever that collapses onto one facet regresses here even when its nDCG barely moves, and
the failure names the facets each case lost and the abstracts that covered them before.
"""

from __future__ import annotations

from pytest_ragcheck import ragcheck


@ragcheck(
    cases="golden/facets.jsonl",
    k=10,
    metrics=["subtopic_recall@10", "alpha_ndcg@10", "ndcg@10"],
    min_subtopic_recall_at_10=0.6,
)
def test_top_10_covers_the_facets(ragcheck, retriever):
    result = ragcheck(retriever)
    # "how do kuchemann's and multhopp's methods compare with each other and with experiment":
    # both methods and the experiments are in the top 10.
    assert result.per_case("subtopic_recall@10")["82"] == 1.0
