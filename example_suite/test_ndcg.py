"""Graded relevance: nDCG@10 uses Cranfield's 0-4 grades, not just relevant/not relevant.

The cases come from the BEIR-style folder golden/cranfield_beir/ (queries.jsonl +
qrels/test.tsv); the same judgments as golden/cranfield.jsonl, in the format most public
retrieval benchmarks ship in.
"""

from __future__ import annotations

from pytest_ragcheck import ragcheck


@ragcheck(
    cases="golden/cranfield_beir",
    k=10,
    metrics=["ndcg@10", "ndcg_exp@10", "map@100", "r_precision"],
    min_ndcg_at_10=0.33,
)
def test_cranfield_graded_ndcg(ragcheck, retriever):
    # A bound method returning (id, score) tuples: no text needed for id-based judgments.
    result = ragcheck(retriever.ids_and_scores)
    # Per-query values are on the result: the queries to look at first (shown with -s or -rP).
    for case in result.worst_cases("ndcg@10", limit=3):
        print(f"query {case.id}: ndcg@10={case.values['ndcg@10']:.3f}  {case.query}")
