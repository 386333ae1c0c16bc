"""Turning a Result (and optionally a baseline comparison) into a pass/fail Verdict.

Pure: no pytest. The plugin raises ``pytest.fail(verdict.message(), pytrace=False)``; the
reports read the same checks, so what the terminal shows and what failed cannot disagree. The
check records live in ``checks`` and the baseline comparison in ``against_baseline``; their public names
(and ``display.format_value``) are re-exported here, where callers have always found them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pytest_ragcheck.answers.explain import answer_lines
from pytest_ragcheck.baseline.options import BASELINE_DIRNAME
from pytest_ragcheck.common.display import format_value, shorten, shown_id, signed
from pytest_ragcheck.gate.against_baseline import (
    BaselineComparison,
    baseline_differences,
    compare_with_baseline,
    golden_change_note,
    not_comparable_message,
)
from pytest_ragcheck.gate.checks import WORST_CASES, CaseChange, MetricCheck, Status, update_command
from pytest_ragcheck.gate.facet_explain import facet_lines
from pytest_ragcheck.gate.per_tag import split_tag
from pytest_ragcheck.gate.retriever_errors import retriever_errors
from pytest_ragcheck.metrics.registry import find_metric
from pytest_ragcheck.report.labels import check_word

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import Result
    from pytest_ragcheck.evaluation.settings import Settings

__all__ = [
    "BaselineComparison",
    "CaseChange",
    "MetricCheck",
    "Verdict",
    "baseline_differences",
    "check_floors",
    "compare_with_baseline",
    "failure_message",
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
    #: The test's node id, for the exact re-record command.
    nodeid: str = ""
    #: The cases added, removed and edited since the baseline ("" when none): a failure
    #: message says what the comparison was made on.
    golden_change: str = ""

    def merge(self, comparison: BaselineComparison) -> None:
        """Take in a baseline comparison (checks replaced, problems/notes/case changes
        appended)."""
        self.checks.update(comparison.checks)
        self.problems.extend(comparison.problems)
        self.notes.extend(comparison.notes)
        if comparison.comparable and comparison.match is not None:
            self.golden_change = golden_change_note(comparison.match)
        if comparison.case_changes:
            self.case_changes = list(comparison.case_changes)

    @property
    def failed(self) -> bool:
        return bool(self.problems) or any(c.failed for c in self.checks.values())

    @property
    def improved(self) -> list[MetricCheck]:
        return [c for c in self.checks.values() if c.status == "improved"]

    def message(self, result: Result) -> str:
        """The one failure message: the worst finding first, then every detail and the fix.

        The first line is what pytest's short summary shows (``FAILED t.py::test - …``), so
        it states the worst finding: a regression, else a violated bound, else a problem.
        """
        floors = [c for c in self.checks.values() if c.status in ("below_floor", "above_ceiling")]
        regressed = [c for c in self.checks.values() if c.status == "regressed"]
        where = f"ragcheck failed for {self.header}" if self.header else "ragcheck failed"
        lines: list[str] = [f"{self._headline(floors, regressed)} ({where})"]
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
                if check.name in result.metrics and check.bound is not None:
                    lines.extend(_worst_lines(result, check))
        if regressed:
            lines.append("")
            lines.append("Regressed against the baseline:")
            for check in regressed:
                lines.append(f"  {check.regression_line()}")
                if check.note:
                    lines.append(f"    {check.note}")
            lines.extend(_case_change_lines(self.case_changes))
        if self.golden_change:
            lines.append("")
            lines.append(self.golden_change[:1].upper() + self.golden_change[1:] + ".")
        for n, problem in enumerate(self.problems):
            if n == 0 and not (floors or regressed) and self._whole_headline():
                continue  # the headline is this problem, said once
            lines.append("")
            lines.append(problem)
        if regressed:
            lines.append("")
            lines.append(
                "If this change is intended, re-record this test's baseline: "
                f"`{update_command([self.nodeid] if self.nodeid else [])}` "
                f"(and review the diff of {BASELINE_DIRNAME}/)."
            )
        return "\n".join(lines)

    def _headline(self, floors: list[MetricCheck], regressed: list[MetricCheck]) -> str:
        if regressed:
            # The overall metric leads; a slice (``mrr@10 [tag pricing]``) only when no
            # overall metric regressed.
            overall = [c for c in regressed if split_tag(c.name)[1] is None]
            worst = max(overall or regressed, key=lambda c: abs(c.delta or 0.0))
            more = f" (+{len(regressed) - 1} more)" if len(regressed) > 1 else ""
            shared, _ = worst.shared_words()
            return (
                f"{worst.name} {check_word(worst.status, worst.basis)} "
                f"{format_value(worst.baseline)} → {format_value(worst.current)}{shared} "
                f"(Δ {signed(worst.delta)}){more}"
            )
        if floors:
            more = f" (+{len(floors) - 1} more)" if len(floors) > 1 else ""
            return floors[0].floor_line() + more
        if self.problems:
            first = self.problems[0].splitlines()[0]
            if self._whole_headline():  # said once, on the first line
                return first.rstrip(":")
            # The first clause only: the problem itself follows in full below.
            return shorten(first.split(" (", 1)[0].rstrip(":"), 120)
        return "ragcheck failed"

    def _whole_headline(self) -> bool:
        """The first problem is one line short enough to be the headline as it is (and is
        then not repeated below it: "No baseline stored for this test yet (…)"); a longer
        one keeps its first clause as the headline and follows in full."""
        lines = self.problems[0].splitlines()
        return len(lines) == 1 and len(lines[0]) <= _HEADLINE


#: The longest first line of a problem that heads the message as it is.
_HEADLINE = 240


def _case_change_lines(changes: list[CaseChange]) -> list[str]:
    """The worst cases against the baseline, each with how its ranking changed."""
    if not changes:
        return []
    lines = [f"  cases that got worse most ({changes[0].metric}, before → after):"]
    for change in changes:
        lines.append(
            f"    {shown_id(change.id)}  {shorten(change.query)!r}  "
            f"{format_value(change.before)} → {format_value(change.after)}"
        )
        lines.extend(f"      {line}" for line in change.explain)
    return lines


def _worst_lines(result: Result, check: MetricCheck) -> list[str]:
    """The worst cases beyond the bound (a perfect case never explains a miss): under a
    floor, or over a ceiling of a lower-is-better metric (``hallucination_rate``)."""
    name, bound, higher = check.name, check.bound or 0.0, check.higher_is_better
    if name.startswith("latency_"):
        return []

    def beyond(value: float) -> bool:
        return value < bound if higher else value > bound

    worst = [
        c
        for c in result.worst_cases(name, limit=WORST_CASES, highest=not higher)
        if beyond(c.values[name])
    ]
    if not worst:
        return []
    scored = [c.values[name] for c in result.evaluated if name in c.values]
    count = sum(1 for value in scored if beyond(value))
    # of the cases the metric scores (rejection_rate: the unanswerable ones)
    where = "under" if higher else "over"
    lines = [
        f"    worst cases for {name} ({count} of {len(scored)} {where} {format_value(bound)}):"
    ]
    for c in worst:
        lines.append(
            f"      {shown_id(c.id)}  {shorten(c.query)!r}  {format_value(c.values[name])}"
        )
        if c.judge.get(name):  # a judge metric: the judge's worst verdicts and reasons
            from pytest_ragcheck.judge.run import summarize_details

            lines.append(f"        judge: {summarize_details(c.judge[name])}")
        lines.extend(f"        {line}" for line in answer_lines(c, name, claims=False))
        lines.extend(f"        {line}" for line in facet_lines(result, c, name))
    return lines


def failure_message(verdict: Verdict, result: Result) -> str:
    """The verdict's message, followed by what the failure must not hide: that the retriever
    returned fewer hits than a cutoff (so the metrics at that cutoff are computed on fewer)."""
    shortfall = (result.info.get("retrieval") or {}).get("shortfall")
    message = verdict.message(result)
    return f"{message}\n\nNote: {shortfall}." if shortfall else message


_BOUND_WORDS = {"min": "floor", "max": "ceiling"}


def check_floors(
    result: Result, settings: Settings, *, header: str = "", nodeid: str = ""
) -> Verdict:
    """Absolute thresholds, retriever errors (and what the run says about the retriever:
    ids that match nothing, fewer hits than a cutoff, the concurrency chosen), judge errors,
    and per-tag values."""
    verdict = Verdict(header=header, nodeid=nodeid)
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
    for name, threshold in bounds.items():
        if name not in result.metrics:  # a bound with nothing to check fails, never passes
            latency = name.startswith("latency_")
            verdict.problems.append(
                f"{name}: no value to check against its {_BOUND_WORDS[threshold.kind]} "
                f"{format_value(threshold.bound)}{' ms' if latency else ''}: "
                + ("no retriever call succeeded" if latency else "no case was scored")
            )
    computed = {s.name for s in settings.metrics}
    unused = [name for name in settings.tolerances if name not in computed]
    if unused and settings.baseline:  # a typo or another cutoff: no tolerance applies unsaid
        verdict.notes.append(
            f"tolerances name {', '.join(unused)}, which this test does not compute "
            f"(it computes {', '.join(sorted(computed))}); those tolerances apply to nothing"
        )
    if settings.per_tag:
        from pytest_ragcheck.gate.per_tag import tag_checks

        checks, notes = tag_checks(result, settings)
        verdict.checks.update(checks)
        verdict.notes.extend(notes)

    errors = result.errors
    if errors and settings.on_error == "fail":
        verdict.problems.append(retriever_errors(errors, len(result.evaluated)))
    elif errors and len(errors) == len(result.evaluated):
        # Every metric is 0 because nothing was retrieved: recorded, such a run would make a
        # broken retriever the baseline, and every later run with it still broken would pass.
        verdict.problems.append(retriever_errors(errors, len(result.evaluated), zero=True))
    elif errors:
        verdict.notes.append(
            f"{len(errors)} case(s) failed in the retriever and were scored 0 (on_error='zero')"
        )
    retrieval = result.info.get("retrieval") or {}
    verdict.problems.extend(str(p) for p in retrieval.get("problems") or [])
    verdict.notes.extend(str(n) for n in retrieval.get("notes") or [])
    if result.golden is not None:  # judgments the golden set's reader left out
        verdict.notes.extend(result.golden.warnings)
    skipped = [c for c in result.skipped if c.answerable]  # unanswerable ones: said below
    if skipped:
        verdict.notes.append(
            f"{len(skipped)} case(s) without relevant documents skipped (empty='skip'): "
            + ", ".join(c.id for c in skipped[:10])
        )
    verdict.notes.extend(str(n) for n in (result.info.get("unanswerable") or {}).get("notes", []))
    judge = result.info.get("judge") or {}
    failure = judge.get("failure")
    if failure:
        verdict.problems.append(str(failure))
    verdict.problems.extend(str(p) for p in trust.get("problems") or [])
    verdict.notes.extend(str(w) for w in judge.get("warnings") or [])
    verdict.notes.extend(str(n) for n in trust.get("notes") or [])
    facets = result.info.get("facets") or {}  # diversity and authority
    verdict.problems.extend(str(p) for p in facets.get("problems") or [])
    verdict.notes.extend(str(n) for n in facets.get("notes") or [])
    return verdict
