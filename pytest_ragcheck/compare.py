"""Comparing a result with its stored baseline: tolerance, direction, significance.

The comparison is one-sided: a metric that got worse by more than its tolerance regresses
(unless ``significance`` is set and the paired test says the drop may be noise); a metric that
got better by more than its tolerance passes and is pointed out. Pure: no pytest, no syrupy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from pytest_ragcheck.baseline_doc import BaselineDoc, round_value
from pytest_ragcheck.checks import UPDATE_HINT, WORST_CASES, CaseChange, MetricCheck
from pytest_ragcheck.display import format_value

if TYPE_CHECKING:
    from pytest_ragcheck.config import Settings
    from pytest_ragcheck.names import MetricSpec
    from pytest_ragcheck.policy import Verdict
    from pytest_ragcheck.result import Result
    from pytest_ragcheck.stats import Alternative, PairedTest

__all__ = [
    "BaselineComparison",
    "baseline_differences",
    "compare_with_baseline",
    "not_comparable_message",
]


@dataclass(frozen=True, slots=True)
class BaselineComparison:
    """The outcome of comparing a result with a stored baseline (see ``compare_with_baseline``)."""

    #: False when the golden set, k or the metric list changed: the numbers mean other things.
    comparable: bool
    #: What changed, when not comparable ("k changed (10 → 5)").
    reasons: tuple[str, ...] = ()
    #: Every metric's check with the baseline fields filled in.
    checks: dict[str, MetricCheck] = field(default_factory=dict)
    case_changes: list[CaseChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def regressed(self) -> list[str]:
        return [n for n, c in self.checks.items() if c.status == "regressed"]

    @property
    def improved(self) -> list[str]:
        return [n for n, c in self.checks.items() if c.status == "improved"]

    def apply(self, verdict: Verdict) -> None:
        """Merge into ``verdict`` (checks replaced, problems/notes/case changes appended)."""
        verdict.checks.update(self.checks)
        verdict.problems.extend(self.problems)
        verdict.notes.extend(self.notes)
        if self.case_changes:
            verdict.case_changes = list(self.case_changes)


def not_comparable_message(reasons: Sequence[str], source: str = "") -> str:
    where = f"\n  baseline file: {source}" if source else ""
    return (
        f"baseline not comparable: {'; '.join(reasons)}; re-run with --snapshot-update "
        f"to record a new baseline (and review the diff){where}"
    )


def baseline_differences(stored: BaselineDoc, current: BaselineDoc) -> list[str]:
    """What makes ``current`` not comparable with ``stored`` (empty when comparable)."""
    reasons: list[str] = []
    if stored.golden_hash != current.golden_hash or stored.n_cases != current.n_cases:
        detail = [f"content hash {stored.golden_hash[:12]} → {current.golden_hash[:12]}"]
        if stored.n_cases != current.n_cases:
            detail.append(f"{stored.n_cases} → {current.n_cases} cases")
        reasons.append(f"the golden set changed ({', '.join(detail)})")
    if stored.k != current.k:
        reasons.append(f"k changed ({_k_text(stored.k)} → {_k_text(current.k)})")
    if set(stored.metrics) != set(current.metrics):
        added = sorted(set(current.metrics) - set(stored.metrics))
        removed = sorted(set(stored.metrics) - set(current.metrics))
        parts = []
        if added:
            parts.append("added " + ", ".join(added))
        if removed:
            parts.append("removed " + ", ".join(removed))
        reasons.append(f"the metric list changed ({'; '.join(parts)})")
    if not reasons and set(stored.cases) != set(current.cases):
        only_stored = len(set(stored.cases) - set(current.cases))
        only_current = len(set(current.cases) - set(stored.cases))
        reasons.append(
            f"the scored cases differ ({only_stored} only in the baseline, "
            f"{only_current} only in this run)"
        )
    return reasons


def _k_text(k: int | None) -> str:
    return "all" if k is None else str(k)


def compare_with_baseline(
    result: Result,
    stored: BaselineDoc,
    settings: Settings,
    *,
    update: bool = False,
    fail_on_improvement: bool = False,
    precision: int | None = None,
    checks: Mapping[str, MetricCheck] | None = None,
    source: str = "",
) -> BaselineComparison:
    """Compare ``result`` with the ``stored`` baseline.

    Values are compared as they would be stored (rounded to ``precision``, default the stored
    one), so an unchanged rerun has a delta of exactly 0. ``checks`` are the floor checks to
    extend (``check_floors``); a floor violation keeps its status and notes the regression.
    With ``update=True`` (``--snapshot-update``) nothing regresses: the values are re-recorded,
    and the notes say what moved. Pure: no pytest, no syrupy.
    """
    current = BaselineDoc.from_result(
        result, precision=stored.precision if precision is None else precision
    )
    base_checks = dict(checks) if checks is not None else {}
    reasons = baseline_differences(stored, current)
    if reasons:
        return BaselineComparison(
            comparable=False,
            reasons=tuple(reasons),
            notes=[f"baseline re-recorded ({'; '.join(reasons)})"] if update else [],
            problems=[] if update else [not_comparable_message(reasons, source)],
        )

    specs = {s.name: s for s in result.specs}
    names = list(current.metrics)
    case_ids = sorted(current.cases)
    tests = _paired(stored, current, names, case_ids, specs)

    out_checks: dict[str, MetricCheck] = {}
    notes: list[str] = []
    problems: list[str] = []
    improved_lines: list[str] = []
    moved: list[str] = []
    worst: tuple[float, str] | None = None
    for name in names:
        higher = _higher_is_better(name, base_checks, specs)
        before = stored.aggregates[name]
        after = current.aggregates[name]
        delta = round_value(after - before, current.precision + 2)
        worse_by = -delta if higher else delta
        allowed = settings.allowed_drop(name)
        test = tests[name]
        check = base_checks.get(name) or MetricCheck(
            name=name, value=result.metrics.get(name, after), higher_is_better=higher
        )
        check = replace(
            check,
            baseline=before,
            delta=delta,
            allowed=allowed,
            p_value=test.p_value,
            ci=test.ci,
        )
        beyond = abs(delta) > allowed + _EPS
        significant = settings.significance is None or test.p_value <= settings.significance
        if update:
            if delta != 0.0:
                moved.append(f"{name} {format_value(before)} → {format_value(after)}")
        elif beyond and worse_by > 0:
            if not significant:
                note = _noise_note(test, settings.significance, drop=True)
                check = replace(check, note=note)
                notes.append(f"{check.regression_line()}: dropped beyond tolerance but {note}")
            elif check.failed:
                check = replace(
                    check, note=f"also regressed against the baseline: {check.regression_line()}"
                )
            else:
                check = replace(check, status="regressed")
            if significant and (worst is None or worse_by > worst[0]):
                worst = (worse_by, name)
        elif beyond and worse_by < 0:
            if not significant:
                note = _noise_note(test, settings.significance, drop=False)
                check = replace(check, note=note)
            else:
                if not check.failed:
                    check = replace(check, status="improved", note="improved beyond tolerance")
                improved_lines.append(check.regression_line())
        out_checks[name] = check

    if update and moved:
        notes.append("baseline re-recorded: " + ", ".join(moved))
    if improved_lines:
        listing = "; ".join(improved_lines)
        if fail_on_improvement:
            problems.append(
                "Improved beyond tolerance (ragcheck_fail_on_improvement is set, so the "
                "baseline must be refreshed):\n"
                + "\n".join(f"  {line}" for line in improved_lines)
                + f"\n\n{UPDATE_HINT[0].upper()}{UPDATE_HINT[1:]}."
            )
        else:
            notes.append(f"improved beyond tolerance: {listing}; {UPDATE_HINT}")

    case_changes: list[CaseChange] = []
    if worst is not None:
        case_changes = _case_changes(result, stored, current, worst[1], base_checks, specs)
    return BaselineComparison(
        comparable=True,
        checks=out_checks,
        case_changes=case_changes,
        notes=notes,
        problems=problems,
    )


#: Deltas are differences of rounded values; this absorbs float noise at the tolerance edge.
_EPS = 1e-9


def _noise_note(test: PairedTest, level: float | None, *, drop: bool) -> str:
    what = "not significant" if drop else "improvement not significant"
    text = f"{what}: p={test.p_value:.3g} > significance {level:g}"
    if test.min_p_value > (level or 0.0):
        text += (
            f" (with {test.n_changed} changed case(s) no change can reach p ≤ {level:g}; "
            "a larger golden set gives the test power)"
        )
    return text


def _paired(
    stored: BaselineDoc,
    current: BaselineDoc,
    names: Sequence[str],
    case_ids: Sequence[str],
    specs: Mapping[str, MetricSpec],
) -> dict[str, PairedTest]:
    """One paired test per metric, in the direction of the observed change."""
    import numpy as np

    from pytest_ragcheck.stats import paired_tests

    before = [[stored.cases[i][n] for n in names] for i in case_ids]
    after = [[current.cases[i][n] for n in names] for i in case_ids]
    alternatives: list[Alternative] = []
    for name in names:
        delta = current.aggregates[name] - stored.aggregates[name]
        alternatives.append("less" if delta < 0 else "greater" if delta > 0 else "two-sided")
    tests = paired_tests(
        np.asarray(before, dtype=np.float64).reshape(len(case_ids), len(names)),
        np.asarray(after, dtype=np.float64).reshape(len(case_ids), len(names)),
        alternatives=alternatives,
    )
    return dict(zip(names, tests, strict=True))


def _higher_is_better(
    name: str, checks: Mapping[str, MetricCheck], specs: Mapping[str, MetricSpec]
) -> bool:
    """The direction of ``name``: from its floor check, else from its spec (latency is lower)."""
    if name in checks:
        return checks[name].higher_is_better
    return specs[name].higher_is_better if name in specs else True


def _case_changes(
    result: Result,
    stored: BaselineDoc,
    current: BaselineDoc,
    name: str,
    checks: Mapping[str, MetricCheck],
    specs: Mapping[str, MetricSpec],
) -> list[CaseChange]:
    """The cases that got worse most on ``name`` (largest drop first, ties by id)."""
    higher = _higher_is_better(name, checks, specs)
    queries = {c.id: c.query for c in result.cases}
    changes: list[tuple[float, str]] = []
    for case_id, values in current.cases.items():
        old = stored.cases.get(case_id, {}).get(name)
        if old is None:
            continue
        worse_by = old - values[name] if higher else values[name] - old
        if worse_by > _EPS:
            changes.append((-worse_by, case_id))
    changes.sort()
    return [
        CaseChange(
            id=case_id,
            query=queries.get(case_id, ""),
            metric=name,
            before=stored.cases[case_id][name],
            after=current.cases[case_id][name],
        )
        for _, case_id in changes[:WORST_CASES]
    ]
