"""The retriever's errors in a failure message: each kind of error once, with how many cases
hit it and which, so 60 near-identical errors (the same exception, each with its own data)
read as one line and a count."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pytest_ragcheck.common.display import counted, shorten, shown_id

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import CaseResult

__all__ = ["retriever_errors"]


#: Distinct retriever errors listed, and cases named per error.
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_ERROR_KINDS = 5
#: Errors of objects bound to the thread that made them (sqlite3: "SQLite objects created in
#: a thread can only be used in that same thread"): the default timeout runs calls on threads.
_THREAD_BOUND = re.compile(r"same thread|another thread|different thread|not thread.?safe", re.I)
_CASES_PER_ERROR = 5


#: Kinds of error compared for similarity; more only group when identical.
_COMPARED_KINDS = 50
#: Two errors are one when their texts share this much of the longer one's start and end
#: (the data they embed, such as a repr of what the retriever returned, differs in between).
_SAME_TEXT = 0.6


def _common(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` share from their start."""
    shared = zip(a, b, strict=False)
    return next((i for i, (x, y) in enumerate(shared) if x != y), min(len(a), len(b)))


def _similar(a: str, b: str) -> bool:
    """The same error with different embedded data: a common start (the exception and its
    first words) and together with the common end most of the text."""
    if a == b:
        return True
    start = _common(a, b)
    end = _common(a[start:][::-1], b[start:][::-1])
    return start >= 20 and start + end >= _SAME_TEXT * max(len(a), len(b))


def _similar_errors(errors: Sequence[CaseResult]) -> list[list[CaseResult]]:
    """Errors grouped as the same error, largest group first (then in case order). Past
    ``_COMPARED_KINDS`` kinds only identical texts join a group (a run of many thousands of
    distinct errors stays linear)."""
    groups: dict[str, list[CaseResult]] = {}
    for case in errors:  # object addresses in reprs differ case by case
        text = _ADDRESS.sub("0x…", case.error or "error")
        key = text if text in groups else None
        if key is None and len(groups) <= _COMPARED_KINDS:
            key = next((first for first in groups if _similar(first, text)), None)
        groups.setdefault(text if key is None else key, []).append(case)
    return sorted(groups.values(), key=len, reverse=True)


def retriever_errors(errors: Sequence[CaseResult], evaluated: int, *, zero: bool = False) -> str:
    """Each distinct error once, with how many cases hit it and the first of them; ``zero``:
    every case failed under ``on_error="zero"``, which fails all the same."""
    if zero:
        which = "the only case" if evaluated == 1 else f"all {evaluated} cases"
        head = (
            f"The retriever failed on {which}: on_error='zero' scores a failed case 0, but a "
            "run in which no retriever call succeeded measures nothing, so it fails and is "
            "neither compared with nor recorded as the baseline. Fix the retriever and re-run:"
        )
    elif len(errors) == evaluated == 1:
        head = "The retriever failed on the only case; nothing could be evaluated:"
    elif len(errors) == evaluated:
        head = f"The retriever failed on all {evaluated} cases; no case could be evaluated:"
    else:
        head = (
            f"The retriever failed on {len(errors)} of {evaluated} case(s) (the other cases "
            "were evaluated; on_error='zero' scores failed cases 0 instead):"
        )
    groups = _similar_errors(errors)
    lines = [head]
    for cases in groups[:_ERROR_KINDS]:
        error = cases[0].error
        if len(cases) == 1:
            lines.append(f"  {shown_id(cases[0].id)}  {shorten(cases[0].query)!r}: {error}")
            continue
        shown = ", ".join(shown_id(c.id) for c in cases[:_CASES_PER_ERROR])
        more = f" and {len(cases) - _CASES_PER_ERROR} more" if len(cases) > _CASES_PER_ERROR else ""
        same = len({_ADDRESS.sub("0x…", c.error or "") for c in cases}) == 1
        lines.append(f"  {counted(len(cases), 'case')}: {error}")
        lines.append(
            f"    {shown}{more}"
            + (
                ""
                if same
                else f" (the same error with each case's own data; shown: {shown_id(cases[0].id)})"
            )
        )
    if len(groups) > _ERROR_KINDS:
        lines.append(f"  … and {len(groups) - _ERROR_KINDS} more distinct errors")
    if any(_THREAD_BOUND.search(c.error or "") for cases in groups for c in cases[:1]):
        lines.append(
            "  hint: the retriever seems bound to the thread that created it (e.g. a sqlite3 "
            "connection); with a timeout its calls run on worker threads: pass "
            "concurrency=1, timeout=None to call it in the test's own thread"
        )
    return "\n".join(lines)
