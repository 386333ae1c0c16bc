"""Judged@k by the labels rule, the judge's agreement with people, its consistency, the notes.

Case results are built by hand here (hits plus the judge's per-chunk details, as the judge
engine writes them), so every expected number is counted from the table in each test.
"""

from __future__ import annotations

from typing import Any

import pytest
from sklearn.metrics import cohen_kappa_score

from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.evaluation.keywords import build_settings
from pytest_ragcheck.evaluation.result import CaseResult, HitRecord
from pytest_ragcheck.evaluation.settings import Settings
from pytest_ragcheck.golden import GoldenCase
from pytest_ragcheck.judge.labels import label_kind, labels_of
from pytest_ragcheck.judge.trust import assess_trust
from pytest_ragcheck.metrics import judged

JUDGE = {"judge_model": "openai/judge-test"}


def _case(case_id: str, **fields: Any) -> GoldenCase:
    return GoldenCase(id=case_id, query=f"query {case_id}", **fields)


def _result(case_id: str, ids: list[str], **judge: list[Any]) -> CaseResult:
    """Hits ``ids`` in rank order; ``judge[name]`` is one answer per rank: "yes"/"no" for
    verdicts, an int or float for grades, ``None`` for a chunk the judge failed on, or
    ``("abstained", "yes")``."""
    result = CaseResult(id=case_id, query=f"query {case_id}")
    result.hits = [
        HitRecord(rank=i, id=doc, text=doc, score=None, grade=0) for i, doc in enumerate(ids, 1)
    ]
    for name, answers in judge.items():
        entries = []
        for rank, answer in enumerate(answers, 1):
            entry: dict[str, Any] = {"rank": rank, "reason": f"r{rank}", "cached": False}
            if answer is None:
                entry = {"rank": rank, "error": "judge call failed", "cached": False}
            else:
                if isinstance(answer, tuple):
                    entry["abstained"] = True
                    answer = answer[1]
                entry["verdict" if isinstance(answer, str) else "grade"] = answer
            entries.append(entry)
        result.judge[name.replace("_at_", "@")] = entries
    return result


def _settings(**marker: Any) -> Settings:
    return build_settings({**JUDGE, **marker})


def _assess(cases, results, settings, judge=None):
    return assess_trust(
        cases, {r.id: r for r in results}, settings, judge if judge is not None else {"calls": 0}
    )


# ---- the labels rule (SPEC §11) -------------------------------------------------------------


def test_which_documents_are_labelled():
    graded = _case("g", relevance={"a": 2, "b": 0}, expected_ids=["c"])
    binary = _case("b", expected_ids=["a"])
    spans = _case("t", expected_texts=["alpha"])
    assert [label_kind(c) for c in (graded, binary, spans)] == ["graded", "binary", "none"]
    assert labels_of(graded, ["a", "x"]) == {"a": 2, "b": 0, "c": 1}  # the listed documents
    assert labels_of(binary, ["x", "a", "y"]) == {"x": 0, "a": 1, "y": 0}  # every retrieved one
    assert labels_of(spans, ["a"]) is None


def test_judged_at_k_follows_the_labels_rule_and_is_added_for_graded_sets():
    cases = [
        _case("g", relevance={"a": 2, "b": 0, "z": 1}),
        _case("b", expected_ids=["a"]),
        _case("t", expected_texts=["alpha"]),
        _case("e", relevance={"a": 1}),
    ]
    results = [
        _result("g", ["a", "u", "b", "v"]),
        _result("b", ["x", "a"]),
        _result("t", ["a", "b"]),
        _result("e", []),
    ]
    results[3].status = "error"
    trust = _assess(cases, results, build_settings({"k": 3}), judge={})
    assert [s.name for s in trust.specs] == ["judged@3"]  # not asked for: added
    assert results[0].values == {
        "judged@3": judged(["a", "u", "b", "v"], {"a": 2, "b": 0, "z": 1}, 3)
    }
    assert results[0].values["judged@3"] == pytest.approx(2 / 3)
    assert results[1].values == {"judged@3": 1.0}  # only expected_ids: all labelled
    assert results[2].values == {}
    assert results[3].values == {}


