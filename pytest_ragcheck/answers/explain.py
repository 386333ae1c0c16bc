"""Failure-message lines for a case of an answer metric: its answer and unsupported claims.

A regressed ``faithfulness`` says more with the claims the contexts do not support (and
whether the judge's quote was rejected) than with "0.90 → 0.50".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_ragcheck.common.display import shorten

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import CaseResult

__all__ = ["answer_lines"]

#: Unsupported claims named per case.
MAX_CLAIMS = 3


def answer_lines(case: CaseResult, name: str, *, claims: bool = True) -> tuple[str, ...]:
    """``answer: '...'`` and, with ``claims`` and details of ``name``, the unsupported claims."""
    if case.answer is None:
        return ()
    lines = [f"answer: {shorten(case.answer, 160)!r}"]
    unsupported = [
        entry
        for entry in case.judge.get(name, [])
        if "supported" in entry and not entry["supported"]
    ]
    if claims and unsupported:
        shown = [
            repr(shorten(str(e["claim"]), 80))
            + (" (the judge's quote is not in the contexts)" if e.get("judge_supported") else "")
            for e in unsupported[:MAX_CLAIMS]
        ]
        more = len(unsupported) - len(shown)
        lines.append(
            "unsupported claims: " + "; ".join(shown) + (f"; and {more} more" if more else "")
        )
    return tuple(lines)
