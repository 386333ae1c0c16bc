"""The regression gate: today's metrics against the baseline stored in __ragcheck__/.

A metric that drops by more than `tolerance` (absolute, default 0.02) below its baseline
fails the test with `name: baseline → current (Δ, allowed)` and the queries that got worse.
Improvements pass; record them with `pytest example_suite --snapshot-update` and commit the
snapshot diff with the change that caused it.
"""

from __future__ import annotations

from pytest_ragcheck import ragcheck

METRICS = ["hit_rate@10", "mrr@10", "recall@5", "recall@10", "map@10", "ndcg@10"]


@ragcheck(cases="golden/cranfield.jsonl", k=10, metrics=METRICS, tolerances={"hit_rate@10": 0.03})
def test_cranfield_baseline(ragcheck, retriever):
    ragcheck(retriever)


# With 225 queries, a 0.02 move of a mean can be noise. `significance=0.05` fails a drop
# beyond tolerance only when a paired test over the per-query values says it is real.
@ragcheck(cases="golden/cranfield.jsonl", k=10, metrics=METRICS, significance=0.05)
def test_cranfield_baseline_significant_drops_only(ragcheck, retriever):
    ragcheck(retriever)