def test_judged_is_not_added_without_graded_relevance_but_computed_when_asked():
    cases = [_case("b", expected_ids=["a"])]
    assert _assess(cases, [_result("b", ["a", "x"])], build_settings({}), judge={}).specs == []
    results = [_result("b", ["a", "x"])]
    results[0].values["judged@1"] = 0.5  # what the rank engine wrote without the labels rule
    trust = _assess(cases, results, build_settings({"metrics": ["judged@1"]}), judge={})
    assert trust.specs == []
    assert results[0].values == {"judged@1": 1.0}


# ---- judge_kappa ----------------------------------------------------------------------------

#: Nine labelled documents: (human grade, judge verdict) per rank; "u" is unlabelled.
LABELS = {"d1": 2, "d2": 0, "d3": 1, "d4": 0, "d5": 3, "d6": 0, "d7": 1, "d8": 0, "d9": 0}
RANKING = ["d1", "d2", "u", "d3", "d4", "d5", "d6", "d7", "d8", "d9"]
VERDICTS = ["yes", "no", "yes", "yes", "yes", "no", "no", "no", "no", "yes"]


def test_kappa_equals_sklearn_on_the_labelled_pairs_with_the_confusion_matrix():
    cases = [_case("q", relevance=LABELS)]
    results = [_result("q", RANKING, llm_relevancy_at_10=VERDICTS, llm_precision_at_5=VERDICTS[:5])]
    settings = _settings(k=10, metrics=["llm_relevancy", "llm_precision@5"])
    trust = _assess(cases, results, settings)
    human = [int(LABELS[d] >= 1) for d in RANKING if d != "u"]
    judge = [int(v == "yes") for d, v in zip(RANKING, VERDICTS, strict=True) if d != "u"]
    expected = cohen_kappa_score(human, judge)
    assert trust.values == {"judge_kappa": pytest.approx(expected, abs=1e-12)}
    assert [s.name for s in trust.specs] == ["judged@10", "judge_kappa"]
    (question,) = trust.agreement["questions"]
    assert question["question"] == "relevance"
    assert question["metrics"] == ["llm_precision@5", "llm_relevancy@10"]
    assert question["pairs"] == 9
    # humans relevant: d1 d3 d5 d7 -> judge yes, yes, no, no; not relevant: d2 d4 d6 d8 d9 -> no, yes, no, no, yes
    assert question["confusion"] == {"tp": 2, "fp": 2, "fn": 2, "tn": 3}
    assert question["base_rate"] == pytest.approx(4 / 9)
    assert question["judge_rate"] == pytest.approx(4 / 9)
    assert question["ci"][0] < expected < question["ci"][1]
    note = trust.metric_notes["judge_kappa"]
    assert "9 pairs" in note
    assert "base rate 44%" in note
    assert "TP 2 FP 2 FN 2 TN 3" in note


def test_errors_and_abstained_chunks_are_not_pairs():
    cases = [_case("q", relevance={"a": 1, "b": 0, "c": 1, "d": 0})]
    results = [
        _result(
            "q", ["a", "b", "c", "d"], llm_relevancy_at_4=["yes", "no", None, ("abstained", "no")]
        )
    ]
    trust = _assess(cases, results, _settings(k=4, metrics=["llm_relevancy"]))
    assert trust.agreement["questions"][0]["pairs"] == 2
    assert trust.values["judge_kappa"] == 1.0


def test_binary_labels_count_every_retrieved_document_and_spans_none():
    cases = [_case("b", expected_ids=["a"]), _case("t", expected_texts=["x"])]
    results = [
        _result("b", ["x", "a", "y"], llm_relevancy_at_3=["no", "yes", "yes"]),
        _result("t", ["p", "q"], llm_relevancy_at_3=["yes", "no"]),
    ]
    trust = _assess(cases, results, _settings(k=3, metrics=["llm_relevancy"]))
    assert trust.agreement["questions"][0]["confusion"] == {"tp": 1, "fp": 1, "fn": 0, "tn": 1}


