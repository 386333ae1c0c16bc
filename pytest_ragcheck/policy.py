"""Turning a Result (and optionally a baseline comparison) into a pass/fail Verdict.

Pure: no pytest. The plugin raises ``pytest.fail(verdict.message(), pytrace=False)``; the
reports read the same checks, so what the terminal shows and what failed cannot disagree. The
check records live in ``checks`` and the baseline comparison in ``compare``; their public names
(and ``display.format_value``) are re-exported here, where callers have always found them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pytest_ragcheck.checks import UPDATE_HINT, WORST_CASES, CaseChange, MetricCheck, Status
from pytest_ragcheck.compare import (
    BaselineComparison,
    baseline_differences,
    compare_with_baseline,
    not_comparable_message,
)
from pytest_ragcheck.display import format_value, shorten
from pytest_ragcheck.registry import find_metric

if TYPE_CHECKING:
    from pytest_ragcheck.config import Settings
    from pytest_ragcheck.result import Result

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
                declared = find_metric(check.name)
                if declared is not None and declared.floor_hint:
                    lines.append(f"    {declared.floor_hint}")
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
                        f"    {change.id}  {shorten(change.query)!r}  "
                        f"{format_value(change.before)} → {format_value(change.after)}"
                    )
        for problem in self.problems:
            lines.append("")
            lines.append(problem)
        if regressed:
            lines.append("")
            lines.append(f"If this change is intended, {UPDATE_HINT}.")
        return "\n".join(lines)


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
        lines.append(f"      {c.id}  {shorten(c.query)!r}  {format_value(c.values[name])}")
        if c.judge.get(name):  # a judge metric: the judge's worst verdicts and reasons
            from pytest_ragcheck.judge.run import summarize_details

            lines.append(f"        judge: {summarize_details(c.judge[name])}")
    return lines


def check_floors(result: Result, settings: Settings, *, header: str = "") -> Verdict:
    """Absolute thresholds, retriever errors and judge errors."""
    verdict = Verdict(header=header)
    bounds = {t.name: t for t in settings.thresholds}
    trust = result.info.get("trust") or {}  # judged@k, judge_kappa, judge_consistency
    metric_notes = trust.get("metric_notes") or {}
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
            note=str(metric_notes.get(name, "")),
        )

    errors = result.errors
    if errors and settings.on_error == "fail":
        lines = [
            f"The retriever failed on {len(errors)} of {len(result.cases)} case(s) "
            "(the other cases were evaluated; on_error='zero' scores failed cases 0 instead):"
        ]
        for case in errors[:10]:
            lines.append(f"  {case.id}  {shorten(case.query)!r}: {case.error}")
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
    verdict.problems.extend(str(p) for p in trust.get("problems") or [])
    verdict.notes.extend(str(w) for w in judge.get("warnings") or [])
    verdict.notes.extend(str(n) for n in trust.get("notes") or [])
    return verdict
