"""Turning a Result (and optionally a baseline comparison) into a pass/fail Verdict.

Pure: no pytest. The plugin raises ``pytest.fail(verdict.message(), pytrace=False)``; the
reports read the same checks, so what the terminal shows and what failed cannot disagree.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Literal

from pytest_ragcheck.baseline_doc import BaselineDoc, round_value

if TYPE_CHECKING:
    from pytest_ragcheck.config import Settings
    from pytest_ragcheck.names import MetricSpec
    from pytest_ragcheck.result import Result
    from pytest_ragcheck.stats import Alternative, PairedTest

__all__ = [
    "BaselineComparison",
    "CaseChange",
    "MetricCheck",
    "Verdict",
    "baseline_differences",
    "check_floors",
    "compare_with_baseline",
    "format_value",
    "not_comparable_message",
]

Status = Literal["pass", "below_floor", "above_ceiling", "regressed", "improved", "new"]
FAILED: frozenset[str] = frozenset({"below_floor", "above_ceiling", "regressed"})
UPDATE_HINT = "run `pytest --snapshot-update` to accept the change as the new baseline"
WORST_CASES = 5


def format_value(value: float | None, *, decimals: int = 3) -> str:
    """Three decimals, rounded half-up from the value at baseline precision (4 decimals).

    A baseline stores 0.3685 for a current 0.36852; plain ``f"{x:.3f}"`` prints those as
    0.368 and 0.369 (binary rounding), which reads as a change that is not there.
    """
    if value is None:
        return "-"
    if not math.isfinite(value):
        return str(value)
    if abs(value) >= 100:
        decimals = 1
    quantum = Decimal(1).scaleb(-decimals)
    return str(Decimal(repr(round(value, 4))).quantize(quantum, rounding=ROUND_HALF_UP))


@dataclass(frozen=True, slots=True)
class MetricCheck:
    """One metric's value and everything it was compared with."""

    name: str
    value: float
    higher_is_better: bool = True
    bound: float | None = None
    bound_kind: Literal["min", "max"] | None = None
    baseline: float | None = None
    delta: float | None = None
    allowed: float | None = None
    p_value: float | None = None
    ci: tuple[float, float] | None = None
    status: Status = "pass"
    #: Human words for a status that needs explaining (e.g. "within noise: p=0.41").
    note: str = ""

    @property
    def failed(self) -> bool:
        return self.status in FAILED

    def floor_line(self) -> str:
        op = "<" if self.bound_kind == "min" else ">"
        kind = "floor" if self.bound_kind == "min" else "ceiling"
        return f"{self.name}: {format_value(self.value)} {op} {format_value(self.bound)} ({kind})"

    def regression_line(self) -> str:
        delta = self.delta if self.delta is not None else self.value - (self.baseline or 0.0)
        parts = [f"Δ {delta:+.3f}".replace("-", "−")]
        if self.allowed is not None:
            parts.append(f"allowed {self.allowed:.3f}")
        if self.p_value is not None:
            parts.append(f"p={self.p_value:.3g}")
        if self.ci is not None:
            low, high = (f"{v:+.3f}".replace("-", "−") for v in self.ci)
            parts.append(f"95% CI [{low}, {high}]")
        return (
            f"{self.name}: {format_value(self.baseline)} → {format_value(self.value)} "
            f"({', '.join(parts)})"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "value": self.value,
            "higher_is_better": self.higher_is_better,
            "bound": self.bound,
            "bound_kind": self.bound_kind,
            "baseline": self.baseline,
            "delta": self.delta,
            "allowed": self.allowed,
            "p_value": self.p_value,
            "ci": list(self.ci) if self.ci is not None else None,
            "status": self.status,
            "note": self.note,
        }


@dataclass(frozen=True, slots=True)
class CaseChange:
    """One case that got worse against the baseline."""

    id: str
    query: str
    metric: str
    before: float
    after: float


