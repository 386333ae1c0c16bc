"""The quick gather for the usual block: lists of str ids judged by ``{str: small int}`` dicts.

Once a ranking holds each id once, the grade at each of its ranks is simply
``rel.get(doc, 0)``: one C-level ``map`` per slice of queries fills a dense matrix of bytes
(then laid rank-major, as the engine reads it), with no dict of positions and no Python loop
per query. Anything else (a tuple, a dict subclass, a non-str first id, a grade outside
0..255...) returns ``None`` and the general gather (:mod:`.gather`) handles the block, with
its checks and error messages: the quick gather only takes blocks on which the general one
gives the same matrix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from itertools import chain, compress, repeat
from operator import itemgetter
from typing import Any, cast

import numpy as np
import numpy.typing as npt

__all__ = ["DenseBlock", "gather_dense"]

#: Queries per pass: a slice's objects are still in the CPU cache for its next pass (passes
#: over a whole block of 16384 queries were measured ~25% slower in a full evaluate() run).
_SLICE = 512

#: Ranks looked up per query (on average, in a block's first slice) beyond which rankings that
#: may repeat ids go to the general gather: one ``set`` per ranking to find repeated ids plus
#: one lookup per rank is then slower than its one dict of positions per ranking (at 100 ranks
#: and 3-30 judged ids per query: 1-15% slower; at 50 ranks still 7-15% faster).
_LONG = 64

_FIRST = itemgetter(0)
_JUST_STR = frozenset({str})
_ZERO = repeat(0)
_GRADE = cast(Callable[[Mapping[str, int], object, int], int], dict.get)
_EMPTY_KEY = repeat("")  # stands for the first key of an empty dict: passes the check


@dataclass(frozen=True, slots=True)
class DenseBlock:
    """What :func:`gather_dense` found, in the general gather's terms (see ``GradedBlock``)."""

    #: Grade at each rank (the first ``depth`` ranks), padded with 0; rank-major.
    grades: npt.NDArray[np.uint8]
    #: Deduplicated ranking lengths (with a ``depth_cap``, a ranking whose first ``depth_cap``
    #: ids are distinct keeps its own length: no metric reads a length beyond the cap).
    lengths: list[int]
    #: Every judged grade, query after query, and how many each query has.
    judged: bytearray
    n_judged: list[int]
    #: Whether the doc at each rank has a judgment (only when asked for); rank-major.
    marks: npt.NDArray[np.bool_] | None


def gather_dense(
    values: list[Any],
    rels: list[Mapping[str, int]],
    start: int,
    stop: int,
    *,
    depth_cap: int | None,
    distinct: bool,
    want_judged: bool,
) -> DenseBlock | None:
    """The graded matrix of queries ``start`` to ``stop``, or ``None`` when the general
    gather must make it.

    ``distinct``: the caller guarantees that no ranking repeats an id; otherwise repeated ids
    are looked for (one ``set`` per ranking, of its first ``depth_cap`` ids) and those
    rankings deduplicated, first position kept - or, for long rankings, left to the general
    gather (``_LONG``).
    """
    grades, judged = bytearray(), bytearray()
    flags = bytearray() if want_judged else None
    lengths: list[int] = []
    looked: list[int] = []  # ranks looked up per query: its length, at most ``depth_cap``
    n_judged: list[int] = []
    for lo in range(start, stop, _SLICE):
        hi = min(lo + _SLICE, stop)
        part, part_rels = values[lo:hi], rels[lo:hi]
        try:
            if not _gather_slice(
                part,
                part_rels,
                depth_cap,
                distinct,
                lo == start,
                (grades, judged, flags),
                lengths,
                looked,
            ):
                return None
        except Exception:  # an unhashable id, a grade not in 0..255...: the general gather
            return None  # decides (it raises its own precise error, or copes)
        n_judged += map(len, part_rels)
    rows = stop - start
    width = max(max(lengths), 1)
    depth = width if depth_cap is None else min(width, depth_cap)
    flat = np.frombuffer(grades, dtype=np.uint8)
    marks = None if flags is None else np.frombuffer(flags, dtype=np.bool_)
    if len(flat) == rows * depth:  # every ranking reaches the depth
        matrix = flat.reshape(rows, depth)
        if marks is not None:
            marks = marks.reshape(rows, depth)
    else:
        at = np.arange(depth) < np.array(looked, dtype=np.intp)[:, None]
        matrix = np.zeros((rows, depth), dtype=np.uint8)
        matrix[at] = flat
        if marks is not None:
            padded = np.zeros((rows, depth), dtype=np.bool_)
            padded[at] = marks
            marks = padded
    if marks is not None:
        marks = np.ascontiguousarray(marks.T)
    return DenseBlock(np.ascontiguousarray(matrix.T), lengths, judged, n_judged, marks)


