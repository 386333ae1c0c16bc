"""The general gather: the engine's Python-level pass for any block the quick one declines.

For each block of queries one pass maps every query to graded ranks: for ranked lists, a
``{doc: first rank}`` dict built in C (it also reveals repeated ids) in which the judged docs are
looked up; for ``{doc: score}`` runs, each retrieved doc is looked up in the query's judgments
and numpy sorts the rows by score. Grades are gathered into bytearrays when they fit in 0..255.
Usual blocks of ranked lists take the quick gather of :mod:`.dense` instead (see :mod:`.block`).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping, Sequence
from itertools import count, repeat
from numbers import Real
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from pytest_ragcheck.metrics.reference import _grade, rank_scores

__all__ = ["BoolArray", "IntArray"]

IntArray: TypeAlias = npt.NDArray[np.int64]
BoolArray: TypeAlias = npt.NDArray[np.bool_]

_MINUS_ONE = repeat(-1)
_ZERO = repeat(0)


def _gather(
    values: list[Any],
    rels: list[Mapping[str, int]],
    by_score: bool,
    labels: list[str] | None,
    offset: int,
) -> tuple[Any, list[int], list[int], Any]:
    """The general gather: judged grades, their count and the length of each query, and
    the judged docs' ranks (list runs) or the retrieved docs' grades (score runs)."""
    gather = _gather_scores if by_score else _gather_lists
    # Grades are usually small non-negative ints: gather them into bytearrays (no Python
    # int list, no conversion pass). A grade outside 0..255 (or not an int) makes
    # bytearray.extend raise; the block is then gathered again into plain lists, which
    # also produces the precise error message for a bad grade.
    try:
        judged: Any = bytearray()  # all judged grades, query after query
        # list runs: the 0-based rank of each judged doc (-1 if absent), always a list;
        # score runs: the grade of each retrieved doc in mapping order
        found: Any = bytearray() if by_score else []
        n_judged: list[int] = []
        lengths: list[int] = []
        gather(values, rels, labels, offset, judged, n_judged, lengths, found)
    except (TypeError, ValueError, OverflowError):
        judged, found, n_judged, lengths = [], [], [], []
        gather(values, rels, labels, offset, judged, n_judged, lengths, found)
    return judged, n_judged, lengths, found


def _label(labels: Sequence[str] | None, i: int) -> str:
    """How an error message names query ``i``: its query id, or its index."""
    return f"query {labels[i]!r}" if labels is not None else f"ranking #{i}"


def _check_pair(
    labels: Sequence[str] | None, i: int, ranking: object, rel: object, by_score: bool
) -> None:
    """Slow path of the gather loops: accept any Mapping/Sequence, reject the rest clearly."""
    if not isinstance(rel, Mapping):
        raise TypeError(
            f"qrels: the judgments of {_label(labels, i)} must be a mapping "
            f"{{doc_id: grade}}, got {type(rel).__name__} {rel!r}"[:300]
        )
    is_mapping = isinstance(ranking, Mapping)
    is_list = isinstance(ranking, Sequence) and not isinstance(ranking, str | bytes)
    if (by_score and is_mapping) or (not by_score and is_list):
        return
    if is_mapping or is_list:
        first = "{doc_id: score} mappings" if by_score else "lists of ids"
        raise TypeError(
            f"run: the ranking of {_label(labels, i)} is a {type(ranking).__name__} but the "
            f"first ranking of the run makes it a run of {first}; use one kind for the whole run"
        )
    raise TypeError(
        f"run: the ranking of {_label(labels, i)} must be a list of ids in rank order or a "
        f"{{doc_id: score}} mapping, got {type(ranking).__name__} {ranking!r}"[:300]
    )


def _id_error(labels: Sequence[str] | None, i: int, doc: object, what: str) -> TypeError:
    return TypeError(
        f"{what}: document ids must be str, got {type(doc).__name__} {doc!r} in "
        f"{_label(labels, i)} (convert ids with str() on both the run and the qrels)"
    )


def _gather_lists(
    values: list[Any],
    rels: list[Mapping[str, int]],
    labels: Sequence[str] | None,
    offset: int,
    judged: list[Any] | bytearray,
    n_judged: list[int],
    lengths: list[int],
    positions: list[int],
) -> None:
    """The one Python-level pass over a block of list rankings (the hot loop of the engine).

    Per query: one dict {doc: first rank} built in C (which also reveals duplicates), then the
    judged docs are looked up in it, so only judged docs produce Python-level output.
    """
    judged_ext, n_judged_add = judged.extend, n_judged.append
    lengths_add, positions_ext = lengths.append, positions.extend
    minus_one, bmap = _MINUS_ONE, map
    for i, ranking, rel in zip(count(offset), values, rels, strict=False):
        if type(ranking) is not list or type(rel) is not dict:
            _check_pair(labels, i, ranking, rel, False)
        n = len(ranking)
        if n and type(ranking[0]) is not str and not isinstance(ranking[0], str):
            raise _id_error(labels, i, ranking[0], "run")
        pos = dict(zip(ranking, range(n), strict=True))
        if len(pos) != n:  # duplicates: keep the first position of each id
            pos = dict(zip(dict.fromkeys(ranking), range(n), strict=False))
            n = len(pos)
        if rel:
            first = next(iter(rel))
            if type(first) is not str and not isinstance(first, str):
                raise _id_error(labels, i, first, "qrels")
        lengths_add(n)
        n_judged_add(len(rel))
        judged_ext(rel.values())
        positions_ext(bmap(pos.get, rel, minus_one))


def _gather_scores(
    values: list[Any],
    rels: list[Mapping[str, int]],
    labels: Sequence[str] | None,
    offset: int,
    judged: list[Any] | bytearray,
    n_judged: list[int],
    lengths: list[int],
    dense: list[int] | bytearray,
) -> None:
    """The one Python-level pass over a block of {doc: score} rankings.

    Each retrieved doc is looked up in the query's (small) judgments; numpy then sorts by score.
    """
    judged_ext, n_judged_add = judged.extend, n_judged.append
    lengths_add, dense_ext = lengths.append, dense.extend
    zero, bmap = _ZERO, map
    for i, ranking, rel in zip(count(offset), values, rels, strict=False):
        if type(ranking) is not dict or type(rel) is not dict:
            _check_pair(labels, i, ranking, rel, True)
        if ranking:
            first = next(iter(ranking))
            if type(first) is not str and not isinstance(first, str):
                raise _id_error(labels, i, first, "run")
            score = ranking[first]
            if type(score) is not float and (
                isinstance(score, bool) or not isinstance(score, Real)
            ):
                raise TypeError(
                    f"run: scores must be numbers, got {type(score).__name__} {score!r} "
                    f"in {_label(labels, i)}"
                )
        if rel:
            first = next(iter(rel))
            if type(first) is not str and not isinstance(first, str):
                raise _id_error(labels, i, first, "qrels")
        lengths_add(len(ranking))
        n_judged_add(len(rel))
        judged_ext(rel.values())
        dense_ext(bmap(rel.get, ranking, zero))


def _judged_flags(values: list[Any], rels: list[Mapping[str, int]]) -> bytearray:
    """For ``{doc: score}`` rankings: 1 for each retrieved doc with a judgment, in mapping order."""
    flags = bytearray()
    for ranking, rel in zip(values, rels, strict=True):
        flags.extend(map(rel.__contains__, ranking))
    return flags


def _pad_index(lens: IntArray) -> tuple[IntArray, IntArray]:
    """(row, column) of each element when rows of these lengths are laid in a matrix."""
    starts = np.cumsum(lens) - lens
    row_idx = np.repeat(np.arange(len(lens)), lens)
    col_idx = np.arange(int(lens.sum())) - np.repeat(starts, lens)
    return row_idx, col_idx


def _judged_array(
    judged: list[Any] | bytearray,
    rels: list[Mapping[str, int]],
    labels: list[str] | None,
    offset: int,
) -> IntArray:
    """All judged grades as int64, rejecting floats, strings and other non-integers."""
    if isinstance(judged, bytearray):  # only ints in 0..255 got in
        return np.frombuffer(judged, dtype=np.uint8).astype(np.int64)
    arr = np.array(judged) if judged else np.zeros(0, dtype=np.int64)
    if arr.dtype.kind in "iub" and arr.ndim == 1:
        return arr.astype(np.int64, copy=False)
    for i, rel in enumerate(rels, offset):  # slow path: find the offending grade for the message
        for doc, g in rel.items():
            _grade(doc, g, f"qrels: {_label(labels, i)}")
    raise TypeError("qrels: relevance grades must be integers")  # pragma: no cover


def _scores_float32(values: list[Any]) -> npt.NDArray[np.float32]:
    """All scores of a block, query after query, as float32 (trec_eval's precision).

    ``struct`` packs one query's scores in one C call, which is faster than any per-element
    iterator protocol; the bytes are then viewed by numpy without a copy.
    """
    packers: dict[int, Callable[..., bytes]] = {}
    parts: list[bytes] = []
    add = parts.append
    try:
        for ranking in values:
            n = len(ranking)
            pack = packers.get(n)
            if pack is None:
                pack = packers[n] = struct.Struct(f"{n}d").pack
            add(pack(*ranking.values()))
    except struct.error as exc:
        raise TypeError(f"run: scores must be numbers ({exc})") from None
    doubles = np.frombuffer(b"".join(parts), dtype=np.float64)
    with np.errstate(over="ignore"):  # like trec_eval: beyond float32 range -> inf
        return doubles.astype(np.float32)


def _rank_by_score(
    values: list[Any],
    rels: list[Mapping[str, int]],
    dense: list[int] | bytearray,
    lens: IntArray,
    width: int,
    depth: int,
    labels: list[str] | None,
    offset: int,
    flags: bytearray | None = None,
) -> tuple[IntArray, BoolArray | None]:
    """Grades in rank order (first ``depth`` ranks) for ``{doc: score}`` rankings, and with
    ``flags`` (see :func:`_judged_flags`) whether each ranked doc has a judgment.

    numpy sorts every row by its float32 scores (see :func:`rank_scores`); it knows nothing of
    doc ids, so a row where tied scores could change the result (a tie between docs of
    different grades, or judged and unjudged docs, within the first ``depth`` ranks, or a tie
    across the cut) is re-ranked exactly by :func:`rank_scores`.
    """
    total = int(lens.sum())
    scores_flat = _scores_float32(values)
    nan = np.isnan(scores_flat)
    if nan.any():
        row = int(np.searchsorted(np.cumsum(lens), int(np.flatnonzero(nan)[0]), side="right"))
        raise ValueError(
            f"run: scores must not be NaN (found one in {_label(labels, offset + row)})"
        )
    if isinstance(dense, bytearray):  # grades known to be in 0..255
        grades_flat: npt.NDArray[np.integer[Any]] = np.frombuffer(dense, dtype=np.uint8)
    else:
        grades_flat = np.fromiter(dense, dtype=np.int64, count=total)
        np.maximum(grades_flat, 0, out=grades_flat)  # negative grades count as 0
    rows = len(lens)
    flags_flat = None if flags is None else np.frombuffer(flags, dtype=np.uint8).astype(np.bool_)
    marks: BoolArray | None = None
    if rows * width == total:  # every ranking has the same length
        scores = scores_flat.reshape(rows, width)
        grades = grades_flat.reshape(rows, width)
        if flags_flat is not None:
            marks = flags_flat.reshape(rows, width)
    else:
        at = _pad_index(lens)
        scores = np.full((rows, width), np.nan, dtype=np.float32)  # sorts last, never ties
        scores[at] = scores_flat
        grades = np.zeros((rows, width), dtype=grades_flat.dtype)
        grades[at] = grades_flat
        if flags_flat is not None:
            marks = np.zeros((rows, width), dtype=np.bool_)
            marks[at] = flags_flat
    # runs are often written best first: then the rows need no sorting at all
    in_order = scores[:, 1:] <= scores[:, :-1]
    in_order |= np.isnan(scores[:, 1:])  # padding after a shorter ranking
    if in_order.all():
        ranked_scores = scores[:, : depth + 1]
        graded: IntArray = grades[:, :depth].astype(np.int64)
        judged = None if marks is None else marks[:, :depth].copy()
    else:
        order = np.argsort(-scores, axis=1)[:, : depth + 1]
        ranked_scores = np.take_along_axis(scores, order, axis=1)
        graded = np.take_along_axis(grades, order[:, :depth], axis=1).astype(np.int64)
        judged = None if marks is None else np.take_along_axis(marks, order[:, :depth], axis=1)
    # rows to redo: a tie between docs that differ (grade, or judged or not) inside the top
    # ``depth``, or any tie across the cut (a doc from below it may belong above it)
    tie = ranked_scores[:, 1:] == ranked_scores[:, :-1]
    differ = graded[:, 1:] != graded[:, :-1]
    if judged is not None:
        differ |= judged[:, 1:] != judged[:, :-1]
    risky = (tie[:, : depth - 1] & differ).any(axis=1)
    if tie.shape[1] >= depth:
        risky |= tie[:, depth - 1]
    for row in np.flatnonzero(risky).tolist():
        rel = rels[row]
        ordered = rank_scores(values[row])[:depth]
        graded[row, : len(ordered)] = [max(rel.get(doc, 0), 0) for doc in ordered]
        if judged is not None:
            judged[row, : len(ordered)] = [doc in rel for doc in ordered]
    return graded, judged
