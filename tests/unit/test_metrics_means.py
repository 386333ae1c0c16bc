"""evaluate_means: the run's mean scores over the queries trec_eval averages over."""

from __future__ import annotations

import pytest

from pytest_ragcheck import metrics

RUN = {
    "q1": ["d1", "d2", "d3"],  # judged: MRR 1/2, P@2 1/2
    "q2": ["d4", "d5"],  # judged: MRR 1, P@2 1/2
    "q9": ["d1", "d4"],  # not in the qrels: trec_eval skips it
    "q8": ["d7"],  # judged with nothing (an empty dict): skipped too
}
QRELS = {
    "q1": {"d2": 1, "d3": 2},
    "q2": {"d4": 1, "d6": 0},
    "q3": {"d1": 1},  # judged, absent from the run
    "q8": {},
}


def test_judged_queries_only_by_default_as_trec_eval():
    means = metrics.evaluate_means(RUN, QRELS, ["mrr@10", "precision@2"])
    assert means == {"mrr@10": (1 / 2 + 1) / 2, "precision@2": (1 / 2 + 1 / 2) / 2}


def test_every_run_query_is_the_mean_of_evaluate_runs_arrays():
    means = metrics.evaluate_means(RUN, QRELS, ["mrr@10", "ndcg@3"], queries="run")
    arrays = metrics.evaluate_run(RUN, QRELS, ["mrr@10", "ndcg@3"])
    assert means == pytest.approx({name: float(a.mean()) for name, a in arrays.items()}, abs=1e-15)
    assert means["mrr@10"] == (1 / 2 + 1) / 4


def test_every_judged_query_as_trec_eval_c():
    means = metrics.evaluate_means(RUN, QRELS, ["mrr@10"], queries="qrels")
    assert means == {"mrr@10": (1 / 2 + 1 + 0) / 3}  # q3 retrieved nothing


def test_score_runs_and_a_bare_name_take_k():
    scores = {"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.1}, "q9": {"d1": 1.0}}
    means = metrics.evaluate_means(scores, QRELS, ["recall"], k=2)
    assert means == {"recall@2": metrics.recall(["d1", "d2", "d3"], QRELS["q1"], 2)}


def test_nothing_to_average_is_an_error_that_says_why():
    with pytest.raises(
        ValueError, match=r"no query to average over.*2 queries, the qrels 1 judged ones, 0 in both"
    ):
        metrics.evaluate_means({"1": ["a"], "2": ["b"]}, {"q1": {"a": 1}}, ["mrr@10"])
    with pytest.raises(ValueError, match="queries must be 'judged', 'run' or 'qrels', got 'all'"):
        metrics.evaluate_means(RUN, QRELS, ["mrr@10"], queries="all")  # type: ignore[arg-type]