@dataclass(slots=True)
class Verdict:
    """Every check of one test, plus problems that are not about one metric."""

    checks: dict[str, MetricCheck] = field(default_factory=dict)
    #: Paragraphs that fail the test on their own (retriever errors, judge errors,
    #: baseline not comparable).
    problems: list[str] = field(default_factory=list)
    #: Worst cases against the baseline, for the metric that regressed most.
    case_changes: list[CaseChange] = field(default_factory=list)
    #: Things worth saying that do not fail the test.
    notes: list[str] = field(default_factory=list)
    #: Where the comparison came from ("golden/faq.jsonl (50 cases, k=10)").
    header: str = ""

    @property
    def failed(self) -> bool:
        return bool(self.problems) or any(c.failed for c in self.checks.values())

    @property
    def improved(self) -> list[MetricCheck]:
        return [c for c in self.checks.values() if c.status == "improved"]

    def message(self, result: Result) -> str:
        """The one failure message: floors, regressions, worst cases, problems, the fix."""
        lines: list[str] = [
            f"ragcheck failed for {self.header}" if self.header else "ragcheck failed"
        ]
        floors = [c for c in self.checks.values() if c.status in ("below_floor", "above_ceiling")]
        regressed = [c for c in self.checks.values() if c.status == "regressed"]
        if floors:
            lines.append("")
            lines.append("Thresholds violated:")
            for check in floors:
                lines.append(f"  {check.floor_line()}")
                if check.note:
                    lines.append(f"    {check.note}")
                if check.bound_kind == "min":
                    lines.extend(_worst_lines(result, check.name, below=check.bound))
        if regressed:
            lines.append("")
            lines.append("Regressed against the baseline:")
            lines.extend(f"  {check.regression_line()}" for check in regressed)
            if self.case_changes:
                metric = self.case_changes[0].metric
                lines.append(f"  cases that got worse most ({metric}, before → after):")
                for change in self.case_changes:
                    lines.append(
                        f"    {change.id}  {_short(change.query)}  "
                        f"{format_value(change.before)} → {format_value(change.after)}"
                    )
        for problem in self.problems:
            lines.append("")
            lines.append(problem)
        if regressed:
            lines.append("")
            lines.append(f"If this change is intended, {UPDATE_HINT}.")
        return "\n".join(lines)


def _short(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= width else flat[: width - 1] + "…")


def _worst_lines(result: Result, name: str, *, below: float | None) -> list[str]:
    """The lowest-scoring cases under the floor (a perfect case never explains a miss)."""
    worst = [
        c
        for c in result.worst_cases(name, limit=WORST_CASES)
        if below is None or c.values[name] < below
    ]
    if not worst:
        return []
    under = sum(
        1
        for c in result.evaluated
        if name in c.values and below is not None and c.values[name] < below
    )
    lines = [
        f"    worst cases for {name} ({under} of {len(result.evaluated)} under {format_value(below)}):"
    ]
    for c in worst:
        lines.append(f"      {c.id}  {_short(c.query)}  {format_value(c.values[name])}")
        if c.judge.get(name):  # a judge metric: the judge's worst verdicts and reasons
            from pytest_ragcheck.judge.run import summarize_details

            lines.append(f"        judge: {summarize_details(c.judge[name])}")
    return lines


def check_floors(result: Result, settings: Settings, *, header: str = "") -> Verdict:
    """Absolute thresholds, retriever errors and judge errors."""
    verdict = Verdict(header=header)
    bounds = {t.name: t for t in settings.thresholds}
    for name, value in result.metrics.items():
        spec = next((s for s in settings.metrics if s.name == name), None)
        higher = spec.higher_is_better if spec is not None else not name.startswith("latency_")
        threshold = bounds.get(name)
        status: Status = "pass"
        if threshold is not None:
            if threshold.kind == "min" and value < threshold.bound:
                status = "below_floor"
            elif threshold.kind == "max" and value > threshold.bound:
                status = "above_ceiling"
        verdict.checks[name] = MetricCheck(
            name=name,
            value=value,
            higher_is_better=higher,
            bound=threshold.bound if threshold else None,
            bound_kind=threshold.kind if threshold else None,
            status=status,
        )

    errors = result.errors
    if errors and settings.on_error == "fail":
        lines = [
            f"The retriever failed on {len(errors)} of {len(result.cases)} case(s) "
            "(the other cases were evaluated; on_error='zero' scores failed cases 0 instead):"
        ]
        for case in errors[:10]:
            lines.append(f"  {case.id}  {_short(case.query)}: {case.error}")
        if len(errors) > 10:
            lines.append(f"  … and {len(errors) - 10} more")
        verdict.problems.append("\n".join(lines))
    elif errors:
        verdict.notes.append(
            f"{len(errors)} case(s) failed in the retriever and were scored 0 (on_error='zero')"
        )
    if result.skipped:
        verdict.notes.append(
            f"{len(result.skipped)} case(s) without relevant documents skipped (empty='skip'): "
            + ", ".join(c.id for c in result.skipped[:10])
        )
    judge = result.info.get("judge") or {}
    failure = judge.get("failure")
    if failure:
        verdict.problems.append(str(failure))
    verdict.notes.extend(str(w) for w in judge.get("warnings") or [])
    return verdict


# --- Baselines -----------------------------------------------------------------------------
#
# The comparison with a stored baseline is one-sided: a metric that got worse by more than its
# tolerance regresses (unless ``significance`` is set and the paired test says the drop may be
# noise); a metric that got better by more than its tolerance passes and is pointed out.


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


def _signed(value: float) -> str:
    return f"{value:+.3f}".replace("-", "−")


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
