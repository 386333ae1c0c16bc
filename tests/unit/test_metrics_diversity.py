"""The diversity metrics equal TREC's ndeval (through pyndeval) case by case, bit for bit.

pyndeval wraps ndeval.c itself. Each generated case is evaluated by its own pyndeval
evaluator, its subtopics given in the case's order (ndeval numbers subtopics in the order it
first sees them, and sums a document's gains in that order).
"""

from __future__ import annotations

import math
import random
from typing import Any

import pyndeval
import pytest

from pytest_ragcheck import evaluate, metrics
from pytest_ragcheck.metrics.diversity import evaluate_diversity, judgments

#: Our name -> ndeval's measure.
CUT = {
    "alpha_ndcg": "alpha-nDCG",
    "err_ia": "ERR-IA",
    "nerr_ia": "nERR-IA",
    "p_ia": "P-IA",
    "subtopic_recall": "strec",
}
WHOLE = {"map_ia": "MAP-IA", "nrbp": "NRBP", "nnrbp": "nNRBP"}
MEASURES = [f"{v}@{k}" for v in CUT.values() for k in range(1, 21)] + list(WHOLE.values())
SPECS = [(b, k) for b in CUT for k in range(1, 21)] + [(b, None) for b in WHOLE]
CASES = 2400


def _case(rng: random.Random) -> dict[str, Any]:
    docs = [f"d{i}" for i in rng.sample(range(60), rng.randint(1, 25))]
    subtopics: dict[str, dict[str, int]] = {}
    for s in range(rng.choice([1, 1, 2, 3, 4, 6, 9])):
        shape = rng.random()
        grades = {}
        for _ in range(rng.randint(1, 8)):
            doc = rng.choice(docs) if rng.random() < 0.85 else f"x{rng.randint(0, 5)}"
            # mostly relevant; 0 and negative: judged not relevant; a few subtopics all-0
            grades[doc] = 0 if shape < 0.1 else rng.choice([1, 1, 1, 2, 3, 0, -1])
        subtopics[f"s{s}"] = grades
    pool = [*docs, "u1", "u2", "u3"]  # u*: retrieved but judged on no subtopic
    depth = rng.choice([0, 1, 2, 3, rng.randint(0, 30), rng.randint(15, 40)])
    ranking = rng.sample(pool, min(depth, len(pool)))
    alpha = rng.choice([0.0, 1.0, 0.5, rng.random(), rng.random()])
    beta = rng.choice([0.0, 1.0, 0.5, rng.random(), rng.random()])
    return {"subtopics": subtopics, "ranking": ranking, "alpha": alpha, "beta": beta}


def _ndeval(case: dict[str, Any]) -> dict[str, float]:
    qrels = [
        ("q", name, doc, grade)
        for name, grades in case["subtopics"].items()
        for doc, grade in grades.items()
    ]
    ranking = case["ranking"]
    # ndeval scores a query only when the run has a line for it; a ranking of one document
    # judged on nothing has exactly the values of an empty ranking
    run = [("q", doc, float(len(ranking) - i)) for i, doc in enumerate(ranking)] or [
        ("q", "unjudged", 1.0)
    ]
    found = pyndeval.ndeval(qrels, run, measures=MEASURES, alpha=case["alpha"], beta=case["beta"])
    values = dict(found["q"])
    if math.isnan(values["nNRBP"]):  # 0 / 0: no subtopic has a relevant document, or a=0, b=1
        values["nNRBP"] = 0.0
    return values


@pytest.fixture(scope="module")
def generated() -> list[tuple[dict[str, Any], dict[str, float]]]:
    rng = random.Random(20140801)
    cases = [_case(rng) for _ in range(CASES)]
    return [(case, _ndeval(case)) for case in cases]


