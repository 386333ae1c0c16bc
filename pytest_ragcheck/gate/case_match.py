"""Which cases a run shares with its baseline: the heart of a baseline that survives growth.

A golden set grows in almost every pull request. Comparing whole sets would make every such
pull request "not comparable" and lose its regression check, so a run is compared with its
baseline on the *shared* cases only: same id and same content hash (query and relevance
information). Added, removed and edited cases are reported, never compared: an edited case's
old values answer a different question. Pure: no pytest, no syrupy.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from pytest_ragcheck.baseline.document import BaselineDoc
from pytest_ragcheck.common.sorting import natural_order

__all__ = ["CaseMatch", "match_cases"]

#: Ids shown per kind of change in messages and reports.
SHOWN_IDS = 5


@dataclass(frozen=True, slots=True)
class CaseMatch:
    """The cases of a run against those of its baseline (ids in natural order)."""

    shared: tuple[str, ...]
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    edited: tuple[str, ...] = ()
    #: Why nothing can be compared (a version-1 file whose cases changed), else "".
    reason: str = ""

    @property
    def whole(self) -> bool:
        """Both sides hold exactly the shared cases (the stored aggregates still apply)."""
        return not (self.added or self.removed or self.edited)

    def summary(self) -> str:
        """``"5 added (q21, q22, …), 1 edited (q3)"``, or ``""`` when nothing changed."""
        parts = []
        for label, ids in (
            ("added", self.added),
            ("removed", self.removed),
            ("edited", self.edited),
        ):
            if ids:
                shown = ", ".join(ids[:SHOWN_IDS]) + (", …" if len(ids) > SHOWN_IDS else "")
                parts.append(f"{len(ids)} {label} ({shown})")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, object]:
        """The report form: counts and the first ids of each kind."""
        out: dict[str, object] = {"shared": len(self.shared)}
        for label, ids in (
            ("added", self.added),
            ("removed", self.removed),
            ("edited", self.edited),
        ):
            out[label] = len(ids)
            out[f"{label}_ids"] = list(ids[:SHOWN_IDS])
        return out


def match_cases(
    stored: BaselineDoc,
    current: BaselineDoc,
    *,
    subset_hash: Callable[[Collection[str]], str] | None = None,
) -> CaseMatch:
    """Split the cases of ``current`` and ``stored`` into shared, added, removed and edited.

    A version-1 file (pytest-ragcheck 0.1) has no per-case hashes: its cases count as shared
    when the golden set is unchanged, or when the current cases with its ids hash to its
    golden hash (``subset_hash``: cases were only added); otherwise nothing can be told apart.
    """
    before, after = stored.cases.keys(), current.cases.keys()
    same = before == after
    common = set(before) if same else before & after
    added = tuple(natural_order(after - before))
    removed = tuple(natural_order(before - after))
    if stored.schema_version >= 2:
        edited = (
            set()
            if stored.case_hashes == current.case_hashes
            else {i for i in common if stored.case_hashes.get(i) != current.case_hashes.get(i)}
        )
        whole = same and not edited  # then the stored ids are the shared ones, as they are
        return CaseMatch(
            shared=tuple(
                natural_order(stored.cases if whole else common - edited, hint=stored.cases)
            ),
            added=added,
            removed=removed,
            edited=tuple(natural_order(edited)),
        )
    unchanged = stored.golden_hash == current.golden_hash or (
        subset_hash is not None and not removed and subset_hash(set(before)) == stored.golden_hash
    )
    if unchanged:
        return CaseMatch(
            shared=tuple(natural_order(common, hint=stored.cases)), added=added, removed=removed
        )
    return CaseMatch(
        shared=(),
        added=added,
        removed=removed,
        reason=(
            "the golden set changed, and this baseline was written by pytest-ragcheck 0.1, "
            "which kept no per-case hashes to tell changed cases from unchanged ones; "
            "re-record it once with --snapshot-update (later additions and edits are then "
            "compared case by case)"
        ),
    )
