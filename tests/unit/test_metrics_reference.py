"""Our metrics against pytrec_eval (trec_eval), ir_measures and ranx on 1,200 seeded cases.

The cases (``metric_cases.random_cases``) cover k in {1, 3, 5, 10, all}, empty rankings,
repeated ids, graded judgments with 0 and negative grades, queries without judgments and
queries with nothing relevant. The references are fed what they can take (docs/metrics.md,
"How the reference libraries differ"):

* rankings are deduplicated and given tie-free scores; no reference is compared on ties
  (ranx re-sorts tied scores unstably; ir_measures' RR@k breaks ties the other way from RR);
* pytrec_eval hangs when every judgment of a query is negative, so negative grades are
  dropped (they mean "not relevant", exactly like 0); it silently skips a query with no
  judgments or no retrieved doc, and we check that ours scores those 0;
* trec_eval has no cutoff for RR: MRR@k is compared with ``recip_rank`` of the run cut to
  its top k;
* ir_measures, asked for nDCG with and without custom gains in one call, may compute the
  plain one with the custom gains (depending on the hash seed): they are asked separately;
* ranx pairs plain-dict qrels and run by position (same key order here), fails on empty
  rankings and empty qrels (those queries are left out of the ranx comparison) and needs a
  numba warm-up, done once per module.

Known differences that are by design, not bugs:

* ``precision@all`` divides by the number retrieved (trec_eval's ``set_P``), whereas ``P_k``
  always divides by k;
* ``ndcg_exp`` is not a trec_eval measure: it equals trec_eval's ``ndcg_cut`` on judgments
  whose grades are mapped to 2**g - 1, and ranx's ``ndcg_burges``;
* LlamaIndex's ``NDCG`` builds its ideal DCG from the *number of expected ids* with binary
  gains (ignoring both grades and k), so it is not compared; its granular hit rate and
  granular MRR are, against a small re-implementation of LlamaIndex's definitions.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
from metric_cases import CUTOFFS, Case, random_cases

from pytest_ragcheck import metrics as m
from pytest_ragcheck.metrics.names import RANK_METRICS

pytrec_eval = pytest.importorskip("pytrec_eval")

CASES = random_cases(1200, seed=2024)
TOL = 1e-12


def _name(base: str, k: int | None) -> str:
    return f"{base}@{'all' if k is None else k}"


@pytest.fixture(scope="module")
def ours() -> dict[str, list[float]]:
    """Every metric at every cutoff, from the engine on the raw (repeating) rankings."""
    names = [_name(b, k) for b in RANK_METRICS if b != "r_precision" for k in CUTOFFS]
    run = {c.qid: c.raw for c in CASES}
    qrels = {c.qid: c.grades for c in CASES}
    result = m.evaluate_run(run, qrels, [*names, "r_precision"])
    # the engine equals the pure functions exactly (test_metrics_engine.py); spot-check here
    for i in range(0, len(CASES), 97):
        assert result["ndcg@5"][i] == m.ndcg(CASES[i].raw, CASES[i].grades, 5)
    return {name: values.tolist() for name, values in result.items()}


def _non_negative(case: Case) -> dict[str, int]:
    return {d: g for d, g in case.grades.items() if g >= 0}


def _trec(
    measures: set[str],
    *,
    cut: int | None = None,
    gain: Callable[[int], int] | None = None,
) -> dict[str, dict[str, float]]:
    qrels = {
        c.qid: {d: (gain(g) if gain else g) for d, g in _non_negative(c).items()} for c in CASES
    }
    run = {c.qid: dict(list(c.scores().items())[:cut]) for c in CASES}  # scores are rank-ordered
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures)
    return evaluator.evaluate(run)  # type: ignore[no-any-return]


def _compare(
    ours_values: list[float],
    theirs: dict[str, dict[str, float]],
    measure: str,
    label: str,
) -> None:
    compared = 0
    for case, value in zip(CASES, ours_values, strict=True):
        if case.qid in theirs:
            assert value == pytest.approx(theirs[case.qid][measure], abs=TOL), (label, case)
            compared += 1
        else:  # skipped by the reference: no judgment or nothing retrieved -> 0 for us
            assert value == 0.0, (label, case)
    assert compared > len(CASES) * 0.8  # the comparison is not vacuous


# ---- pytrec_eval ----------------------------------------------------------------------------

_TREC_AT_K = {
    "precision": "P_{k}",
    "recall": "recall_{k}",
    "hit_rate": "success_{k}",
    "map": "map_cut_{k}",
    "ndcg": "ndcg_cut_{k}",
}
_TREC_ALL = {  # whole-ranking equivalents (rankings here are at most 30 long)
    "precision": "set_P",
    "recall": "set_recall",
    "hit_rate": "success_50",
    "map": "map",
    "ndcg": "ndcg",
    "f1": "set_F",
}


@pytest.fixture(scope="module")
def trec() -> dict[str, dict[str, float]]:
    wanted = {t.format(k=k) for t in _TREC_AT_K.values() for k in CUTOFFS if k is not None}
    return _trec(wanted | set(_TREC_ALL.values()) | {"Rprec", "recip_rank"})


@pytest.mark.parametrize("k", CUTOFFS)
@pytest.mark.parametrize("base", sorted(_TREC_AT_K))
def test_matches_pytrec_eval(ours, trec, base, k):
    measure = _TREC_ALL[base] if k is None else _TREC_AT_K[base].format(k=k)
    _compare(ours[_name(base, k)], trec, measure, f"{base}@{k} vs {measure}")


def test_f1_matches_pytrec_eval_set_f(ours, trec):
    _compare(ours["f1@all"], trec, "set_F", "f1@all vs set_F")


@pytest.mark.parametrize("k", [1, 3, 5, 10])
def test_f1_at_k_is_the_harmonic_mean_of_trec_p_and_recall(ours, trec, k):
    for case, value in zip(CASES, ours[f"f1@{k}"], strict=True):
        if case.qid not in trec:
            continue
        p, r = trec[case.qid][f"P_{k}"], trec[case.qid][f"recall_{k}"]
        assert value == pytest.approx(2 * p * r / (p + r) if p + r else 0.0, abs=TOL)


def test_r_precision_matches_pytrec_eval(ours, trec):
    _compare(ours["r_precision"], trec, "Rprec", "r_precision vs Rprec")


@pytest.mark.parametrize("k", CUTOFFS)
def test_mrr_matches_recip_rank_of_the_run_cut_at_k(ours, k):
    theirs = _trec({"recip_rank"}, cut=k)
    _compare(ours[_name("mrr", k)], theirs, "recip_rank", f"mrr@{k}")


@pytest.mark.parametrize("k", CUTOFFS)
def test_ndcg_exp_matches_trec_ndcg_with_exponential_gains(ours, k):
    measure = "ndcg" if k is None else f"ndcg_cut_{k}"
    theirs = _trec({measure}, gain=lambda g: 2**g - 1)
    _compare(ours[_name("ndcg_exp", k)], theirs, measure, f"ndcg_exp@{k}")


def test_tie_break_matches_trec_eval_on_non_ascii_ids():
    """trec_eval ranks tied scores by doc id descending in byte order (strcmp on UTF-8)."""
    run = {"q": {"a": 1.0, "é": 1.0, "z": 1.0, "Ω": 1.0, "zz": 1.0, "b": 2.0}}
    for relevant in run["q"]:
        qrels = {"q": {relevant: 1, "x": 0}}
        theirs = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
        got = m.evaluate_run(run, qrels, ["mrr@all"])["mrr@all"][0]
        assert got == theirs["q"]["recip_rank"], relevant


def test_near_ties_match_trec_eval_single_precision_scores():
    """trec_eval keeps scores as float32: scores equal in float32 tie, then doc id decides."""
    base = 0.7
    run = {"q": {"a": base, "b": base + 1e-9, "c": base - 1e-9, "d": base + 1e-3, "e": 0.1}}
    for relevant in run["q"]:
        qrels = {"q": {relevant: 2, "x": 1}}
        theirs = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "ndcg"}).evaluate(run)
        got = m.evaluate_run(run, qrels, ["mrr@all", "ndcg@all"])
        assert got["mrr@all"][0] == theirs["q"]["recip_rank"], relevant
        assert got["ndcg@all"][0] == pytest.approx(theirs["q"]["ndcg"], abs=TOL), relevant


# ---- LlamaIndex's granular metrics (re-implemented from its definitions) ----------------------


def llamaindex_granular_hit_rate(expected_ids: list[str], retrieved_ids: list[str]) -> float:
    """LlamaIndex ``HitRate(use_granular_hit_rate=True)``: hits / number of expected ids."""
    expected_set = set(expected_ids)
    hits = sum(1 for doc_id in retrieved_ids if doc_id in expected_set)
    return hits / len(expected_ids) if expected_ids else 0.0


def llamaindex_granular_mrr(expected_ids: list[str], retrieved_ids: list[str]) -> float:
    """LlamaIndex ``MRR(use_granular_mrr=True)``: mean 1/rank over the relevant docs retrieved."""
    expected_set = set(expected_ids)
    total, count = 0.0, 0
    for index, doc_id in enumerate(retrieved_ids):
        if doc_id in expected_set:
            count += 1
            total += 1.0 / (index + 1)
    return total / count if count else 0.0


@pytest.mark.parametrize("k", CUTOFFS)
def test_granular_metrics_match_llamaindex_definitions(ours, k):
    for i, case in enumerate(CASES):
        expected = [d for d, g in case.grades.items() if g >= 1]
        retrieved = case.ranking[:k]  # LlamaIndex scores the retriever's top-k list
        assert ours[_name("hit_rate_granular", k)][i] == pytest.approx(
            llamaindex_granular_hit_rate(expected, retrieved), abs=TOL
        )
        assert ours[_name("mrr_granular", k)][i] == pytest.approx(
            llamaindex_granular_mrr(expected, retrieved), abs=TOL
        )


# ---- ir_measures ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ir() -> dict[str, dict[str, float]]:
    """ir_measures per query, keyed by *our* metric names."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        irm = pytest.importorskip("ir_measures")
    from ir_measures import AP, RR, P, R, Rprec, SetF, SetP, SetR, Success, nDCG

    exp_ndcg = nDCG(gains={g: 2**g - 1 for g in range(1, 5)})
    measures: dict[Any, str] = {
        AP: "map@all",
        RR: "mrr@all",
        nDCG: "ndcg@all",
        exp_ndcg: "ndcg_exp@all",
        Rprec: "r_precision",
        SetP: "precision@all",
        SetR: "recall@all",
        SetF: "f1@all",
    }
    for k in (1, 3, 5, 10):
        measures.update(
            {
                P @ k: f"precision@{k}",
                R @ k: f"recall@{k}",
                RR @ k: f"mrr@{k}",
                AP @ k: f"map@{k}",
                nDCG @ k: f"ndcg@{k}",
                Success @ k: f"hit_rate@{k}",
                exp_ndcg @ k: f"ndcg_exp@{k}",
            }
        )
    qrels = {c.qid: _non_negative(c) for c in CASES}
    run = {c.qid: c.scores() for c in CASES}
    out: dict[str, dict[str, float]] = {}
    # Two calls: in one call, ir_measures may put plain nDCG into the pytrec_eval invocation
    # that maps grades to the custom gains (whichever invocation its measure set yields first,
    # so it depends on PYTHONHASHSEED), and plain nDCG then silently uses the custom gains.
    plain = [m for m in measures if measures[m].partition("@")[0] != "ndcg_exp"]
    gained = [m for m in measures if measures[m].partition("@")[0] == "ndcg_exp"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for group in (plain, gained):
            for metric in irm.iter_calc(group, qrels, run):
                out.setdefault(metric.query_id, {})[measures[metric.measure]] = metric.value
    assert {name for values in out.values() for name in values} == set(measures.values())
    return out


IR_NAMES = [
    f"{base}@{k}"
    for base in ("precision", "recall", "mrr", "map", "ndcg", "hit_rate", "ndcg_exp")
    for k in ("all", 1, 3, 5, 10)
    if not (k == "all" and base == "hit_rate")
] + ["r_precision", "f1@all"]


@pytest.mark.parametrize("name", IR_NAMES)
def test_matches_ir_measures(ours, ir, name):
    """ir_measures computes these with pytrec_eval, except RR@k (its own msmarco code)."""
    _compare(ours[name], ir, name, f"ir_measures {name}")


@pytest.mark.parametrize("k", CUTOFFS)
def test_judged_matches_ir_measures_judged(ours, k):
    """ir_measures' Judged@k (its own provider): judged documents in the top k / documents in
    the top k, 0 and negative grades counting as judged. It skips queries without judgments
    and divides by zero on an empty ranking, so those are left out; ours scores them 0."""
    from ir_measures import Judged, iter_calc

    measure = Judged if k is None else Judged @ k
    qrels = {c.qid: c.grades for c in CASES if c.grades}
    run = {c.qid: c.scores() for c in CASES if c.ranking}
    theirs = {m.query_id: {"judged": m.value} for m in iter_calc([measure], qrels, run)}
    _compare(ours[_name("judged", k)], theirs, "judged", f"Judged@{k}")


# ---- ranx -----------------------------------------------------------------------------------

RANX_CASES = [c for c in CASES if c.ranking and c.grades][:300]
# ranx compiles each metric with numba on first use (~15 s for these on a cold cache), so the
# comparison sticks to one compiled family: DCG (linear and Burges gains) and AP.
RANX_METRICS = {
    f"{ours_base}@{k}": f"{ranx_base}@{k}"
    for ours_base, ranx_base in (("ndcg", "ndcg"), ("ndcg_exp", "ndcg_burges"), ("map", "map"))
    for k in (1, 3, 5, 10)
}
RANX_METRICS.update({"ndcg@all": "ndcg", "ndcg_exp@all": "ndcg_burges", "map@all": "map"})


@pytest.fixture(scope="module")
def ranx_scores() -> dict[str, list[float]]:
    with warnings.catch_warnings():  # numba type-safety notes while compiling
        warnings.simplefilter("ignore")
        evaluate = pytest.importorskip("ranx").evaluate

        qrels = {c.qid: c.grades for c in RANX_CASES}
        run = {c.qid: c.scores() for c in RANX_CASES}  # same key order as qrels
        result = evaluate(qrels, run, list(RANX_METRICS.values()), return_mean=False)
    return {name: list(result[metric]) for name, metric in RANX_METRICS.items()}


@pytest.mark.parametrize("name", sorted(RANX_METRICS))
def test_matches_ranx(ranx_scores, name):
    run = {c.qid: c.raw for c in RANX_CASES}
    qrels = {c.qid: c.grades for c in RANX_CASES}
    got = m.evaluate_run(run, qrels, [name])[name]
    assert len(RANX_CASES) == 300
    for value, theirs, case in zip(got, ranx_scores[name], RANX_CASES, strict=True):
        assert value == pytest.approx(theirs, abs=TOL), case
