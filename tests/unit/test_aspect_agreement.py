"""``aspect_kappa``: the judge's aspect coverage against human subtopics, per retrieved chunk.

Case results are built by hand (hits plus the aspect metrics' details as the judge scorer
writes them: the aspects list first, then one entry per chunk with ``covers`` or ``error``);
κ is checked against scikit-learn on generated runs.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from sklearn.metrics import cohen_kappa_score

from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.evaluation.keywords import build_settings
from pytest_ragcheck.evaluation.result import CaseResult, HitRecord
from pytest_ragcheck.evaluation.settings import Settings
from pytest_ragcheck.golden import GoldenCase
from pytest_ragcheck.judge.aspect_agreement import aspect_pairs, aspect_question
from pytest_ragcheck.judge.trust import Trust, assess_trust

JUDGE = {"judge_model": "openai/judge-test"}
ASPECTS = [["a1", "about a1"], ["a2", "about a2"]]


def _case(case_id: str, **fields: Any) -> GoldenCase:
    fields.setdefault("expected_ids", ["x"])
    return GoldenCase(id=case_id, query=f"query {case_id}", **fields)


def _result(case_id: str, hits: list[tuple[str, str]], **covers: list[Any]) -> CaseResult:
    """``hits`` as (id, text); ``covers[metric]`` one list of aspect ids per rank, or
    ``None`` for a chunk the judge failed on."""
    result = CaseResult(id=case_id, query=f"query {case_id}")
    result.hits = [
        HitRecord(rank=i, id=doc, text=text, score=None, grade=0)
        for i, (doc, text) in enumerate(hits, 1)
    ]
    for name, marks in covers.items():
        entries: list[dict[str, Any]] = [{"aspects": ASPECTS}]
        for rank, found in enumerate(marks, 1):
            if found is None:
                entries.append({"rank": rank, "error": "judge call failed", "cached": False})
            else:
                entries.append({"rank": rank, "covers": found, "cached": False})
        result.judge[name.replace("_at_", "@")] = entries
    return result


def _settings(**marker: Any) -> Settings:
    return build_settings({**JUDGE, **marker})


def _assess(cases: list[GoldenCase], results: list[CaseResult], settings: Settings) -> Trust:
    return assess_trust(cases, {r.id: r for r in results}, settings, {"calls": 0})


def test_each_judged_chunk_is_one_pair_whatever_the_metrics_that_judged_it() -> None:
    case = _case("q", subtopics={"car": {"d1": 1, "d2": 0}, "cat": {"d3": 2}})
    hits = [("d1", "t1"), ("d2", "t2"), ("u", "t3"), ("d3", "t4")]
    result = _result(
        "q",
        hits,
        llm_aspect_recall_at_4=[["a1"], [], ["a2"], None],  # the judge failed on rank 4
        llm_alpha_ndcg_at_2=[["a1"], []],
    )
    specs = _settings(metrics=["llm_aspect_recall@4", "llm_alpha_ndcg@2"]).metrics
    pairs = list(aspect_pairs(case, result, specs))
    # d1 covers "car"; d2 is judged 0 on it and u is listed nowhere: both cover no subtopic
    assert [(p.rank, p.doc_id, p.human, p.judge) for p in pairs] == [
        (1, "d1", True, True),
        (2, "d2", False, False),
        (3, "u", False, True),
    ]
    assert pairs[0].metrics == ("llm_aspect_recall@4", "llm_alpha_ndcg@2")
    assert pairs[2].metrics == ("llm_aspect_recall@4",)
    assert list(aspect_pairs(_case("n"), result, specs)) == []  # no subtopics: no pairs


def test_span_subtopics_label_a_chunk_that_contains_one_of_their_spans() -> None:
    case = _case("s", expected_ids=[], expected_texts=["x"], subtopic_texts={"car": ["The  XK"]})
    hits = [("h1", "about the xk engine"), ("h2", "nothing here"), ("h3", "THE XK again")]
    result = _result("s", hits, llm_aspect_recall_at_3=[["a1"], ["a2"], []])
    specs = _settings(metrics=["llm_aspect_recall@3"]).metrics
    # a later chunk repeating a span still covers the subtopic (unlike span recall's rule)
    assert [(p.human, p.judge) for p in aspect_pairs(case, result, specs)] == [
        (True, True),
        (False, True),
        (True, False),
    ]


def _generated(seed: int) -> tuple[list[GoldenCase], list[CaseResult], list[int], list[int]]:
    """A run of random cases and marks, with the human and judge labels counted separately."""
    rng = random.Random(seed)
    cases, results, human, judge = [], [], [], []
    for index in range(rng.randint(1, 12)):
        docs = [f"d{j}" for j in range(12)]
        subtopics = {
            f"s{t}": {d: rng.choice([0, 1, 2]) for d in rng.sample(docs, rng.randint(1, 4))}
            for t in range(rng.randint(1, 3))
        }
        case_id = f"c{index}"
        with_subtopics = rng.random() < 0.8
        cases.append(_case(case_id, subtopics=subtopics if with_subtopics else {}))
        ranking = rng.sample(docs, rng.randint(0, 8))
        marks: list[Any] = [
            None if rng.random() < 0.1 else rng.sample(["a1", "a2"], rng.randint(0, 2))
            for _ in ranking
        ]
        results.append(_result(case_id, [(d, d) for d in ranking], llm_aspect_recall_at_8=marks))
        if with_subtopics:
            for doc, mark in zip(ranking, marks, strict=True):
                if mark is not None:
                    human.append(int(any(g.get(doc, 0) >= 1 for g in subtopics.values())))
                    judge.append(int(bool(mark)))
    return cases, results, human, judge


def test_kappa_equals_sklearn_on_generated_runs() -> None:
    specs = _settings(metrics=["llm_aspect_recall@8"]).metrics
    checked = 0
    for seed in range(300):
        cases, results, human, judge = _generated(seed)
        question = aspect_question(list(zip(cases, results, strict=True)), specs)
        assert question["pairs"] == len(human)
        c = question["confusion"]
        assert c["tp"] + c["fn"] == sum(human)
        assert c["tp"] + c["fp"] == sum(judge)
        defined = 0 < sum(human) < len(human) and 0 < sum(judge) < len(judge)
        if not defined:
            assert question["kappa"] is None
            assert question["undefined"]
            continue
        assert question["kappa"] == pytest.approx(cohen_kappa_score(human, judge), abs=1e-12)
        assert question["ci"][0] <= question["kappa"] <= question["ci"][1]
        checked += 1
    assert checked > 150


def test_aspect_kappa_is_added_to_the_run_with_its_report_fields() -> None:
    cases = [
        _case("q", subtopics={"car": ["d1", "d3"], "cat": ["d4"]}),
        _case("n"),  # no subtopics: no pairs
    ]
    hits = [("d1", "t"), ("d2", "t"), ("d3", "t"), ("d4", "t"), ("d5", "t")]
    marks = [["a1"], ["a2"], [], ["a1", "a2"], []]
    results = [
        _result("q", hits, llm_aspect_recall_at_5=marks),
        _result("n", hits, llm_aspect_recall_at_5=marks),
    ]
    trust = _assess(cases, results, _settings(k=5, metrics=["llm_aspect_recall"]))
    expected = cohen_kappa_score([1, 0, 1, 1, 0], [1, 1, 0, 1, 0])
    assert trust.values == {"aspect_kappa": pytest.approx(expected, abs=1e-12)}
    assert [s.name for s in trust.specs] == ["aspect_kappa"]  # not asked for: added
    info = trust.info({"calls": 0})
    question = info["judge"]["aspect_agreement"]
    assert "agreement" not in info["judge"]  # no relevance question was asked
    assert question["pairs"] == 5
    assert question["cases"] == 1
    assert question["confusion"] == {"tp": 2, "fp": 1, "fn": 1, "tn": 1}
    assert question["base_rate"] == pytest.approx(3 / 5)
    assert question["metrics"] == ["llm_aspect_recall@5"]
    assert "5 pairs" in trust.metric_notes["aspect_kappa"]
    assert "TP 2 FP 1 FN 1 TN 1" in trust.metric_notes["aspect_kappa"]


def test_undefined_aspect_kappa_is_a_note_or_fails_its_floor() -> None:
    cases = [_case("q", subtopics={"car": ["d1", "d2"]})]
    results = [_result("q", [("d1", "t"), ("d2", "t")], llm_aspect_recall_at_2=[["a1"], []])]
    trust = _assess(cases, results, _settings(k=2, metrics=["llm_aspect_recall"]))
    assert trust.values == {}
    assert trust.notes == [
        "aspect_kappa is undefined: each of the 2 chunks the judge marked covers some subtopic "
        "for the people, so κ cannot tell agreement from chance; add cases (or subtopics) "
        "whose top k mixes both"
    ]
    gated = _settings(k=2, metrics=["llm_aspect_recall"], min_aspect_kappa=0.5)
    trust = _assess(cases, results, gated)
    assert trust.problems[0].startswith("min_aspect_kappa=0.5 cannot be checked")
    # a set without subtopics: nothing to compare with, nothing said unless it is gated
    plain = [_case("q")]
    assert _assess(plain, results, _settings(k=2, metrics=["llm_aspect_recall"])).notes == []
    trust = _assess(plain, results, gated)
    assert "no case with subtopics" in trust.problems[0]


def test_aspect_kappa_without_an_aspect_metric_is_a_usage_error() -> None:
    with pytest.raises(ConfigError, match="add llm_aspect_recall or llm_alpha_ndcg"):
        _settings(metrics=["llm_relevancy", "aspect_kappa"])
