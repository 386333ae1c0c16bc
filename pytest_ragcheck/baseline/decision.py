"""What one baseline check does: keep the stored file, write a new one, or compare, and why.

Pure (no pytest, no syrupy): given the stored text (or none), the ``--snapshot-update`` flags
and the verdict so far, :func:`decide_baseline` updates the verdict and says what to assert to
syrupy; ``plugin/snapshots.py`` only moves the text in and out of syrupy. The data asserted decides
what syrupy does with the file:

* :class:`StoredText` (the file's own text): the snapshot "matches", so syrupy keeps the file
  untouched and counts it as used, even under ``--snapshot-update``;
* the new :class:`BaselineDoc`: syrupy writes it under ``--snapshot-update`` (strict equality,
  so drifts within tolerance and improvements are re-recorded too) and reports a failed
  snapshot otherwise;
* nothing: the file is neither used nor written.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from pytest_ragcheck.baseline.document import BaselineDoc, NewerBaselineError
from pytest_ragcheck.baseline.options import BASELINE_DIRNAME, BaselineOptions
from pytest_ragcheck.common.errors import BaselineError
from pytest_ragcheck.gate.against_baseline import compare_with_baseline
from pytest_ragcheck.gate.checks import update_command

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import Result
    from pytest_ragcheck.evaluation.settings import Settings
    from pytest_ragcheck.gate.verdict import Verdict

__all__ = [
    "BaselineDecision",
    "BaselineOutcome",
    "BaselineStatus",
    "StoredText",
    "UnreadableText",
    "decide_baseline",
]

BaselineStatus = Literal[
    "created",  # no file yet, written (--snapshot-update or --snapshot-update-new-only)
    "updated",  # re-recorded under --snapshot-update (values changed, or the file was unreadable)
    "compared",  # compared with the stored file (which stays as it is)
    "missing",  # no file yet, and not asked to write one
    "not_comparable",  # the golden set, k or the metric list changed
    "corrupt",  # the file cannot be read
    "kept",  # the evaluation failed: the stored file was neither compared nor replaced
    "disabled",  # baseline=False
]


class StoredText(str):
    """Text read back from a baseline file, asserted unchanged to keep the file as it is."""

    __slots__ = ()


class UnreadableText(StoredText):
    """What is read for a file the system would not read (permissions, a folder, an I/O
    error): never parsed as a damaged baseline, and kept as it is."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class BaselineOutcome:
    """What one baseline check found; :meth:`to_dict` is the form the reports read."""

    status: BaselineStatus
    #: The baseline file, relative to the rootdir (None when disabled).
    path: str | None = None
    #: The aggregates the file holds after this run.
    values: Mapping[str, float] = field(default_factory=dict)
    #: Decimals kept in the file (None when disabled).
    precision: int | None = None
    #: Why the stored file could not be read (corrupt, or replaced because unreadable).
    problem: str | None = None
    #: Per-case baseline values compared against (case id -> metric -> value), when comparable.
    cases: Mapping[str, Mapping[str, float]] | None = None
    #: Metrics that regressed / improved beyond tolerance; None when no comparison ran.
    regressed: tuple[str, ...] | None = None
    improved: tuple[str, ...] | None = None
    #: What changed, when not comparable ("k changed (10 → 5)").
    reasons: tuple[str, ...] = ()
    #: The aggregates the file held before this run, when updated.
    previous: Mapping[str, float] | None = None
    #: Cases shared with, added to, removed from and edited since the baseline (counts and
    #: first ids), when it was read.
    case_diff: Mapping[str, object] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe, with only the keys that apply (the report input format)."""
        out: dict[str, Any] = {
            "status": self.status,
            "path": self.path,
            "values": dict(self.values),
        }
        if self.precision is not None:
            out["precision"] = self.precision
        if self.problem is not None:
            out["problem"] = self.problem
        if self.cases is not None:
            cases = self.cases  # a large baseline has a case per golden case: copied in C,
            values = cases.values()  # the (never changed) value dicts shared when they are dicts
            out["cases"] = (
                dict(cases)
                if set(map(type, values)) <= {dict}
                else dict(zip(cases.keys(), map(dict, values), strict=True))
            )
        if self.regressed is not None:
            out["regressed"] = list(self.regressed)
        if self.improved is not None:
            out["improved"] = list(self.improved)
        if self.reasons:
            out["reasons"] = list(self.reasons)
        if self.previous is not None:
            out["previous"] = dict(self.previous)
        if self.case_diff is not None:
            out["case_diff"] = dict(self.case_diff)
        return out


@dataclass(frozen=True, slots=True)
class BaselineDecision:
    """The outcome, and the one thing to assert to syrupy (see the module docstring)."""

    outcome: BaselineOutcome
    to_assert: StoredText | BaselineDoc | None


def decide_baseline(
    *,
    stored_text: str | None,
    path: str,
    result: Result,
    settings: Settings,
    options: BaselineOptions,
    verdict: Verdict,
    update: bool = False,
    update_new_only: bool = False,
    shared_with: str | None = None,
    nodeid: str = "",
) -> BaselineDecision:
    """Decide what becomes of the baseline at ``path``, and update ``verdict`` accordingly.

    ``update``/``update_new_only`` are syrupy's ``--snapshot-update``/``--snapshot-update-new-only``;
    ``shared_with`` is another test already using the same file. A verdict that already has
    problems (retriever or judge errors) means the numbers are no baseline: the file is kept.
    The verdict gets the comparison's checks, problems, case changes and notes.
    """
    precision = options.precision
    base = BaselineOutcome(status="compared", path=path, precision=precision)
    stored = StoredText(stored_text) if stored_text is not None else None

    if shared_with is not None:
        verdict.problems.append(
            f"{shared_with} and this test map to the same baseline file {path} (names that "
            "differ only in case are one file on macOS and Windows); give them distinct, "
            "shorter parametrize ids (pytest.param(..., id='...'))"
        )
        return BaselineDecision(replace(base, status="kept"), None)
    if verdict.problems:
        verdict.notes.append(
            f"baseline {path} was not compared"
            + (" or re-recorded" if update else "")
            + " because the evaluation failed"
        )
        return BaselineDecision(replace(base, status="kept"), stored)
    try:
        current = BaselineDoc.from_result(result, precision=precision, max_hits=options.max_hits)
    except BaselineError as exc:
        verdict.problems.append(str(exc))
        return BaselineDecision(replace(base, status="kept"), stored)

    if stored is None:
        if update or update_new_only:
            verdict.notes.append(f"baseline created: {path}")
            return BaselineDecision(
                replace(base, status="created", values=current.aggregates), current
            )
        verdict.problems.append(
            f"No baseline stored for this test yet ({path}): run "
            f"`{update_command([nodeid] if nodeid else [])}` to record it, then commit the "
            f"{BASELINE_DIRNAME}/ folder."
        )
        # Not written: syrupy reports the snapshot as missing.
        return BaselineDecision(replace(base, status="missing"), current)

    command = update_command([nodeid] if nodeid else [])
    if isinstance(stored_text, UnreadableText):
        verdict.problems.append(
            f"Baseline cannot be read: {path}: {stored_text}; the file was left as it is "
            "(check that it is a readable file)."
        )
        return BaselineDecision(replace(base, status="corrupt", problem=str(stored_text)), stored)
    try:
        stored_doc = BaselineDoc.from_json(stored, source=path, expected=current)
        _check_means(stored_doc, current)
    except NewerBaselineError as exc:
        verdict.problems.append(
            f"Baseline cannot be read: {exc} (or delete the file and re-run with "
            f"--snapshot-update to record it with this version: `{command}`)."
        )
        return BaselineDecision(replace(base, status="corrupt", problem=str(exc)), stored)
    except BaselineError as exc:
        known = _left_by_git(stored, path)
        problem = known[0] if known else str(exc)
        if update:
            verdict.notes.append(f"replaced an unreadable baseline ({problem})")
            return BaselineDecision(
                replace(base, status="updated", values=current.aggregates, problem=problem),
                current,
            )
        fix = known[1] if known else _FIX
        verdict.problems.append(
            f"Baseline cannot be read: {problem}.\n{fix} "
            f"(`{command}`, and review the diff before committing)."
        )
        # Not written: syrupy reports the snapshot as failed.
        return BaselineDecision(replace(base, status="corrupt", problem=problem), current)

    comparison = compare_with_baseline(
        result,
        stored_doc,
        settings,
        update=update,
        fail_on_improvement=options.fail_on_improvement,
        checks=verdict.checks,
        source=path,
        max_hits=options.max_hits,
        nodeid=nodeid,
        current=current,
    )
    verdict.merge(comparison)
    compared = replace(
        base,
        values=stored_doc.aggregates,
        cases=stored_doc.cases if comparison.comparable else None,
        regressed=tuple(comparison.regressed),
        improved=tuple(comparison.improved),
        reasons=comparison.reasons,
        case_diff=comparison.match.to_dict() if comparison.match is not None else None,
    )
    if update:
        if current.to_json() == stored:
            return BaselineDecision(compared, stored)
        updated = replace(
            compared, status="updated", values=current.aggregates, previous=stored_doc.aggregates
        )
        return BaselineDecision(updated, current)
    if not comparison.comparable:
        # Not written: syrupy reports the snapshot as failed.
        return BaselineDecision(replace(compared, status="not_comparable"), current)
    if comparison.regressed or comparison.problems:
        return BaselineDecision(compared, current)  # not written: a failed snapshot
    # Within tolerance: the stored file stays as it is (byte for byte).
    return BaselineDecision(compared, stored)


#: What a damaged file's failure suggests, unless git left it (see ``_left_by_git``).
_FIX = "Fix the file, or re-run with --snapshot-update to record a new baseline"
#: A line git writes around a conflict (``<<<<<<< HEAD``, ``|||||||``, ``=======``,
#: ``>>>>>>> branch``); never valid JSON, so a file holding one cannot have been read.
_CONFLICT_LINE = re.compile(r"^(?:(?:<{7}|\|{7}|>{7})(?: .*)?|={7})$", re.MULTILINE)
#: How a Git LFS pointer starts: what a checkout that did not fetch LFS files holds instead.
_LFS_POINTER = "version https://git-lfs.github.com/spec/"


def _left_by_git(text: str, path: str) -> tuple[str, str] | None:
    """What is wrong with a file git left unreadable, and the fix; None for any other file.

    "Not valid JSON; fix the file" would mislead: a merge conflict means two branches both
    re-recorded the baseline (neither side's numbers, nor a mix, describe the merged code),
    and a Git LFS pointer means the baseline is fine but was not fetched.
    """
    if text.startswith(_LFS_POINTER):
        return (
            f"{path}: is a Git LFS pointer, not the baseline (the checkout did not fetch it)",
            "Fetch it with `git lfs pull` (in CI, check out with LFS enabled), or re-run with "
            "--snapshot-update to record a new baseline",
        )
    found = _CONFLICT_LINE.search(text)
    if found is None:
        return None
    line = text.count("\n", 0, found.start()) + 1
    return (
        f"{path}: has unresolved git merge conflict markers (line {line}: {found.group()!r}): "
        "two branches both re-recorded this baseline",
        "Do not merge the two sides by hand: re-run with --snapshot-update on the merged "
        "branch to record it again",
    )


def _check_means(doc: BaselineDoc, current: BaselineDoc) -> None:
    """Raise :class:`BaselineError` when a stored mean is not the mean of the stored cases.

    While the cases are unchanged the stored means are compared as they are, so a mean edited
    by hand (or a merge conflict resolved with one side's means and the other's cases) would
    be compared as if a run had scored it. Both are rounded to the file's decimals, so they
    may differ by one unit of the last one.
    """
    if not doc.cases:
        return
    unit = 10.0 ** -min(doc.precision, current.precision) + 1e-9
    own = doc.cases is current.cases  # an unchanged file holds this run's cases, and means
    for name, stored in doc.aggregates.items():
        mean, count = (current.aggregates.get(name) if own else None), len(doc.cases)
        if mean is None:
            # A case without a value of the metric (a judge that abstained on each of its
            # items) stores none: the mean is over the cases that have one, as the run's was.
            scored = [values[name] for values in doc.cases.values() if name in values]
            if not scored:
                continue
            mean, count = math.fsum(scored) / len(scored), len(scored)
        if abs(stored - mean) > unit:
            raise BaselineError(
                f"{doc.source}: aggregates[{name!r}] is {stored!r}, but the mean of its "
                f"{count} cases is {round(mean, doc.precision)!r} (edited by hand, or a merge "
                "conflict resolved with one side's aggregates and the other's cases)"
            )
