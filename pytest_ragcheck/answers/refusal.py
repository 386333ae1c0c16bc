"""Refusals: when a pipeline's answer declines to answer, and the two rates built on it.

A case may say ``answerable: false`` (SPEC §13): the collection holds no answer, and the right
behaviour is to decline. An answer is a **refusal** when it is empty or ``None``, or when one of
the refusal patterns (regular expressions, case-insensitive, searched anywhere in the answer)
matches it. With a judge configured, an answer to an unanswerable case that no pattern catches
is graded by the judge instead (``missing`` makes it a refusal: :mod:`pytest_ragcheck.judge`).

``rejection_rate`` = unanswerable cases refused / unanswerable cases; ``false_rejection_rate``
= answerable cases refused / answerable cases (lower is better). Each is a per-case 1 or 0 on the
cases it counts, so the mean over the cases with a value is the rate.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pytest_ragcheck.common.display import shorten
from pytest_ragcheck.common.errors import ConfigError, GoldenSetError

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import CaseResult
    from pytest_ragcheck.golden import GoldenCase
    from pytest_ragcheck.metrics.names import MetricSpec

__all__ = [
    "DEFAULT_REFUSAL_PATTERNS",
    "check_cases",
    "compiled",
    "ini_refusal_patterns",
    "judged_refusals",
    "mark_refusals",
    "refusal_patterns",
    "refusal_reason",
    "score_refusals",
]

#: The metrics whose judge grade decides whether an unanswerable case's answer is a refusal.
_GRADED = ("truthfulness", "hallucination_rate", "rejection_rate")
_APOS = "['’]"
_CONTEXT = r"(?:context|documents?|sources?|passages?|texts?|information|search results)"

#: The refusals the plugin recognises unless ``refusal_patterns`` replaces them: common
#: English and Chinese ways of declining. Extend with ``[*DEFAULT_REFUSAL_PATTERNS, "..."]``.
DEFAULT_REFUSAL_PATTERNS: tuple[str, ...] = (
    # English
    rf"\bI (?:do not|don{_APOS}t|can ?not|can{_APOS}t|could not|couldn{_APOS}t) "
    r"(?:know|find|answer|determine|tell|say)\b",
    rf"\b(?:I am|I{_APOS}m|we are|we{_APOS}re) (?:not able|unable|not sure)\b",
    r"\b(?:unable|not able) to (?:answer|find|determine|tell)\b",
    r"\bcannot be (?:answered|determined|found)\b",
    r"\b(?:I|we) have no (?:information|data|answer|knowledge)\b",
    rf"\b(?:the|this|these|provided|given) {_CONTEXT}(?: provided| given)? "
    rf"(?:does not|do not|did not|doesn{_APOS}t|don{_APOS}t|didn{_APOS}t) "
    r"(?:contain|mention|provide|include|say|specify|state|answer|cover)\b",
    rf"\bnot (?:mentioned|stated|specified|provided|found|covered|given) in the {_CONTEXT}\b",
    r"\b(?:insufficient|not enough) (?:information|context|data)\b",
    r"\bno (?:relevant )?information (?:about|on|regarding|is available|was found)\b",
    r"\bthere is no (?:answer|mention)\b",
    r"^\W*(?:unknown|n/?a|none|no answer|not available)\W*$",
    # Chinese
    r"不知道",
    r"不清楚",
    r"不确定",
    r"无法(?:回答|确定|找到|判断|得知|提供|给出)",
    r"(?:没有|未能?|并未)(?:找到|检索到)(?:相关)?(?:的)?(?:信息|资料|内容|答案)",
    r"(?:没有|缺乏|缺少)(?:足够的?)?(?:相关)?(?:的)?(?:信息|资料)",
    r"(?:资料|文档|上下文|材料|文中|原文|文章)中?(?:没有|并未|未)(?:提及|提到|说明|包含|给出|记载)",
)


def refusal_patterns(value: object, *, where: str) -> tuple[str, ...]:
    """``value`` (a pattern or a list of them) checked: each must be a regular expression
    (:class:`ConfigError` naming ``where``, the pattern and the ``re`` error otherwise)."""
    patterns = (value,) if isinstance(value, str) else value
    if not isinstance(patterns, Sequence) or not all(isinstance(p, str) for p in patterns):
        raise ConfigError(
            f"{where} must be a regular expression or a list of them, got {value!r} "
            "(to extend the defaults: [*pytest_ragcheck.DEFAULT_REFUSAL_PATTERNS, ...])"
        )
    for position, pattern in enumerate(patterns, 1):
        if not pattern.strip():
            raise ConfigError(
                f"{where}: pattern #{position} is empty, which would match every answer; remove it"
            )
        try:
            re.compile(pattern, re.IGNORECASE)
        except re.error as exc:
            raise ConfigError(
                f"{where}: pattern #{position} {pattern!r} is not a valid regular expression: {exc}"
            ) from None
    return tuple(patterns)


def ini_refusal_patterns(lines: object) -> tuple[str, ...] | None:
    """ini ``ragcheck_refusal_patterns``: one regular expression a line (``None``: unset)."""
    if not lines:
        return None
    patterns = [str(line) for line in lines] if isinstance(lines, list) else [str(lines)]
    return refusal_patterns(patterns, where="ini ragcheck_refusal_patterns")


@functools.lru_cache(maxsize=16)
def compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """The patterns compiled case-insensitive (checked by :func:`refusal_patterns`)."""
    return tuple(re.compile(p, re.IGNORECASE) for p in patterns)


def refusal_reason(answer: str | None, patterns: tuple[str, ...]) -> str | None:
    """Why ``answer`` is a refusal (``"empty answer"``, ``"matches 'I don't know'"``), or
    ``None`` when it is not one by these rules."""
    if answer is None or not answer.strip():
        return "empty answer"
    for pattern in compiled(patterns):
        found = pattern.search(answer)
        if found is not None:
            return f"matches {shorten(found.group(0), 60)!r}"
    return None


def check_cases(cases: Sequence[GoldenCase], specs: Sequence[MetricSpec], source: str) -> None:
    """A rate with no case to count is a golden-set error, never an absent value."""
    names = {s.base for s in specs}
    for name, answerable, what in (
        ("rejection_rate", False, "unanswerable cases (answerable: false)"),
        ("false_rejection_rate", True, "answerable cases"),
    ):
        if name in names and not any(c.answerable == answerable for c in cases):
            raise GoldenSetError(
                f"{source}: {name} counts {what}, and none of the {len(cases)} case(s) is one; "
                + (
                    'add cases the collection cannot answer, marked "answerable": false'
                    if not answerable
                    else "add answerable cases (with a reference answer)"
                )
            )


def mark_refusals(
    cases: Sequence[GoldenCase],
    by_id: Mapping[str, CaseResult],
    specs: Sequence[MetricSpec],
    patterns: tuple[str, ...],
) -> None:
    """Set ``refusal`` on every scored case when a metric of the run counts refusals."""
    if not any("refusal" in s.metric.needs for s in specs):
        return
    for case in cases:
        result = by_id[case.id]
        if result.status == "ok":
            result.refusal = refusal_reason(result.answer, patterns)


def score_refusals(
    cases: Sequence[GoldenCase],
    by_id: Mapping[str, CaseResult],
    specs: Sequence[MetricSpec],
    *,
    judged: bool,
) -> None:
    """``rejection_rate`` and ``false_rejection_rate`` of each case they count (1 refused, 0
    not). With ``judged``, an unanswerable case's answer that no rule calls a refusal is left
    to the judge (it sets the value)."""
    rates = [s for s in specs if s.base in ("rejection_rate", "false_rejection_rate")]
    if not rates:  # most runs: no pass over the cases
        return
    for case in cases:
        result = by_id[case.id]
        if result.status != "ok":
            continue
        for spec in rates:
            if (spec.base == "rejection_rate") == case.answerable:
                continue
            if result.refusal is None and judged and not case.answerable:
                continue
            result.values[spec.name] = 0.0 if result.refusal is None else 1.0


def judged_refusals(cases: Sequence[GoldenCase], by_id: Mapping[str, CaseResult]) -> None:
    """An unanswerable case's answer that the judge graded ``missing`` is a refusal too."""
    for case in cases:
        result = by_id[case.id]
        if case.answerable or result.refusal is not None:
            continue
        for name, entries in result.judge.items():
            if name.partition("@")[0] not in _GRADED:
                continue
            graded = next((e for e in entries if e.get("judge_grade") == "missing"), None)
            if graded is not None:
                reason = str(graded.get("reason") or "").strip()
                result.refusal = "the judge graded it missing" + (f": {reason}" if reason else "")
                break
