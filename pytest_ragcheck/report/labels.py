"""Status words: the one vocabulary of every output.

The terminal summary, the Markdown report and job summary, the HTML report, the JSON report and
the JUnit properties all name statuses with the identifiers below and print them with
:func:`word` (upper case in the terminal, as pytest does), so a test never reads "error" in one
place and "failed" in another.

A test's status refines pytest's outcome and never contradicts it: a test pytest reports as
failed is ``regressed``, ``below_floor``, ``above_ceiling`` or ``failed`` (a retriever error, a
missing baseline, the test's own assertion...); one it reports as passed is ``improved``, ``new``
or ``passed``; one it reports as skipped (``pytest.skip`` after the evaluation, an expected
failure) is ``skipped``. A metric's status is that of its check.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = [
    "BASES",
    "FAILED_CHECKS",
    "FAILING",
    "ICONS",
    "METRIC_STATUSES",
    "STATUS_ORDER",
    "TEST_STATUSES",
    "check_word",
    "detectable_words",
    "entry_status",
    "p_words",
    "page_labels",
    "title",
    "word",
]

#: Test statuses, most urgent first ("regressions first" in every listing).
TEST_STATUSES: tuple[str, ...] = (
    "regressed",
    "below_floor",
    "above_ceiling",
    "failed",
    "improved",
    "new",
    "passed",
    "skipped",
)
STATUS_ORDER = {status: i for i, status in enumerate(TEST_STATUSES)}
#: Metric (check) statuses; ``pass`` is a check that holds.
METRIC_STATUSES: tuple[str, ...] = (
    "regressed",
    "below_floor",
    "above_ceiling",
    "improved",
    "new",
    "pass",
)
#: Check statuses that fail a test, in the order that names the test's status.
FAILED_CHECKS: tuple[str, ...] = ("regressed", "below_floor", "above_ceiling")
#: Test statuses of a test pytest reports as failed.
FAILING = frozenset((*FAILED_CHECKS, "failed"))
#: Markdown's marks (the job summary is read at a glance).
ICONS = {
    **dict.fromkeys(FAILING, "❌"),
    "improved": "📈",
    "new": "🆕",
    "passed": "✅",
    "skipped": "⏭️",
}


#: What a change beyond tolerance was judged on when the paired test did not decide it: the
#: words every output adds to the status, so a tolerance-only verdict never reads as a tested
#: one (``regressed (tolerance; too few changed cases to test)``). ``"test"``: the paired test
#: decided (the p-value is shown instead).
BASES = {
    "tolerance": "tolerance; too few changed cases to test",
    "setting": "tolerance; significance=None",
}


def check_word(status: str, basis: str = "") -> str:
    """A check's status as text with its basis: ``regressed``, ``regressed (tolerance; too few
    changed cases to test)``."""
    words = word(status)
    why = BASES.get(basis) if status in ("regressed", "improved") else None
    return f"{words} ({why})" if why else words


def detectable_words(value: float) -> str:
    """Where the paired test could not decide: the change it would have detected."""
    return f"smallest detectable change {value:.3f}"


def p_words(p_value: float, holm_over: int | None = None) -> str:
    """``p=0.0273``, or ``p=0.0273 Holm over 4 tags`` for a p-value corrected across tags."""
    text = f"p={p_value:.3g}"
    return f"{text} Holm over {holm_over} tags" if holm_over and holm_over > 1 else text


def word(status: str) -> str:
    """How a status reads in text: ``below_floor`` -> ``below floor``."""
    return status.replace("_", " ")


def title(status: str) -> str:
    """The terminal's form, upper case like pytest's ``PASSED``/``FAILED``."""
    return word(status).upper()


def entry_status(
    metric_statuses: Iterable[str], outcome: str, *, slices: Iterable[str] = ()
) -> str:
    """A test's status from its metrics' statuses and pytest's outcome for it; ``slices`` are
    the statuses of its per-tag checks, which can fail a test but never make it ``improved``
    (an improvement of one slice is no reason to re-record the whole baseline)."""
    statuses = set(metric_statuses) | (set(slices) - {"improved"})
    if outcome == "skipped":
        return "skipped"
    if outcome == "failed":
        return next((s for s in FAILED_CHECKS if s in statuses), "failed")
    if "improved" in statuses:
        return "improved"
    if statuses and statuses <= {"new"}:
        return "new"
    return "passed"


def page_labels() -> dict[str, Any]:
    """The vocabulary as the HTML report's script reads it."""
    statuses = dict.fromkeys((*TEST_STATUSES, *METRIC_STATUSES))
    return {
        "order": list(TEST_STATUSES),
        "failing": sorted(FAILING | set(FAILED_CHECKS)),
        "words": {status: word(status) for status in statuses},
        "bases": dict(BASES),
    }
