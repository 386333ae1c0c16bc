"""Why a case regressed: which relevant documents left the top k or moved down, what came in.

The baseline stores each case's ranked ids, so a failure can say ``d12 rank 1 → 14`` instead
of only "MRR 1.000 → 0.071". Pure: no pytest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pytest_ragcheck.common.display import shown_id

__all__ = ["explain_case"]

#: Lines per case: the failure message stays readable.
MAX_LINES = 4
#: Newcomers named on the "came in" line.
MAX_NEWCOMERS = 3


def _ranks(ids: Sequence[str]) -> dict[str, int]:
    ranks: dict[str, int] = {}
    for position, doc in enumerate(ids, start=1):
        ranks.setdefault(doc, position)
    return ranks


def explain_case(
    *,
    baseline: Sequence[str],
    current: Sequence[str],
    relevance: Mapping[str, int],
    k: int | None,
) -> tuple[str, ...]:
    """Short lines on how the ranking of one case changed against its baseline.

    A relevant document (grade >= 1) that was in the baseline's top ``k`` and is now below it,
    lower, or not retrieved at all: ``d12 rank 1 → 14``, ``d40 rank 3 → gone``. Then the
    non-relevant documents that entered the top ``k``: ``came in: d99 at 1, d7 at 2``.
    ``k=None`` reads the whole stored ranking.
    """
    cut = k if k is not None else max(len(baseline), 1)
    old, new = _ranks(baseline), _ranks(current)
    lines: list[str] = []
    relevant = sorted(
        (doc for doc, grade in relevance.items() if grade >= 1 and old.get(doc, cut + 1) <= cut),
        key=lambda doc: old[doc],
    )
    for doc in relevant:
        before, after = old[doc], new.get(doc)
        if after is None:
            lines.append(f"{shown_id(doc)} rank {before} → gone")
        elif after > before:
            lines.append(f"{shown_id(doc)} rank {before} → {after}")
    newcomers = [
        f"{shown_id(doc)} at {rank}"
        for doc, rank in sorted(new.items(), key=lambda item: item[1])
        if rank <= cut and relevance.get(doc, 0) < 1 and old.get(doc, cut + 1) > cut
    ]
    shown = lines[:MAX_LINES]
    if len(lines) > MAX_LINES:
        shown.append(f"… and {len(lines) - MAX_LINES} more relevant documents lower")
    if newcomers:
        more = (
            f", … {len(newcomers) - MAX_NEWCOMERS} more" if len(newcomers) > MAX_NEWCOMERS else ""
        )
        shown.append("came in: " + ", ".join(newcomers[:MAX_NEWCOMERS]) + more)
    return tuple(shown)