def test_the_generator_reaches_every_situation(generated):
    cases = [case for case, _ in generated]
    assert sum(not c["ranking"] for c in cases) > 100
    assert sum(0 < len(c["ranking"]) <= 3 for c in cases) > 300
    assert sum(len(c["ranking"]) > 20 for c in cases) > 100
    no_relevant = [c for c in cases if judgments(c["subtopics"]).actual == 0]
    assert len(no_relevant) > 20
    idle = sum(
        1
        for c in cases
        if any(not any(g >= 1 for g in s.values()) for s in c["subtopics"].values())
    )
    assert idle > 200  # a subtopic without a relevant document beside others with
    multi = sum(
        1 for c in cases if any(len(found) > 1 for found in judgments(c["subtopics"]).docs.values())
    )
    assert multi > 1000  # a document relevant to several subtopics
    assert {0.0, 1.0} <= {c["alpha"] for c in cases}
    assert {0.0, 1.0} <= {c["beta"] for c in cases}
    # ndeval's own quirks are in the data: err_ia@1 above 1, nnrbp's 0 / 0
    assert any(values["ERR-IA@1"] > 1 for _, values in generated)


def test_every_metric_at_every_cutoff_equals_ndeval(generated):
    compared = 0
    for case, expected in generated:
        ours = evaluate_diversity(
            [case["ranking"]], [case["subtopics"]], SPECS, alpha=case["alpha"], beta=case["beta"]
        )
        for base, k in SPECS:
            name = f"{base}@{'all' if k is None else k}"
            theirs = expected[f"{CUT[base]}@{k}" if k is not None else WHOLE[base]]
            assert ours[name][0] == theirs, (name, case)
            compared += 1
    assert compared == CASES * len(SPECS)


def test_the_pure_functions_equal_ndeval(generated):
    rng = random.Random(5)
    for case, expected in rng.sample(generated, 300):
        ranking, subtopics = case["ranking"], case["subtopics"]
        alpha, beta = case["alpha"], case["beta"]
        k = rng.randint(1, 20)
        assert metrics.alpha_ndcg(ranking, subtopics, k, alpha=alpha) == expected[f"alpha-nDCG@{k}"]
        assert metrics.err_ia(ranking, subtopics, k, alpha=alpha) == expected[f"ERR-IA@{k}"]
        assert metrics.nerr_ia(ranking, subtopics, k, alpha=alpha) == expected[f"nERR-IA@{k}"]
        assert metrics.p_ia(ranking, subtopics, k) == expected[f"P-IA@{k}"]
        assert metrics.subtopic_recall(ranking, subtopics, k) == expected[f"strec@{k}"]
        assert metrics.map_ia(ranking, subtopics) == expected["MAP-IA"]
        assert metrics.nrbp(ranking, subtopics, alpha=alpha, beta=beta) == expected["NRBP"]
        assert metrics.nnrbp(ranking, subtopics, alpha=alpha, beta=beta) == expected["nNRBP"]


def test_evaluate_scores_each_case_as_ndeval(generated):
    """Through the whole pipeline: the retriever's ranking, the marker's alpha and beta."""
    rng = random.Random(9)
    for alpha, beta in [(0.5, 0.5), (0.0, 1.0), (1.0, 0.0), (0.3, 0.8)]:
        chosen = rng.sample([case for case, _ in generated], 120)
        cases = [
            {"id": f"c{i}", "query": f"q{i}", "subtopics": case["subtopics"]}
            for i, case in enumerate(chosen)
        ]
        rankings = {f"q{i}": case["ranking"] for i, case in enumerate(chosen)}
        names = ["alpha_ndcg@5", "nerr_ia@20", "p_ia@3", "subtopic_recall@10", "map_ia", "nnrbp"]
        result = evaluate(
            rankings.__getitem__,
            cases,
            metrics=names,
            diversity_alpha=alpha,
            diversity_beta=beta,
        )
        for i, case in enumerate(chosen):
            expected = _ndeval({**case, "alpha": alpha, "beta": beta})
            values = result.cases[i].values
            assert values["alpha_ndcg@5"] == expected["alpha-nDCG@5"]
            assert values["nerr_ia@20"] == expected["nERR-IA@20"]
            assert values["p_ia@3"] == expected["P-IA@3"]
            assert values["subtopic_recall@10"] == expected["strec@10"]
            assert values["map_ia"] == expected["MAP-IA"]
            assert values["nnrbp"] == expected["nNRBP"]
        assert result["alpha_ndcg@5"] == pytest.approx(
            math.fsum(c.values["alpha_ndcg@5"] for c in result.cases) / len(cases)
        )


