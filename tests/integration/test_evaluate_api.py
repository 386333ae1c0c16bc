"""The library API ``pytest_ragcheck.evaluate``: a real run on Cranfield checked against
pytrec_eval, and the plain-Python conveniences (lists of cases, paths, messages)."""

from __future__ import annotations

import math

import pytest
from bm25 import CRANFIELD
from harness import cranfield_index

import pytest_ragcheck
from pytest_ragcheck.common.errors import ConfigError, GoldenSetError

pytrec_eval = pytest.importorskip("pytrec_eval")

#: Our name -> pytrec_eval measure, on the top-10 run (recip_rank has no cutoff of its own,
#: so the run given to pytrec_eval is cut at 10: MRR@10, and success@10 = hit rate).
AT_10 = {
    "ndcg@10": "ndcg_cut_10",
    "precision@10": "P_10",
    "recall@10": "recall_10",
    "map@10": "map_cut_10",
    "mrr@10": "recip_rank",
    "hit_rate@10": "success_10",
}
#: On the full top-100 run.
AT_100 = {"recall@100": "recall_100", "map@100": "map_cut_100", "r_precision": "Rprec"}


def _trec_means(qrels, run, measures):
    evaluator = pytrec_eval.RelevanceEvaluator(
        {q: {d: g for d, g in rel.items() if g >= 0} for q, rel in qrels.items()}, set(measures)
    )
    per_query = evaluator.evaluate(run)
    assert set(per_query) == set(run)  # no query silently skipped
    return {m: math.fsum(v[m] for v in per_query.values()) / len(per_query) for m in measures}


def test_evaluate_equals_pytrec_eval_on_cranfield(monkeypatch):
    collection, index = cranfield_index()

    def retriever(query: str, k: int) -> list[tuple[str, float]]:
        return list(index.search(query, k).items())

    # A relative path resolves against the current directory.
    monkeypatch.chdir(CRANFIELD.parent)
    result = pytest_ragcheck.evaluate(
        retriever, "cranfield", k=100, metrics=[*AT_10, *AT_100], concurrency=4
    )
    assert len(result.cases) == len(collection.queries) == 225
    assert not result.errors
    assert not result.skipped

    run_100 = {qid: index.search(text, 100) for qid, text in collection.queries.items()}
    run_10 = {qid: dict(list(hits.items())[:10]) for qid, hits in run_100.items()}
    expected = _trec_means(collection.qrels, run_10, AT_10.values())
    expected |= _trec_means(collection.qrels, run_100, AT_100.values())
    for ours, theirs in {**AT_10, **AT_100}.items():
        assert result[ours] == pytest.approx(expected[theirs], abs=1e-12), ours


def test_cases_as_a_list_of_dicts():
    cases = [
        {"query": "alpha", "expected_ids": ["a"]},
        {"query": "beta", "relevance": {"b": 2, "c": 1}},
    ]
    rankings = {"alpha": ["x", "a"], "beta": ["c", "b"]}
    result = pytest_ragcheck.evaluate(rankings.__getitem__, cases, k=2, metrics=["mrr", "recall"])
    # alpha: a at rank 2 -> MRR 1/2; beta: c (grade 1) first -> MRR 1; recall 1 for both.
    assert result["mrr@2"] == 0.75
    assert result["mrr"] == 0.75
    assert result["recall@2"] == 1.0
    assert result.per_case("mrr@2") == {result.cases[0].id: 0.5, result.cases[1].id: 1.0}


def test_default_metrics_carry_the_cutoff():
    result = pytest_ragcheck.evaluate(lambda q: ["a"], [{"query": "q", "expected_ids": ["a"]}], k=3)
    assert [n for n in result.metrics if not n.startswith("latency_")] == [
        "hit_rate@3",
        "mrr@3",
        "precision@3",
        "recall@3",
        "map@3",
        "ndcg@3",
    ]
    assert result["precision@3"] == pytest.approx(1 / 3)


def test_missing_relative_path_names_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(GoldenSetError) as info:
        pytest_ragcheck.evaluate(lambda q: [], "golden/faq.jsonl")
    assert "golden set 'golden/faq.jsonl' not found; looked in:" in str(info.value)
    assert str(tmp_path / "golden" / "faq.jsonl") in str(info.value)


def test_unknown_keyword_and_metric():
    cases = [{"query": "q", "expected_ids": ["a"]}]
    with pytest.raises(
        ConfigError,
        match=r"evaluate\(\): unknown keyword 'concurency' \(did you mean 'concurrency'\?\)",
    ):
        pytest_ragcheck.evaluate(lambda q: [], cases, concurency=2)
    with pytest.raises(ConfigError, match=r"unknown metric 'ndgc@5' \(did you mean 'ndcg'\?\)"):
        pytest_ragcheck.evaluate(lambda q: [], cases, metrics=["ndgc@5"])
    with pytest.raises(ConfigError, match=r"bad cutoff in metric 'nDCG@x'"):
        pytest_ragcheck.evaluate(lambda q: [], cases, metrics=["nDCG@x"])
    with pytest.raises(ConfigError, match="k must be an integer >= 1"):
        pytest_ragcheck.evaluate(lambda q: [], cases, k=0)


def test_retriever_errors_are_recorded_not_raised():
    cases = [
        {"id": "ok", "query": "fine", "expected_ids": ["a"]},
        {"id": "bad", "query": "boom", "expected_ids": ["a"]},
    ]

    def retriever(query):
        if query == "boom":
            raise RuntimeError("backend down")
        return ["a"]

    result = pytest_ragcheck.evaluate(retriever, cases, k=1, metrics=["mrr"])
    assert [c.status for c in result.cases] == ["ok", "error"]
    assert result.cases[1].error == "RuntimeError: backend down"
    # The failed case is left out of the mean (as in the fixture); on_error="zero" counts it.
    assert result["mrr@1"] == 1.0
    zero = pytest_ragcheck.evaluate(retriever, cases, k=1, metrics=["mrr"], on_error="zero")
    assert zero["mrr@1"] == 0.5


def test_not_a_retriever():
    from pytest_ragcheck.common.errors import RetrieverError

    with pytest.raises(RetrieverError, match="cannot use int as a retriever"):
        pytest_ragcheck.evaluate(3, [{"query": "q", "expected_ids": ["a"]}])
