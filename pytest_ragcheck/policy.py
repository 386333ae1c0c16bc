"""Turning a Result (and optionally a baseline comparison) into a pass/fail Verdict.

Pure: no pytest. The plugin raises ``pytest.fail(verdict.message(), pytrace=False)``; the
reports read the same checks, so what the terminal shows and what failed cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from pytest_ragcheck.config import Settings
    from pytest_ragcheck.result import Result

__all__ = ["CaseChange", "MetricCheck", "Verdict", "check_floors", "format_value"]

Status = Literal["pass", "below_floor", "above_ceiling", "regressed", "improved", "new"]
FAILED: frozenset[str] = frozenset({"below_floor", "above_ceiling", "regressed"})
UPDATE_HINT = "run `pytest --snapshot-update` to accept the change as the new baseline"
WORST_CASES = 5


def format_value(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}" if abs(value) >= 100 else f"{value:.3f}"


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
            parts.append(f"95% CI [{self.ci[0]:+.3f}, {self.ci[1]:+.3f}]")
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
                if check.bound_kind == "min":
                    lines.extend(_worst_lines(result, check.name))
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


def _worst_lines(result: Result, name: str) -> list[str]:
    worst = result.worst_cases(name, limit=WORST_CASES)
    if not worst:
        return []
    lines = [f"    worst cases for {name}:"]
    lines += [f"      {c.id}  {_short(c.query)}  {format_value(c.values[name])}" for c in worst]
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
    return verdict
