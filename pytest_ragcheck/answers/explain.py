"""Failure-message lines for a case of an answer metric: its answer and unsupported claims.

A regressed ``faithfulness`` says more with the claims the contexts do not support (and
whether the judge's quote was rejected) than with "0.90 → 0.50"; a case that hurt
``rejection_rate``, ``truthfulness`` or ``hallucination_rate`` says what it answered to a
question the collection cannot answer (or that it refused one it can), with the grade and the
judge's reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_ragcheck.common.display import shorten

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import CaseResult

__all__ = ["answer_lines"]

#: Unsupported claims named per case.
MAX_CLAIMS = 3
#: The metrics about answering what the collection answers, and declining the rest.
_ABOUT_REFUSALS = ("rejection_rate", "false_rejection_rate", "truthfulness", "hallucination_rate")


def answer_lines(case: CaseResult, name: str, *, claims: bool = True) -> tuple[str, ...]:
    """``answer: '...'`` and, with ``claims`` and details of ``name``, the unsupported claims."""
    if case.answer is None:
        return ()
    lines = [f"answer: {shorten(case.answer, 160)!r}"]
    if name.partition("@")[0] in _ABOUT_REFUSALS:
        lines.extend(_refusal_lines(case, name, judge=claims))
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


def _refusal_lines(case: CaseResult, name: str, *, judge: bool) -> list[str]:
    """What the case did wrong (answered the unanswerable, refused the answerable) and, with
    ``judge``, the grade and the judge's reason (a floor's lines show those already)."""
    lines: list[str] = []
    answer = shorten(case.answer or "", 60)
    if not case.answerable and case.refusal is None:
        lines.append(f"answered {answer!r} to a question the collection cannot answer")
    elif case.answerable and case.refusal is not None:
        lines.append(f"refused a question the collection answers: {case.refusal}")
    entries = case.judge.get(name) or case.judge.get(name.partition("@")[0]) or []
    if judge and entries:
        from pytest_ragcheck.judge.run import summarize_details

        lines.append(f"judge: {summarize_details(entries)}")
    return lines