def _gather_slice(
    values: list[Any],
    rels: list[Any],
    depth_cap: int | None,
    distinct: bool,
    first: bool,
    out: tuple[bytearray, bytearray, bytearray | None],
    lengths: list[int],
    looked: list[int],
) -> bool:
    """Append one slice's grades (and judgment flags) rank after rank, its judged grades, its
    lengths and ranks looked up; ``False`` when the slice is not for the quick gather (or,
    ``first`` of its block, finds rankings too long for it, see ``_LONG``)."""
    grades, judged, flags = out
    if set(map(type, values)) != {list} or set(map(type, rels)) != {dict}:
        return False
    sizes = list(map(len, values))
    heads, cut = values, sizes
    if depth_cap is not None and max(sizes) > depth_cap:  # look up the first ranks only
        heads = list(map(itemgetter(slice(depth_cap)), values))
        cut = list(map(len, heads))
    if not distinct and first and sum(cut) > _LONG * len(cut):
        return False
    if not distinct:
        unique = list(map(len, map(set, heads)))
        if unique != cut:  # a repeated id among the ranks looked up
            heads, sizes, cut = _deduplicate(values, heads, sizes, cut, unique, depth_cap)
    grades.extend(map(_GRADE, _each_rank(rels, cut), chain.from_iterable(heads), _ZERO))
    judged.extend(chain.from_iterable(map(dict.values, rels)))
    if flags is not None:
        flags.extend(map(dict.__contains__, _each_rank(rels, cut), chain.from_iterable(heads)))
    # the type checks of the general gather (the first id of each ranking, the first judged
    # id), made last: the slice's objects are in the CPU cache by now
    firsts = map(_FIRST, values if min(sizes) else compress(values, sizes))
    if not set(map(type, firsts)) <= _JUST_STR:
        return False
    if not set(map(type, map(next, map(iter, rels), _EMPTY_KEY))) <= _JUST_STR:
        return False
    lengths += sizes
    looked += cut
    return True


def _deduplicate(
    values: list[Any],
    heads: list[Any],
    sizes: list[int],
    cut: list[int],
    unique: list[int],
    depth_cap: int | None,
) -> tuple[list[Any], list[int], list[int]]:
    """New ``heads``, ``sizes`` and ``cut`` in which each ranking with a repeated id among its
    first ranks is replaced by its deduplicated copy (first position kept)."""
    heads, sizes, cut = list(heads), list(sizes), list(cut)
    for i, (n, u) in enumerate(zip(cut, unique, strict=True)):
        if n != u:
            ranking = list(dict.fromkeys(values[i]))
            heads[i] = ranking if depth_cap is None else ranking[:depth_cap]
            sizes[i], cut[i] = len(ranking), len(heads[i])
    return heads, sizes, cut


def _each_rank(rels: list[Any], cut: list[int]) -> Iterator[Mapping[str, int]]:
    """Each query's judgments once per rank looked up (a tuple per query when every query of
    the slice looks up as many ranks: cheaper to iterate than one ``repeat`` per query)."""
    n = cut[0]
    if cut.count(n) == len(cut):
        return chain.from_iterable(zip(*[rels] * n, strict=True)) if n else iter(())
    return chain.from_iterable(map(repeat, rels, cut))