def test_hand_computed_case():
    # "jaguar": car covered by d1 and d3, cat by d2. Ranking d1, d3, d2 at alpha 0.5:
    # gains 1, 0.5, 1; the ideal is d2 (ties to the larger id), d3, d1: gains 1, 1, 0.5.
    subtopics = {"car": ["d1", "d3"], "cat": ["d2"]}
    ranking = ["d1", "d3", "d2"]
    dcg = 1 + 0.5 / math.log2(3) + 1 / math.log2(4)
    ideal = 1 + 1 / math.log2(3) + 0.5 / math.log2(4)
    assert metrics.alpha_ndcg(ranking, subtopics, 3) == pytest.approx(dcg / ideal)
    assert metrics.subtopic_recall(ranking, subtopics, 1) == 0.5
    assert metrics.subtopic_recall(ranking, subtopics, 3) == 1.0
    assert metrics.p_ia(ranking, subtopics, 2) == 2 / (2 * 2)
    # MAP-IA: car: (1/1 + 2/2) / 2 = 1; cat: (1/3) / 1
    assert metrics.map_ia(ranking, subtopics) == pytest.approx((1 + 1 / 3) / 2)
    # ndeval's err_ia@1 is the first hit's gain, undivided (a hit on two subtopics: 2)
    assert metrics.err_ia(["d1"], {"a": ["d1"], "b": ["d1"]}, 1) == 2.0
    assert metrics.nerr_ia(["d1"], {"a": ["d1"], "b": ["d1"]}, 1) == 1.0


def test_edge_cases():
    judged_zero = {"s": {"d1": 0}}
    for name in (*CUT, *WHOLE):
        function = getattr(metrics, name)
        assert function(["d1"], judged_zero, 5) == 0.0  # no relevant document: 0, never NaN
        assert function([], {"s": ["d1"]}, 5) == 0.0  # nothing retrieved
        assert function([], {"s": ["d1"]}) == 0.0  # k=None: the depth of an empty ranking
    # a repeated id counts once, at its first rank
    assert metrics.alpha_ndcg(["d1", "d1", "d2"], {"a": ["d1"], "b": ["d2"]}, 2) == 1.0
    # beyond 20 the same definitions: a gain at rank 25 counts at @25, not at @20
    ranking = [f"n{i}" for i in range(24)] + ["d1"]
    assert metrics.subtopic_recall(ranking, {"a": ["d1"]}, 20) == 0.0
    assert metrics.subtopic_recall(ranking, {"a": ["d1"]}, 25) == 1.0
    assert metrics.alpha_ndcg(ranking, {"a": ["d1"]}, 25) == pytest.approx(
        (1 / math.log2(26)) / 1.0
    )


@pytest.mark.parametrize("bad", [-0.1, 1.5, True, "0.5", float("nan")])
def test_alpha_and_beta_are_checked(bad):
    with pytest.raises(ValueError, match=r"alpha must be a number from 0 to 1"):
        metrics.alpha_ndcg(["d"], {"s": ["d"]}, 1, alpha=bad)
    with pytest.raises(ValueError, match=r"beta must be a number from 0 to 1"):
        metrics.nrbp(["d"], {"s": ["d"]}, beta=bad)


def test_bad_inputs_are_named():
    with pytest.raises(TypeError, match="subtopics must be a mapping"):
        metrics.p_ia(["d"], [("s", "d")], 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"subtopics\['s'\]: grades must be integers"):
        metrics.p_ia(["d"], {"s": {"d": 1.0}}, 1)  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="k must be an int >= 1"):
        metrics.p_ia(["d"], {"s": ["d"]}, 0)
