"""Real data: BM25 on the Cranfield collection, scored by us and by pytrec_eval.

``tests/data/cranfield/README.md`` gives the provenance and a sanity anchor for this exact
setup (BM25 k1=1.2, b=0.75, lowercase [a-z0-9]+ tokens, title + text, top 100): nDCG@10 0.342,
MRR@10 0.491, P@10 0.226, recall@10 0.382, AP@10 0.218. Small differences from the anchor come
from BM25 variants (idf formula, tie order); the match with pytrec_eval is exact.
"""

from __future__ import annotations

import pytest
from bm25 import BM25, Collection, load_cranfield, tokenize

from pytest_ragcheck import metrics as m

pytrec_eval = pytest.importorskip("pytrec_eval")

ANCHOR = {
    "ndcg@10": 0.342,
    "mrr@10": 0.491,
    "precision@10": 0.226,
    "recall@10": 0.382,
    "map@10": 0.218,
}
TREC = {
    "ndcg@10": "ndcg_cut_10",
    "precision@10": "P_10",
    "recall@10": "recall_10",
    "map@10": "map_cut_10",
}


@pytest.fixture(scope="module")
def cranfield() -> tuple[Collection, dict[str, dict[str, float]]]:
    collection = load_cranfield()
    index = BM25(collection.corpus)
    run = {qid: index.search(text, 100) for qid, text in collection.queries.items()}
    return collection, run


def test_the_collection_loads_as_documented(cranfield):
    collection, run = cranfield
    assert (len(collection.corpus), len(collection.queries)) == (1400, 225)
    assert sum(map(len, collection.qrels.values())) == 1837
    assert set(collection.qrels) == set(collection.queries)
    assert all(len(hits) == 100 for hits in run.values())


def test_bm25_ranks_by_score_then_doc_id():
    index = BM25({"1": "wing wing flow", "2": "wing flow", "3": "flow", "4": "wing flow"})
    hits = index.search("wing", 10)
    assert list(hits) == ["1", "4", "2"]  # "2" and "4" tie: doc id descending
    assert list(hits.values()) == sorted(hits.values(), reverse=True)
    assert index.search("nothing here", 10) == {}
    assert tokenize("Mach-2.5 Flow, AT 30°") == ["mach", "2", "5", "flow", "at", "30"]


def test_per_query_values_equal_pytrec_eval(cranfield):
    collection, run = cranfield
    ours = m.evaluate_run(run, collection.qrels, list(ANCHOR))
    qids = list(run)
    theirs = pytrec_eval.RelevanceEvaluator(collection.qrels, set(TREC.values())).evaluate(run)
    top10 = {q: dict(list(hits.items())[:10]) for q, hits in run.items()}
    rr10 = pytrec_eval.RelevanceEvaluator(collection.qrels, {"recip_rank"}).evaluate(top10)
    for name, measure in TREC.items():
        expected = [theirs[q][measure] for q in qids]
        assert ours[name].tolist() == pytest.approx(expected, abs=1e-12), name
    assert ours["mrr@10"].tolist() == pytest.approx(
        [rr10[q]["recip_rank"] for q in qids], abs=1e-12
    )


def test_means_reproduce_the_readme_anchor(cranfield):
    collection, run = cranfield
    ours = m.evaluate_run(run, collection.qrels, list(ANCHOR))
    means = {name: float(values.mean()) for name, values in ours.items()}
    assert means == pytest.approx(ANCHOR, abs=0.01)


def test_ranked_lists_give_the_same_values_as_score_dicts(cranfield):
    collection, run = cranfield
    names = [f"{b}@{k}" for b in ("ndcg", "map", "mrr", "recall") for k in (1, 10, 100)]
    by_score = m.evaluate_run(run, collection.qrels, names)
    lists = m.evaluate_run({q: m.rank_scores(h) for q, h in run.items()}, collection.qrels, names)
    for name in names:
        assert by_score[name].tolist() == lists[name].tolist(), name
