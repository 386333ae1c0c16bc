"""Comparing a result with its stored baseline, on the cases both share.

The comparison is one-sided: a metric that got worse by more than its tolerance regresses,
unless the paired test on the shared cases says the drop may be noise (``significance``,
0.05 by default). When so few cases changed that the test cannot reach the level at all, the
tolerance alone decides, and the message says so. A metric that got better beyond its
tolerance passes and is pointed out. Added, removed and edited cases never fail a test; they
are reported (see ``case_match``). Pure: no pytest, no syrupy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from pytest_ragcheck.baseline.document import BaselineDoc
from pytest_ragcheck.baseline.options import DEFAULT_MAX_HITS
from pytest_ragcheck.common.display import counted, format_value
from pytest_ragcheck.gate.case_match import CaseMatch, match_cases
from pytest_ragcheck.gate.checks import CaseChange, MetricCheck, update_command
from pytest_ragcheck.gate.per_tag import compare_tags, split_tag
from pytest_ragcheck.gate.sides import Sides, judge_change
from pytest_ragcheck.gate.worst import case_changes

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import Result
    from pytest_ragcheck.evaluation.settings import Settings

__all__ = [
    "BaselineComparison",
    "baseline_differences",
    "compare_with_baseline",
    "golden_change_note",
    "golden_shrink_warning",
    "not_comparable_message",
]


@dataclass(frozen=True, slots=True)
class BaselineComparison:
    """The outcome of comparing a result with a stored baseline (see ``compare_with_baseline``)."""

    #: False when no case or no metric is shared: the numbers answer other questions.
    comparable: bool
    #: Why not comparable ("no case is shared with the baseline (…)").
    reasons: tuple[str, ...] = ()
    #: Every metric's check with the baseline fields filled in (per-tag checks included).
    checks: dict[str, MetricCheck] = field(default_factory=dict)
    case_changes: list[CaseChange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: Shared, added, removed and edited cases.
    match: CaseMatch | None = None

    @property
    def regressed(self) -> list[str]:
        return [n for n, c in self.checks.items() if c.status == "regressed"]

    @property
    def improved(self) -> list[str]:
        return [n for n, c in self.checks.items() if c.status == "improved"]


def not_comparable_message(reasons: Sequence[str], source: str = "", nodeid: str = "") -> str:
    """The failure of a baseline that shares nothing with the run; the command names the test
    (a bare ``--snapshot-update`` would re-record every test)."""
    where = f"\n  baseline file: {source}" if source else ""
    command = update_command([nodeid] if nodeid else [])
    return (
        f"baseline not comparable: {'; '.join(reasons)}; re-run with --snapshot-update "
        f"to record a new baseline (`{command}`, and review the diff){where}"
    )


def baseline_differences(
    stored: BaselineDoc, current: BaselineDoc, match: CaseMatch | None = None
) -> list[str]:
    """What makes ``current`` not comparable with ``stored`` (empty when comparable).

    Only a baseline that shares no case or no metric with the run is not comparable; added,
    removed and edited cases and new metrics are reported by the comparison instead.
    """
    match = match or match_cases(stored, current)
    reasons = [match.reason] if match.reason else []
    if not match.reason and not match.shared:
        reasons.append(f"no case is shared with the baseline ({match.summary()})")
    if not set(stored.metrics) & set(current.metrics):
        reasons.append(
            f"no metric is shared with the baseline (baseline: {', '.join(stored.metrics)}; "
            f"this run: {', '.join(current.metrics)})"
        )
    return reasons


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
    max_hits: int = DEFAULT_MAX_HITS,
    nodeid: str = "",
    current: BaselineDoc | None = None,
) -> BaselineComparison:
    """Compare ``result`` with the ``stored`` baseline on the cases both share.

    Values are compared as they would be stored (rounded to ``precision``, default the stored
    one), so an unchanged rerun has a delta of exactly 0. ``checks`` are the floor checks to
    extend (``check_floors``); a floor violation keeps its status and notes the regression.
    With ``update=True`` (``--snapshot-update``) nothing regresses: the values are re-recorded,
    and the notes say what moved. ``current`` is ``result`` as a baseline document, when the
    caller has it already (built with the same ``max_hits``).
    """
    precision = stored.precision if precision is None else precision
    if current is None or current.precision != precision:  # else: the caller's, built once
        current = BaselineDoc.from_result(result, precision=precision, max_hits=max_hits)
    golden = result.golden
    match = match_cases(stored, current, subset_hash=golden.subset_hash if golden else None)
    reasons = baseline_differences(stored, current, match)
    if reasons:
        return BaselineComparison(
            comparable=False,
            reasons=tuple(reasons),
            notes=[f"baseline re-recorded ({'; '.join(reasons)})"] if update else [],
            problems=[] if update else [not_comparable_message(reasons, source, nodeid)],
            match=match,
        )

    sides = Sides(stored, current, match)
    ids = match.shared
    # Each metric on the shared cases with a value of it on both sides: all of them, but for
    # a case that lacks one (judged@k of a case that errored, a judge metric of a case whose
    # every item the judge left out).
    scored = {n: sides.scored(n, ids) for n in current.metrics if n in stored.metrics}
    names = [n for n, own in scored.items() if own]
    whole = [n for n in names if scored[n] is ids]
    base_checks = dict(checks) if checks is not None else {}
    specs = {s.name: s for s in result.specs}
    tests = sides.paired(whole, ids)
    tests.update({n: sides.paired([n], scored[n])[n] for n in names if n not in tests})
    level = settings.significance

    out_checks: dict[str, MetricCheck] = {}
    notes = _change_notes(stored, current, match)
    notes += [
        f"{n} compared on the {counted(len(own), 'shared case')} with a value of it in the "
        "baseline and in this run"
        if own
        else f"{n} not compared with the baseline: no shared case has a value of it on both sides"
        for n, own in scored.items()
        if own is not ids
    ]
    improved_lines: list[str] = []
    moved: list[str] = []
    worst: tuple[float, str] | None = None
    for name in names:
        before, after = sides.means(name, scored[name])
        check = base_checks.get(name) or MetricCheck(
            name=name,
            value=result.metrics.get(name, after),
            higher_is_better=specs[name].higher_is_better if name in specs else True,
        )
        check = replace(check, detectable=sides.detectable(name, scored[name], level))
        if not match.whole:
            every = sum(1 for case in result.evaluated if name in case.values)
            check = check.on_shared(after, len(scored[name]), every)
        judged = judge_change(
            check,
            before=before,
            after=after,
            precision=current.precision,
            allowed=settings.allowed_drop(name),
            test=tests[name],
            level=level,
            update=update,
        )
        if update and judged.check.delta:
            moved.append(f"{name} {format_value(before)} → {format_value(after)}")
        if judged.improved:
            improved_lines.append(judged.check.regression_line())
        if judged.regressed and (worst is None or judged.worse_by > worst[0]):
            worst = (judged.worse_by, name)
        out_checks[name] = judged.check

    if settings.per_tag:
        tag_checks, tag_notes, tag_worst = compare_tags(
            result, sides, whole, base_checks, settings, update=update
        )
        out_checks.update(tag_checks)
        notes.extend(tag_notes)
        if worst is None and tag_worst is not None:
            worst = tag_worst

    if update and moved:
        notes.append("baseline re-recorded: " + ", ".join(moved))
    problems: list[str] = []
    if improved_lines:
        command = update_command([nodeid] if nodeid else [])
        if fail_on_improvement:
            problems.append(
                "Improved beyond tolerance (ragcheck_fail_on_improvement is set, so the "
                "baseline must be refreshed):\n"
                + "\n".join(f"  {line}" for line in improved_lines)
                + f"\n\nRecord the improvement: `{command}`."
            )
        else:
            notes.append(
                f"improved beyond tolerance: {'; '.join(improved_lines)}; to record it: `{command}`"
            )

    worst_cases: list[CaseChange] = []
    if worst is not None:
        metric = split_tag(worst[1])[0]
        worst_cases = case_changes(result, sides, metric, out_checks[metric], specs.get(metric))
    return BaselineComparison(
        comparable=True,
        checks=out_checks,
        case_changes=worst_cases,
        notes=notes,
        problems=problems,
        match=match,
    )


def golden_change_note(match: CaseMatch) -> str:
    """``golden set changed since the baseline: 5 added (…); compared on the 10 shared
    case(s)``, or ``""`` when the cases are those of the baseline."""
    if match.whole:
        return ""
    return (
        f"golden set changed since the baseline: {match.summary()}; compared on the "
        f"{len(match.shared)} shared case(s)"
    )


def golden_shrink_warning(diff: Mapping[str, object], nodeid: str, *, updated: bool = False) -> str:
    """A terminal warning when more than half of the baseline's cases are gone from the run
    (``diff``: :meth:`CaseMatch.to_dict`), else ``""``: a run compared on 1 of 12 cases
    passes on almost nothing, and its note alone is easily missed. ``updated``: the run
    re-recorded the baseline (``--snapshot-update``) with what is left.

    Removed cases never fail a test (the golden set may have been pruned on purpose), so
    this is a warning, not a failure."""
    shared, removed, edited = diff.get("shared"), diff.get("removed"), diff.get("edited")
    if not (isinstance(shared, int) and isinstance(removed, int) and isinstance(edited, int)):
        return ""
    stored = shared + removed + edited
    if removed * 2 <= stored:
        return ""
    listed = diff.get("removed_ids")
    ids = [str(i) for i in listed] if isinstance(listed, list) else []
    shown = ", ".join(ids) + (", …" if removed > len(ids) else "")
    lost = f"{nodeid}: the golden set lost {removed} of the baseline's {stored} cases ({shown})"
    if updated:
        return f"{lost}; the baseline was re-recorded without them: check that this was meant"
    return (
        f"{lost}; compared on {counted(shared, 'shared case')} only. If the cases were removed "
        f"on purpose, re-record the baseline: `{update_command([nodeid])}`"
    )


def _change_notes(stored: BaselineDoc, current: BaselineDoc, match: CaseMatch) -> list[str]:
    """What changed since the baseline that does not fail the test: cases and metrics."""
    notes: list[str] = []
    if not match.whole:
        notes.append(golden_change_note(match))
    new = [n for n in current.metrics if n not in stored.metrics]
    if new:
        notes.append("not in the baseline: " + ", ".join(new) + " (re-record to start tracking it)")
    gone = [n for n in stored.metrics if n not in current.metrics]
    if gone:
        notes.append("in the baseline but no longer computed: " + ", ".join(gone))
    return notes