def test_both_questions_the_lower_kappa_counts_and_grades_get_a_weighted_kappa():
    labels = {"a": 3, "b": 0, "c": 1, "d": 2, "e": 0}
    cases = [_case("q", relevance=labels)]
    grades = [3, 0, 2, 2, 1]
    results = [
        _result(
            "q",
            list(labels),
            llm_relevancy_at_5=["yes", "no", "yes", "yes", "no"],  # all agree
            llm_ndcg_at_5=grades,  # e: grade 1 -> says relevant, people say no
        )
    ]
    trust = _assess(cases, results, _settings(k=5, metrics=["llm_relevancy", "llm_ndcg"]))
    relevance, grade = trust.agreement["questions"]
    assert relevance["kappa"] == 1.0
    human = [int(g >= 1) for g in labels.values()]
    binary = cohen_kappa_score(human, [int(g >= 1) for g in grades])
    assert grade["kappa"] == pytest.approx(binary, abs=1e-12)
    assert trust.values["judge_kappa"] == pytest.approx(binary, abs=1e-12)
    weighted = cohen_kappa_score(
        list(labels.values()), grades, labels=[0, 1, 2, 3], weights="quadratic"
    )
    assert grade["weighted"]["kappa"] == pytest.approx(weighted, abs=1e-12)
    note = trust.metric_notes["judge_kappa"]
    assert note.startswith("relevance: κ 1.000")
    assert "; grade: κ" in note
    assert "weighted κ of grades" in note


def test_grades_outside_0_to_3_make_only_the_weighted_kappa_undefined():
    cases = [_case("q", relevance={"a": 4, "b": 0, "c": -1})]
    results = [_result("q", ["a", "b", "c"], llm_ndcg_at_3=[3, 0, 1])]
    trust = _assess(cases, results, _settings(k=3, metrics=["llm_ndcg"]))
    assert "judge_kappa" in trust.values
    weighted = trust.agreement["questions"][0]["weighted"]
    assert weighted["kappa"] is None
    assert "case 'q' document 'a' grade 4" in weighted["undefined"]
    assert "document 'c' grade -1" in weighted["undefined"]
    assert any("weighted κ of the llm_ndcg grades is undefined" in n for n in trust.notes)


@pytest.mark.parametrize(
    ("labels", "verdicts", "reason"),
    [
        ({"z": 1}, ["yes", "no"], "the judge saw no document with a human label"),
        (
            {"a": 1, "b": 2},
            ["yes", "no"],
            "all 2 labelled documents the judge saw are relevant for the people",
        ),
        ({"a": 0, "b": 0}, ["yes", "no"], "are not relevant for the people"),
        ({"a": 1, "b": 0}, ["yes", "yes"], "the judge said yes to all 2 labelled documents"),
    ],
)
def test_undefined_kappa_says_why_and_fails_only_a_gate(labels, verdicts, reason):
    cases = [_case("q", relevance=labels)]

    def run(**marker: Any):
        results = [_result("q", ["a", "b"], llm_relevancy_at_2=verdicts)]
        return _assess(cases, results, _settings(k=2, metrics=["llm_relevancy"], **marker))

    plain = run()
    assert plain.values == {}
    # judged@2 only when it says something (a top-2 document labelled not relevant, or not
    # labelled); no judge_kappa in any case
    says = any(labels.get(doc, 0) < 1 for doc in ("a", "b"))
    assert [s.name for s in plain.specs] == (["judged@2"] if says else [])
    assert plain.agreement["kappa"] is None
    assert any(n.startswith("judge_kappa is undefined: ") and reason in n for n in plain.notes)
    assert plain.problems == []
    gated = run(min_judge_kappa=0.6)
    assert len(gated.problems) == 1
    assert gated.problems[0].startswith(
        "min_judge_kappa=0.6 cannot be checked: judge_kappa is undefined"
    )
    assert reason in gated.problems[0]


