"""The common hit lists read as columns: ids (and texts and scores) without an object per hit.

Most retrievers return a list of ``str`` ids, of ``(id, float score)`` pairs, or of dicts
with an ``id`` (and ``text``, ``score``). Such a list is checked and split into columns by a
few C-level passes (:func:`read_columns`), and kept as :class:`HitColumns`: a sequence of
:class:`~pytest_ragcheck.run.hits.Hit` that makes each ``Hit`` only when one is read, while
the metrics, the baseline and the JSON report read the columns. Anything else (ints, other
dict keys, metadata, Document objects, a mixed list) goes through
:func:`~pytest_ragcheck.run.hits.normalize_hits`, and reads the same.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from itertools import repeat
from operator import countOf, itemgetter
from typing import Any, overload

from pytest_ragcheck.run.hits import Hit, normalize_hits

__all__ = [
    "HitColumns",
    "distinct_ids",
    "flat_columns",
    "hit_id_list",
    "read_columns",
    "read_hits",
]

_STR_ONLY = {str}
_FLOAT_ONLY = {float}
_NO_TEXT = {str, type(None)}
_NO_SCORE = {float, type(None)}
#: The keys a dict hit may have to be read as columns (``id`` required).
_DICT_KEYS = frozenset({"id", "text", "score"})
_FIRST, _SECOND = itemgetter(0), itemgetter(1)
_new_hit = tuple.__new__


class HitColumns(Sequence[Hit]):
    """Deduplicated hits as columns: ``ids``, and ``texts``/``scores`` (``None``: all None).

    Reads as the list of :class:`Hit` that :func:`normalize_hits` would return (equal to it,
    item by item, slices included); nothing ever changes the columns once made.
    """

    __slots__ = ("ids", "scores", "texts")

    def __init__(
        self,
        ids: list[str],
        texts: list[str | None] | None = None,
        scores: list[float | None] | None = None,
    ) -> None:
        self.ids = ids
        self.texts = texts
        self.scores = scores

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, index: int) -> Hit: ...
    @overload
    def __getitem__(self, index: slice) -> HitColumns: ...
    def __getitem__(self, index: int | slice) -> Hit | HitColumns:
        texts, scores = self.texts, self.scores
        if isinstance(index, slice):
            return HitColumns(
                self.ids[index],
                None if texts is None else texts[index],
                None if scores is None else scores[index],
            )
        hit_id = self.ids[index]  # IndexError as a list's
        text = None if texts is None else texts[index]
        score = None if scores is None else scores[index]
        hit: Hit = _new_hit(Hit, (hit_id, text, score, (), None))
        return hit

    def __iter__(self) -> Iterator[Hit]:
        texts, scores = self.texts, self.scores
        rows = zip(
            self.ids,
            repeat(None) if texts is None else texts,
            repeat(None) if scores is None else scores,
            repeat(()),
            repeat(None),
        )
        return map(_new_hit, repeat(Hit), rows)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, HitColumns | list):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a list's: mutable in kind, never hashed

    def __repr__(self) -> str:
        return repr(list(self))


def hit_id_list(hits: Sequence[Any]) -> list[str]:
    """The ids of ``hits`` (or of hit records) in rank order (the column itself for
    :class:`HitColumns`: never change it)."""
    if type(hits) is HitColumns:
        return hits.ids
    return [hit.id for hit in hits]


def distinct_ids(raw: list[Any]) -> list[str] | None:
    """A copy of ``raw`` when it is the most common hit list, distinct non-empty ``str`` ids
    (what :func:`read_columns` reads from it, in fewer passes), else ``None``."""
    if not raw or type(raw[0]) is not str:
        return None
    ids = list(raw)  # a copy: the retriever may reuse or change its list
    size = len(ids)
    if countOf(map(type, ids), str) != size:
        return None
    unique = set(ids)
    return ids if len(unique) == size and "" not in unique else None


def read_hits(raw: object, *, id_key: str | None = None) -> tuple[Sequence[Hit], int]:
    """:func:`normalize_hits`, as :class:`HitColumns` for the common shapes."""
    if type(raw) is list and raw:
        found = read_columns(raw, id_key=id_key)
        if found is not None:
            return found
    return normalize_hits(raw, id_key=id_key)


def read_columns(raw: list[Any], *, id_key: str | None = None) -> tuple[HitColumns, int] | None:
    """The hits of ``raw`` as columns and the number of repeated ids dropped, when every item
    has one common shape: a non-empty ``str`` id; a ``(str id, float score)`` tuple; with no
    ``id_key``, a dict of an ``id`` (non-empty ``str``), a ``text`` (``str`` or ``None``)
    and a ``score`` (``float`` or ``None``), the last two optional. ``None`` otherwise.
    """
    kinds = set(map(type, raw))
    texts: list[Any] | None = None
    scores: list[Any] | None = None
    unique: Collection[Any] | None = None  # the distinct ids, when a pass made them
    if kinds == _STR_ONLY:
        ids: list[Any] = list(raw)  # a copy: the retriever may reuse or change its list
    else:
        found = _split(raw, kinds, id_key)
        if found is None or set(map(type, found[0])) != _STR_ONLY:
            return None
        ids, texts, scores, unique = found
    if unique is None:
        unique = set(ids)
    if "" in unique:
        return None  # the general reader says which hit and why
    n = len(ids)
    if len(unique) == n:
        return HitColumns(ids, texts, scores), 0
    # repeated ids: each keeps its first position (the dict's last write for an id is its
    # first position, read backwards)
    firsts = sorted(dict(zip(reversed(ids), range(n - 1, -1, -1), strict=True)).values())
    pick = itemgetter(*firsts)
    kept = [pick(ids)] if len(firsts) == 1 else list(pick(ids))
    return (
        HitColumns(
            kept,
            None if texts is None else _picked(pick, texts, len(firsts)),
            None if scores is None else _picked(pick, scores, len(firsts)),
        ),
        n - len(kept),
    )


def _split(
    raw: list[Any], kinds: set[type], id_key: str | None
) -> tuple[list[Any], list[Any] | None, list[Any] | None, Collection[Any] | None] | None:
    """The ids (unchecked), texts and scores of ``(id, score)`` tuples or of dicts, and the
    distinct ids when they are known already."""
    if kinds == {tuple}:
        try:  # one C-level pass: each tuple a pair, and the ids distinct when none merged
            pairs = dict(raw)
        except Exception:  # not pairs, or an id that is no key: the general reader says so
            return None
        if len(pairs) == len(raw):
            ids, scores, unique = list(pairs), list(pairs.values()), pairs.keys()
        else:  # a repeated id: its first position and score count (read_columns keeps them)
            ids, scores, unique = list(map(_FIRST, raw)), list(map(_SECOND, raw)), None
        if set(map(type, scores)) != _FLOAT_ONLY:
            return None
        return ids, None, scores, unique
    if kinds != {dict} or id_key is not None or not all(map(_DICT_KEYS.issuperset, raw)):
        return None
    texts = [item.get("text") for item in raw]
    scores = [item.get("score") for item in raw]
    if not set(map(type, texts)) <= _NO_TEXT or not set(map(type, scores)) <= _NO_SCORE:
        return None
    size = len(raw)
    return (
        [item.get("id") for item in raw],
        None if texts.count(None) == size else texts,
        None if scores.count(None) == size else scores,
        None,
    )


def _picked(pick: itemgetter[Any], column: list[Any], size: int) -> list[Any]:
    return [pick(column)] if size == 1 else list(pick(column))


def flat_columns(
    lists: Sequence[Sequence[Hit]],
) -> tuple[list[str], list[str | None], list[float | None]]:
    """The ids, texts and scores of every hit of ``lists``, in order, one list each."""
    ids: list[str] = []
    texts: list[str | None] = []
    scores: list[float | None] = []
    for hits in lists:
        if type(hits) is HitColumns:
            ids += hits.ids
            size = len(hits.ids)
            texts += repeat(None, size) if hits.texts is None else hits.texts
            scores += repeat(None, size) if hits.scores is None else hits.scores
        else:
            ids += [h.id for h in hits]
            texts += [h.text for h in hits]
            scores += [h.score for h in hits]
    return ids, texts, scores
