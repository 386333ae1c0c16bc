"""The quick scoring path (cases matched by id, no answer) gives what the general path gives:
the same case results, values, hits, aggregates; odd runs included."""

from __future__ import annotations

import gc
import math
import random
from typing import Any

import pytest

from pytest_ragcheck import evaluate
from pytest_ragcheck.common.collector import fewer_collections, no_collections
from pytest_ragcheck.evaluation import scoring as case_scoring
from pytest_ragcheck.evaluation.keywords import build_settings
from pytest_ragcheck.evaluation.result import CaseResult
from pytest_ragcheck.golden import GoldenCase
from pytest_ragcheck.golden.model import case_facts
from pytest_ragcheck.run.hits import Hit
from pytest_ragcheck.run.output import Answer
from pytest_ragcheck.run.runner import RetrievalOutcome

ODD = ["a", "é", "日本", 'q"uote', "back\\slash", "😀", "b", "c"]
METRICS = ["hit_rate", "mrr", "precision", "recall", "map", "ndcg", "ndcg_exp", "f1", "judged"]


def _cases(rng: random.Random, n: int) -> list[GoldenCase]:
    cases = []
    for i in range(n):
        fields: dict[str, Any] = {"id": f"{rng.choice(ODD)}-{i}", "query": f"q {i}"}
        pick = rng.random()
        if pick < 0.2:
            fields["relevance"] = {rng.choice(ODD): rng.choice([0, 1, 2, 3, -1]) for _ in range(3)}
        elif pick < 0.9:
            fields["expected_ids"] = [rng.choice(ODD) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.2:
            fields["tags"] = [rng.choice(["x", "y"])]
        cases.append(GoldenCase(**fields))
    return cases


def _outcome(rng: random.Random) -> RetrievalOutcome:
    pick = rng.random()
    if pick < 0.1:
        return RetrievalOutcome(hits=[], latency_ms=1.5, error="ValueError: boom", traceback="tb")
    if pick < 0.15:
        return RetrievalOutcome(hits=[], latency_ms=None)
    hits = [
        Hit(doc, rng.choice([None, "text é"]), rng.choice([None, math.nan, 0.5, 1.0]))
        for doc in dict.fromkeys(rng.choice(ODD) for _ in range(rng.randint(1, 12)))
    ]
    return RetrievalOutcome(hits=hits, duplicates=rng.randint(0, 2), latency_ms=rng.random())


def _fields(case: CaseResult) -> dict[str, Any]:
    return {name: getattr(case, name) for name in CaseResult.__dataclass_fields__}


@pytest.mark.parametrize("on_error", ["fail", "zero"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_quick_case_results_equal_the_general_ones(on_error: str, seed: int) -> None:
    rng = random.Random(seed)
    cases = _cases(rng, 300)
    outcomes = [_outcome(rng) for _ in cases]
    settings = build_settings({"metrics": METRICS, "k": 5, "on_error": on_error})
    facts = case_facts(cases)
    quick = case_scoring._score_by_ids(cases, outcomes, facts, settings)
    assert quick is not None
    general = case_scoring._score_general(cases, outcomes, facts, settings)
    assert len(quick.results) == len(general.results)
    for got, want in zip(quick.results, general.results, strict=True):
        assert got._ranked is not None
        assert want._ranked is not None
        assert got._ranked[0] is want._ranked[0]
        assert got._ranked[1] == want._ranked[1]
        assert repr(got.values) == repr(want.values)  # NaN-free, same order, same floats
        # builds the hit records of both; ``repr``: a NaN score makes records unequal from
        # Python 3.13 on, where dataclasses compare field by field
        assert repr(_fields(got)) == repr(_fields(want))
    scored = [r for r in general.results if r.status == "ok" or on_error == "zero"]
    for name, column in quick.columns.items():
        assert column == [r.values[name] for r in scored]


def test_quick_hits_are_built_once_and_each_case_has_its_own() -> None:
    cases = [GoldenCase(id=f"c{i}", query="q", expected_ids=["a"]) for i in range(3)]
    outcomes = [RetrievalOutcome(hits=[Hit("a", None, 1.0)], latency_ms=1.0) for _ in cases]
    settings = build_settings({"metrics": ["mrr"], "k": 2})
    quick = case_scoring._score_by_ids(cases, outcomes, case_facts(cases), settings)
    assert quick is not None
    first, second, third = quick.results
    first.hits.append(first.hits[0])
    assert len(first.hits) == 2
    assert len(second.hits) == 1
    third.hits = []
    assert third.hits == []
    assert second.hits[0].grade == 1
    first.judge_errors.append("x")
    assert second.judge_errors == []
    assert second.judge == {}


def test_texts_answers_or_answer_metrics_take_the_general_path() -> None:
    ids = [GoldenCase(id="a", query="q", expected_ids=["x"])]
    spans = [*ids, GoldenCase(id="b", query="q", expected_texts=["span"])]
    plain = [RetrievalOutcome(hits=[Hit("x", "span", 1.0)], latency_ms=1.0)]
    settings = build_settings({"metrics": ["mrr"]})
    assert case_scoring._score_by_ids(spans, plain * 2, case_facts(spans), settings) is None
    answered = [plain[0]._replace(answer=Answer("yes", True))]
    assert case_scoring._score_by_ids(ids, answered, case_facts(ids), settings) is None
    wants_answer = build_settings({"metrics": ["mrr", "token_f1"]})
    assert case_scoring._score_by_ids(ids, plain, case_facts(ids), wants_answer) is None
    assert case_scoring._score_by_ids(ids, plain, case_facts(ids), settings) is not None


def _run(cases: list[dict[str, Any]], **options: Any) -> Any:
    def retriever(query: str) -> list[Any]:
        number = int(query.split()[1])
        if number % 7 == 3:
            raise RuntimeError("down")
        return [(f"d{(number * j) % 11}", 1.0 / (j + 1)) for j in range(1, 9)]

    return evaluate(retriever, cases, concurrency=1, timeout=None, **options)


@pytest.mark.parametrize(
    "options",
    [
        {"k": 5, "empty": "zero"},
        {"k": 3, "metrics": METRICS, "on_error": "zero", "empty": "zero"},
        {"k": None, "metrics": ["mrr", "recall", "r_precision"], "empty": "skip"},
        {"k": 4, "metrics": ["precision", "ndcg"], "empty": "zero", "tags": ["x"]},
    ],
)
def test_a_run_gives_the_same_result_either_way(
    options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(4)
    cases: list[dict[str, Any]] = []
    for i in range(120):
        case: dict[str, Any] = {"id": f"c{i}", "query": f"q {i}", "tags": [rng.choice("xy")]}
        if i % 9:
            case["expected_ids"] = [f"d{rng.randint(0, 10)}" for _ in range(2)]
        if i % 5 == 0:
            case["relevance"] = {f"d{rng.randint(0, 10)}": rng.randint(0, 3)}
        cases.append(case)
    quick = _run(cases, **options)
    monkeypatch.setattr(case_scoring, "_score_by_ids", lambda *args: None)
    general = _run(cases, **options)
    timed = ("latency_p50_ms", "latency_p95_ms", "latency_max_ms")
    assert {n: v for n, v in quick.metrics.items() if n not in timed} == {
        n: v for n, v in general.metrics.items() if n not in timed
    }
    assert list(quick.metrics) == list(general.metrics)
    for got, want in zip(quick.cases, general.cases, strict=True):
        assert (got.id, got.status, got.error, got.n_relevant, got.mode, got.hits) == (
            want.id,
            want.status,
            want.error,
            want.n_relevant,
            want.mode,
            want.hits,
        )
        assert repr(got.values) == repr(want.values)


def test_paused_blocks_settle_what_they_built_only_inside_a_run() -> None:
    before = gc.get_freeze_count()
    with no_collections():
        kept = [[i] for i in range(1000)]
    assert gc.get_freeze_count() == before  # outside a run: nothing frozen for good
    with fewer_collections():
        frozen = gc.get_freeze_count()
        with no_collections():
            kept += [[i] for i in range(1000)]
        assert gc.get_freeze_count() >= frozen + 1000
    assert gc.get_freeze_count() == 0
    assert gc.isenabled()


def test_case_results_are_made_when_first_read_and_equal_the_general_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """evaluate() that nobody reads per case makes no case result; a read (or a copy, a
    pickle, an equality) makes them all, the same as the general path's."""
    import copy
    import pickle

    cases = [{"id": f"c{i}", "query": f"q {i}", "expected_ids": [f"d{i % 5}"]} for i in range(60)]

    def alive() -> int:
        return sum(1 for o in gc.get_objects() if type(o) is CaseResult)

    def ranking(query: str) -> list[str]:
        return [f"d{(int(query.split()[1]) + j) % 7}" for j in range(6)]

    gc.collect()
    before = alive()
    quick = evaluate(ranking, cases, concurrency=1, timeout=None)
    assert alive() == before
    assert quick.metrics["mrr@10"] > 0
    pickled = pickle.loads(pickle.dumps(evaluate(ranking, cases, concurrency=1, timeout=None)))
    copied = copy.deepcopy(evaluate(ranking, cases, concurrency=1, timeout=None))
    assert len(quick.cases) == 60
    assert alive() >= before + 60
    monkeypatch.setattr(case_scoring, "_score_by_ids", lambda *args: None)
    general = evaluate(ranking, cases, concurrency=1, timeout=None)
    for other in (pickled, copied, general):
        assert [c.to_dict() for c in other.cases] == [
            {**c.to_dict(), "latency_ms": o.latency_ms}
            for c, o in zip(quick.cases, other.cases, strict=True)
        ]
    assert quick.per_case("mrr") == general.per_case("mrr")