def test_a_set_without_labels_says_nothing_about_kappa():
    cases = [_case("t", expected_texts=["x"])]
    results = [_result("t", ["p"], llm_relevancy_at_1=["yes"])]
    trust = _assess(cases, results, _settings(k=1, metrics=["llm_relevancy"]))
    assert (trust.values, trust.notes, trust.agreement) == ({}, [], None)


# ---- judge_consistency ----------------------------------------------------------------------


def test_consistency_from_the_tally_with_the_abstain_note():
    cases = [_case("q", expected_texts=["x"])]
    results = [_result("q", ["p"], llm_relevancy_at_1=["yes"])]
    settings = _settings(
        k=1, metrics=["llm_relevancy"], judge_samples=3, judge_disagreement="abstain"
    )
    judge = {"samples": {"items": 40, "agreeing": 30, "abstained": 10}}
    trust = _assess(cases, results, settings, judge)
    assert trust.values == {"judge_consistency": 0.75}
    assert trust.metric_notes["judge_consistency"] == "30 of 40 judged items agree across 3 samples"
    assert any(
        "10 of 40 judged items left out because their 3 samples disagree" in n for n in trust.notes
    )


def test_a_floor_left_without_values_by_abstaining_fails():
    cases = [_case("q", expected_texts=["x"])]
    results = [_result("q", ["p"])]  # every verdict was left out: no value
    settings = _settings(k=1, judge_samples=2, judge_disagreement="abstain", min_llm_relevancy=0.5)
    judge = {"samples": {"items": 1, "agreeing": 0, "abstained": 1}}
    trust = _assess(cases, results, settings, judge)
    assert trust.problems == [
        "min_llm_relevancy@1=0.5 cannot be checked: no case has a value, every judged item of "
        "it was left out (1 items' samples disagree and judge_disagreement='abstain')."
    ]


def test_no_sampled_item_leaves_consistency_undefined():
    cases = [_case("q", expected_texts=["x"])]
    settings = _settings(k=1, metrics=["llm_relevancy"], judge_samples=2, min_judge_consistency=0.9)
    trust = _assess(cases, [_result("q", [])], settings, {"samples": None})
    assert trust.values == {}
    assert trust.problems == [
        "min_judge_consistency=0.9 cannot be checked: judge_consistency is undefined: no judged "
        "item has all of its samples answered."
    ]


# ---- bad marker keywords --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ({"min_judge_kappa": 0.6}, "judge_kappa compares the judge's relevance verdicts"),
        (
            {"metrics": ["rerank_relevancy"], "min_judge_kappa": 0.6},
            "add llm_relevancy, llm_precision or llm_ndcg",
        ),
        (
            {"metrics": ["llm_relevancy"], "min_judge_consistency": 0.8},
            "needs a judge metric (e.g. llm_relevancy) and judge_samples >= 2",
        ),
        (
            {"min_judge_consistency": 0.8, "judge_samples": 3},
            "judge_consistency (min_judge_consistency)",
        ),
        (
            {"metrics": ["llm_relevancy"], "judge_disagreement": "abstian", "judge_samples": 3},
            "did you mean 'abstain'",
        ),
        (
            {"metrics": ["llm_relevancy"], "judge_disagreement": "abstain"},
            "needs judge_samples >= 2 (got judge_samples=1)",
        ),
    ],
)
def test_bad_judge_trust_keywords_are_usage_errors(marker, message):
    with pytest.raises(ConfigError) as info:
        build_settings({**JUDGE, **marker})
    assert message in str(info.value)


def test_gates_and_the_disagreement_setting_are_read():
    settings = _settings(
        metrics=["llm_relevancy"], judge_samples=3, judge_disagreement="abstain",
        min_judge_kappa=0.6, min_judge_consistency=0.9,
    )  # fmt: skip
    assert settings.judge.disagreement == "abstain"
    assert {t.name: t.bound for t in settings.thresholds} == {
        "judge_kappa": 0.6,
        "judge_consistency": 0.9,
    }
    assert _settings(metrics=["llm_relevancy"]).judge.disagreement == "vote"
