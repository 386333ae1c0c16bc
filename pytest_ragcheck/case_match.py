"""Which cases a run shares with its baseline: the heart of a baseline that survives growth.

A golden set grows in almost every pull request. Comparing whole sets would make every such
pull request "not comparable" and lose its regression check, so a run is compared with its
baseline on the *shared* cases only: same id and same content hash (query and relevance
information). Added, removed and edited cases are reported, never compared: an edited case's
old values answer a different question. Pure: no pytest, no syrupy.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from itertools import islice, repeat
from operator import lt

from pytest_ragcheck.baseline_doc import BaselineDoc
from pytest_ragcheck.sorting import natural_sorted

__all__ = ["CaseMatch", "match_cases", "natural_order"]

#: Ids shown per kind of change in messages and reports.
SHOWN_IDS = 5
#: Every ASCII character to its kind: digits to ``0``, the rest to ``a`` (an id's shape).
_SHAPE = str.maketrans({chr(c): "0" if chr(c).isdigit() else "a" for c in range(128)})


def natural_order(ids: Collection[str], *, hint: Iterable[str] = ()) -> list[str]:
    """``natural_sorted(ids)``, quicker for ids of one shape (``case-000017``, ``q0042``).

    ASCII ids with their digits at the same places in strings of the same length sort
    naturally exactly as they sort as plain text (digit runs of equal length compare as their
    numbers do), which is far quicker than building a natural key per id. ``hint``: the ids in
    the order they probably have (a stored file's), kept when it is sorted.
    """
    if not (
        len(ids) > 1
        and all(map(str.isascii, ids))
        and len(set(map(str.translate, ids, repeat(_SHAPE)))) == 1
    ):
        return natural_sorted(ids if isinstance(ids, list | tuple | set | frozenset) else list(ids))
    listed = [i for i in hint if i in ids] if hint else []
    if len(listed) == len(ids) and all(map(lt, listed, islice(listed, 1, None))):
        return listed
    return sorted(ids)


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
    common = before & after if before != after else set(before)
    added = tuple(natural_order(after - before))
    removed = tuple(natural_order(before - after))
    if stored.schema_version >= 2:
        edited = (
            set()
            if stored.case_hashes == current.case_hashes
            else {i for i in common if stored.case_hashes.get(i) != current.case_hashes.get(i)}
        )
        return CaseMatch(
            shared=tuple(natural_order(common - edited, hint=stored.cases)),
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
