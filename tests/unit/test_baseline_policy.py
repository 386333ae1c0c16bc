"""The baseline comparison policy: tolerance, direction, significance, not comparable, update."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from baseline_data import make_result, per_case, settings, stored

from pytest_ragcheck.evaluation.result import Result
from pytest_ragcheck.gate.verdict import (
    BaselineComparison,
    MetricCheck,
    Verdict,
    check_floors,
    compare_with_baseline,
)

#: Eight cases at MRR 1.0: the baseline of most tests below.
BEFORE = [1.0] * 8


def compare(
    before: list[float], after: list[float], **kwargs: Any
) -> tuple[Result, BaselineComparison]:
    marker = kwargs.pop("marker", {})
    base = make_result(per_case("mrr@10", before))
    now = make_result(per_case("mrr@10", after))
    return now, compare_with_baseline(now, stored(base), settings(**marker), **kwargs)


def test_unchanged_rerun_passes_with_zero_delta() -> None:
    _, comparison = compare(BEFORE, BEFORE)
    check = comparison.checks["mrr@10"]
    assert comparison.comparable
    assert check.status == "pass"
    assert check.delta == 0.0
    assert check.baseline == 1.0
    assert check.allowed == 0.02
    assert check.p_value == 1.0
    assert check.ci == (0.0, 0.0)
    assert not comparison.problems
    assert not comparison.notes


def test_drop_beyond_tolerance_regresses_with_p_value_and_worst_cases() -> None:
    after = [1.0, 0.5, 1.0, 0.25, 1.0, 1.0, 0.5, 1.0]
    _, comparison = compare(BEFORE, after)
    check = comparison.checks["mrr@10"]
    assert check.status == "regressed"
    assert check.failed
    assert check.delta == pytest.approx(-0.2188)  # of the stored (rounded) aggregates
    assert check.p_value == pytest.approx(1 / 8)  # 3 changed cases, all worse: 2**-3
    assert check.ci is not None
    assert check.ci[0] < -0.21875 < check.ci[1] < 0
    line = check.regression_line()
    assert line.startswith("mrr@10: 1.000 → 0.781 (Δ −0.219, allowed 0.020, p=0.125, 95% CI [")
    assert [c.id for c in comparison.case_changes] == ["q04", "q02", "q07"]
    worst = comparison.case_changes[0]
    assert (worst.metric, worst.before, worst.after, worst.query) == (
        "mrr@10",
        1.0,
        0.25,
        "query q04",
    )


def test_drop_within_tolerance_passes() -> None:
    before = [0.5] * 10
    after = [0.5] * 9 + [0.35]  # mean drops by 0.015
    _, comparison = compare(before, after)
    check = comparison.checks["mrr@10"]
    assert check.status == "pass"
    assert check.delta == pytest.approx(-0.015)
    assert not comparison.case_changes


def test_tolerance_edge_is_allowed() -> None:
    before = [0.5] * 10
    after = [0.5] * 9 + [0.3]  # exactly the allowed 0.02
    _, comparison = compare(before, after)
    assert comparison.checks["mrr@10"].status == "pass"


@pytest.mark.parametrize(
    ("marker", "status"),
    [
        ({"tolerance": 0.3}, "pass"),
        ({"tolerances": {"mrr": 0.3}}, "pass"),
        ({"tolerance": 0.3, "tolerances": {"mrr@10": 0.01}}, "regressed"),
    ],
)
def test_tolerance_and_per_metric_tolerances(marker: dict[str, object], status: str) -> None:
    _, comparison = compare(BEFORE, [1.0, 0.5, 1.0, 0.25, 1.0, 1.0, 0.5, 1.0], marker=marker)
    assert comparison.checks["mrr@10"].status == status


def test_improvement_passes_and_is_pointed_out() -> None:
    _, comparison = compare([0.5] * 8, [1.0] * 8)
    check = comparison.checks["mrr@10"]
    assert check.status == "improved"
    assert not check.failed
    assert not comparison.problems
    assert comparison.improved == ["mrr@10"]
    (note,) = comparison.notes
    assert note.startswith("improved beyond tolerance: mrr@10: 0.500 → 1.000 (Δ +0.500")
    assert "pytest --snapshot-update" in note


def test_fail_on_improvement_asks_for_a_refresh() -> None:
    _, comparison = compare([0.5] * 8, [1.0] * 8, fail_on_improvement=True)
    assert comparison.checks["mrr@10"].status == "improved"
    (problem,) = comparison.problems
    assert "ragcheck_fail_on_improvement is set" in problem
    assert "mrr@10: 0.500 → 1.000" in problem
    assert "Record the improvement: `pytest --snapshot-update`" in problem


def test_lower_is_better_metric_regresses_when_it_rises() -> None:
    before = make_result(per_case("mrr@10", [0.2] * 8))
    now = make_result(per_case("mrr@10", [0.6] * 8))
    lower = {"mrr@10": MetricCheck(name="mrr@10", value=0.6, higher_is_better=False)}
    comparison = compare_with_baseline(now, stored(before), settings(), checks=lower)
    check = comparison.checks["mrr@10"]
    assert check.status == "regressed"
    assert check.higher_is_better is False
    assert [c.id for c in comparison.case_changes][:2] == ["q01", "q02"]
    falling = compare_with_baseline(before, stored(now), settings(), checks=lower)
    assert falling.checks["mrr@10"].status == "improved"


def test_significance_lets_a_small_noisy_drop_pass() -> None:
    # Five cases changed, two up and three down: the mean drops by 0.0625, but a coin flip
    # explains it (p=0.5), and five changed cases can reach p <= 0.05 (1/32).
    before = [0.5] * 8
    after = [1.0, 1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.5]
    _, gated = compare(before, after, marker={"significance": 0.05})
    check = gated.checks["mrr@10"]
    assert check.status == "pass"
    assert check.p_value == pytest.approx(0.5)
    assert "not significant: p=0.5 > significance 0.05 (5 cases changed)" in check.note
    # The check's row says it; no note repeats it.
    assert not any("not significant" in n for n in gated.notes)
    assert not gated.case_changes
    _, ungated = compare(before, after, marker={"significance": None})
    assert ungated.checks["mrr@10"].status == "regressed"


def test_too_few_changed_cases_are_judged_by_tolerance_alone() -> None:
    # One case of eight lost its hit: no paired test can reach p <= 0.05 with one change
    # (its smallest p is 0.5), so the tolerance alone decides, and the note says so.
    after = [1.0] * 7 + [0.0]
    _, gated = compare(BEFORE, after, marker={"significance": 0.05})
    check = gated.checks["mrr@10"]
    assert check.status == "regressed"
    assert check.p_value == pytest.approx(0.5)
    assert check.note == (
        "judged by tolerance alone: only 1 case(s) changed, too few for the paired test to "
        "reach p ≤ 0.05"
    )
    assert [c.id for c in gated.case_changes] == ["q08"]


def test_significance_still_fails_a_real_drop() -> None:
    after = [0.5] * 6 + [0.0] * 2  # every case got worse
    _, comparison = compare(BEFORE, after, marker={"significance": 0.05})
    check = comparison.checks["mrr@10"]
    assert check.status == "regressed"
    assert check.p_value is not None
    assert check.p_value <= 0.05


def test_floor_violation_keeps_its_status_and_notes_the_regression() -> None:
    now = make_result(per_case("mrr@10", [0.5] * 8))
    marker = {"min_mrr": 0.9}
    floors = check_floors(now, settings(**marker))
    base = make_result(per_case("mrr@10", BEFORE))
    comparison = compare_with_baseline(now, stored(base), settings(**marker), checks=floors.checks)
    check = comparison.checks["mrr@10"]
    assert check.status == "below_floor"
    assert check.bound == 0.9
    assert check.note.startswith("also regressed against the baseline: mrr@10: 1.000 → 0.500")
    floors.merge(comparison)
    message = floors.message(now)
    assert "mrr@10: 0.500 < 0.900 (floor)" in message
    assert "also regressed against the baseline" in message


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            {"metric": "ndcg@10"},
            "no metric is shared with the baseline (baseline: mrr@10; this run: ndcg@10)",
        ),
        (
            {"prefix": "x"},
            "no case is shared with the baseline (8 added (x01, x02, x03, x04, x05, …), "
            "8 removed (q01, q02, q03, q04, q05, …))",
        ),
    ],
)
def test_nothing_shared_is_not_comparable(change: dict[str, Any], reason: str) -> None:
    base = make_result(per_case("mrr@10", BEFORE))
    metric = str(change.get("metric", "mrr@10"))
    now = make_result(per_case(metric, [1.0] * 8, prefix=str(change.get("prefix", "q"))))
    comparison = compare_with_baseline(
        now, stored(base), settings(), source="__ragcheck__/t/x.json"
    )
    assert not comparison.comparable
    assert comparison.reasons == (reason,)
    (problem,) = comparison.problems
    assert problem.startswith(f"baseline not comparable: {reason}")
    assert "re-run with --snapshot-update" in problem
    assert "__ragcheck__/t/x.json" in problem
    assert not comparison.checks
    updating = compare_with_baseline(now, stored(base), settings(), update=True)
    assert not updating.problems
    assert updating.notes == [f"baseline re-recorded ({'; '.join(updating.reasons)})"]


def test_k_change_and_added_cases_still_compare_on_what_is_shared() -> None:
    base = make_result(per_case("mrr@10", BEFORE))
    # k=5 as the default cutoff, but the named metric is the same: still comparable.
    now = make_result(per_case("mrr@10", [*BEFORE, 0.0, 0.0]), k=5)
    comparison = compare_with_baseline(now, stored(base), settings())
    assert comparison.comparable
    assert comparison.match is not None
    assert comparison.match.added == ("q09", "q10")
    check = comparison.checks["mrr@10"]
    assert check.status == "pass"  # the two new zero cases are not compared
    assert check.delta == 0.0
    assert check.compared == 1.0
    assert check.value == pytest.approx(0.8)
    assert comparison.notes[0] == (
        "golden set changed since the baseline: 2 added (q09, q10); compared on the 8 "
        "shared case(s)"
    )


def test_update_mode_never_regresses_and_says_what_moved() -> None:
    _, comparison = compare(BEFORE, [0.5] * 8, update=True)
    check = comparison.checks["mrr@10"]
    assert check.status == "pass"
    assert check.delta == -0.5
    assert not comparison.problems
    assert comparison.notes == ["baseline re-recorded: mrr@10 1.000 → 0.500"]


def test_values_are_compared_as_stored() -> None:
    # 1/3 is stored as 0.3333; the same run again must compare equal, not off by 3e-5.
    result = make_result(per_case("mrr@10", [1 / 3, 2 / 3, 1 / 7]))
    comparison = compare_with_baseline(result, stored(result), settings(tolerance=0.0))
    assert comparison.checks["mrr@10"].delta == 0.0
    assert comparison.checks["mrr@10"].status == "pass"


def test_apply_and_message_show_regressions_cases_and_hint() -> None:
    now, comparison = compare(BEFORE, [1.0, 0.5, 1.0, 0.25, 1.0, 1.0, 0.5, 1.0])
    verdict = check_floors(
        now, settings(), header="golden.jsonl (8 cases, k=10)", nodeid="tests/test_rag.py::test_a"
    )
    verdict.merge(comparison)
    assert verdict.failed
    message = verdict.message(now)
    lines = message.splitlines()
    assert lines[0] == (  # three cases changed: too few for the paired test at 0.05
        "mrr@10 regressed (tolerance; too few changed cases to test) 1.000 → 0.781 (Δ −0.219) "
        "(ragcheck failed for golden.jsonl (8 cases, k=10))"
    )
    assert "Regressed against the baseline:" in lines
    assert any(
        line.startswith("  mrr@10: 1.000 → 0.781 (Δ −0.219, allowed 0.020, p=0.125")
        for line in lines
    )
    assert "  cases that got worse most (mrr@10, before → after):" in lines
    assert "    q04  'query q04'  1.000 → 0.250" in lines
    # 3 changed cases cannot reach p <= 0.05: the tolerance decides, and the message says so.
    assert (
        "    judged by tolerance alone: only 3 case(s) changed, too few for the paired test "
        "to reach p ≤ 0.05" in lines
    )
    assert lines[-1] == (
        "If this change is intended, re-record this test's baseline: "
        '`pytest "tests/test_rag.py::test_a" --snapshot-update` (and review the diff of '
        "__ragcheck__/)."
    )
    # The latency check from the floors is untouched by the baseline comparison.
    assert verdict.checks["latency_p95_ms"].baseline is None


def test_message_says_what_the_comparison_was_made_on() -> None:
    """Cases added since the baseline are named in the failure message, not only the summary."""
    base = make_result(per_case("mrr@10", BEFORE))
    now = make_result(per_case("mrr@10", [0.0] * 6 + [1.0] * 4))
    comparison = compare_with_baseline(now, stored(base), settings())
    verdict = check_floors(now, settings(), header="golden.jsonl (10 cases, k=10)")
    verdict.merge(comparison)
    assert verdict.golden_change == (
        "golden set changed since the baseline: 2 added (q09, q10); compared on the 8 "
        "shared case(s)"
    )
    lines = verdict.message(now).splitlines()
    assert lines[0].startswith("mrr@10 regressed 1.000 → 0.250 on 8 shared (Δ −0.750)")
    assert (
        "Golden set changed since the baseline: 2 added (q09, q10); compared on the 8 "
        "shared case(s)." in lines
    )
    # An unchanged golden set adds no such line.
    _, whole = compare(BEFORE, [0.0] * 8)
    plain = check_floors(now, settings())
    plain.merge(whole)
    assert plain.golden_change == ""
    assert not any(
        line.startswith("Golden set changed") for line in plain.message(now).splitlines()
    )


def test_several_metrics_pick_the_one_that_regressed_most_for_the_cases() -> None:
    base_values = {f"q{i}": {"mrr@10": 1.0, "recall@10": 1.0} for i in range(6)}
    now_values = {f"q{i}": {"mrr@10": 0.9, "recall@10": 0.5 if i < 2 else 1.0} for i in range(6)}
    base = make_result(base_values)
    now = make_result(now_values)
    comparison = compare_with_baseline(now, stored(base), settings(metrics=["mrr", "recall"]))
    assert sorted(comparison.regressed) == ["mrr@10", "recall@10"]
    assert {c.metric for c in comparison.case_changes} == {"recall@10"}  # dropped by 0.167 > 0.1
    assert [c.id for c in comparison.case_changes] == ["q0", "q1"]


def test_checks_are_frozen_copies() -> None:
    floors = {"mrr@10": MetricCheck(name="mrr@10", value=0.5)}
    _, comparison = compare(BEFORE, [0.5] * 8, checks=floors)
    assert floors["mrr@10"].baseline is None  # the input is not mutated
    assert dataclasses.is_dataclass(comparison.checks["mrr@10"])
    verdict = Verdict(checks=dict(floors))
    verdict.merge(comparison)
    assert verdict.checks["mrr@10"].status == "regressed"
