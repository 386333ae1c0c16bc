"""A new baseline's cases built and written in bulk, and compared with a stored file as text.

A run of 200,000 cases spent seconds in per-case loops: rounding, one dict per case, one JSON
encoder call per line, one natural sort key per id. Here each step is a few passes over all
values (each distinct value rounded and formatted once), and an unchanged file is recognised by
comparing its cases block with the one this run writes, which leaves nothing to parse. Each
quick path gives exactly what the general one does, or ``None`` so the caller takes the general
one (an id that needs escaping, a value that is not a finite float...). Pure: no pytest.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from itertools import chain, repeat
from operator import add, attrgetter, itemgetter, not_
from typing import TYPE_CHECKING, Protocol

from pytest_ragcheck.common.escapes import escapes
from pytest_ragcheck.common.sorting import natural_order

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import CaseResult, Result

__all__ = [
    "CaseBlock",
    "ResultHits",
    "StoredCases",
    "case_block",
    "result_cases",
    "same_cases",
]


class StoredCases(Protocol):
    """What the rows read of a baseline document (:class:`~pytest_ragcheck.baseline.document.BaselineDoc`)."""

    @property
    def metrics(self) -> tuple[str, ...]: ...
    @property
    def cases(self) -> Mapping[str, Mapping[str, float]]: ...
    @property
    def case_hashes(self) -> Mapping[str, str]: ...
    @property
    def hits(self) -> Mapping[str, tuple[str, ...]]: ...


@dataclass(frozen=True, slots=True)
class CaseBlock:
    """The per-case part of a stored baseline, as ``BaselineDoc`` holds it."""

    cases: dict[str, dict[str, float]]
    hashes: dict[str, str]
    hits: Mapping[str, tuple[str, ...]]


class ResultHits(Mapping[str, tuple[str, ...]]):
    """Case id -> this run's ranked ids up to ``depth``, read from the result when asked for."""

    __slots__ = ("_by_id", "_cases", "_depth", "_ids")

    def __init__(self, ids: list[str], cases: list[CaseResult], depth: int) -> None:
        self._ids = ids
        self._cases = cases
        self._depth = depth
        self._by_id: dict[str, CaseResult] | None = None

    def _case(self, case_id: str) -> CaseResult:
        if self._by_id is None:
            self._by_id = dict(zip(self._ids, self._cases, strict=True))
        return self._by_id[case_id]

    def __getitem__(self, case_id: str) -> tuple[str, ...]:
        from pytest_ragcheck.evaluation.result import hit_ids

        return tuple(hit_ids(self._case(case_id))[: self._depth])

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def flat(self, order: list[str]) -> tuple[list[str], list[int]]:
        """The ranked ids of every case of ``order`` in one list, and how many each case has."""
        depth = self._depth
        cases = self._cases if order == self._ids else list(map(self._case, order))
        ranked = list(map(attrgetter("_ranked"), cases))
        lists = (
            list(map(itemgetter(0), ranked))
            if None not in ranked
            else [c.hits if r is None else r[0] for c, r in zip(cases, ranked, strict=True)]
        )
        from pytest_ragcheck.run.columns import hit_id_list

        ids = list(map(hit_id_list, lists))  # a column itself: never changed here
        if max(map(len, ids), default=0) > depth:
            ids = [r[:depth] for r in ids]
        return list(chain.from_iterable(ids)), list(map(len, ids))


def result_cases(
    result: Result, names: tuple[str, ...], *, precision: int, depth: int
) -> CaseBlock | None:
    """Per case of ``result``: its values of ``names`` rounded for storage, its hash and hits.

    ``None`` unless every evaluated case has a finite float for every name (the usual run);
    the caller's loop handles the rest (and names a bad value). A run has few distinct rows of
    values: each is rounded (the costly part) and made a dict once, and the cases that have it
    share that dict (nothing changes a baseline's values once made).
    """
    evaluated = result.evaluated
    if not evaluated or not names:
        return None
    try:
        rows = list(map(itemgetter(*names), map(attrgetter("values"), evaluated)))
    except KeyError:
        return None
    if len(names) == 1:
        rows = list(zip(rows))
    if set(map(type, chain.from_iterable(rows))) != {float}:
        return None
    distinct = set(rows)  # -0.0 and 0.0 are one row here, and both are stored as 0.0
    if not all(map(math.isfinite, chain.from_iterable(distinct))):
        return None
    made = {
        row: dict(zip(names, [round(value, precision) + 0.0 for value in row], strict=True))
        for row in distinct  # round_value
    }
    ids = list(map(attrgetter("id"), evaluated))
    known = result.golden.case_hashes if result.golden is not None else {}
    return CaseBlock(
        cases=dict(zip(ids, map(made.__getitem__, rows), strict=True)),
        hashes=known  # the golden set's own, when it holds exactly these cases in this order
        if type(known) is dict and len(known) == len(ids) and list(known) == ids
        else dict(zip(ids, map(known.get, ids, repeat("")), strict=True)),
        hits=ResultHits(ids, evaluated, depth),
    )


def case_block(doc: StoredCases, order: list[str]) -> str | None:
    """The lines of ``doc``'s cases block, in ``order``, exactly as ``to_json`` writes them.

    ``None`` when this quick way might not give exactly that (see :func:`case_lines`).
    """
    lines = case_lines(doc, order)
    return None if lines is None else "".join(lines)


def case_lines(doc: StoredCases, order: list[str]) -> Iterator[str] | None:
    """:func:`case_block` in pieces of a few thousand lines (made as they are read).

    ``None`` when this quick way might not give exactly the lines ``to_json`` writes: no case,
    a case without every metric, a value that is not a finite float (or is ``-0.0``), a string
    to escape. Each distinct row of values is spelled once (the cases of a run share their
    rows' dicts), and each piece is one ``join`` (no ranked-id list or text per case).
    """
    names = sorted(doc.metrics)
    if not order or not names:
        return None
    rows = list(map(doc.cases.__getitem__, order))
    keys = list(map(id, rows))
    ends = _row_ends(dict(zip(keys, rows, strict=True)), names)
    if ends is None:
        return None
    hashes = list(map(doc.case_hashes.get, order, repeat("")))
    found = doc.hits
    ids, counts = (
        found.flat(order)
        if isinstance(found, ResultHits)
        else _flat(list(map(found.get, order, repeat(()))))
    )
    try:
        if escapes("".join(chain(order, hashes, ids))):
            return None
    except TypeError:  # an id that is not a string
        return None
    row_ends = list(map(ends.__getitem__, keys))
    same = counts[0] if len(set(counts)) == 1 else 0
    return (
        _same_count_lines(order, hashes, ids, row_ends, same)
        if same
        else _lines(order, hashes, ids, counts, row_ends)
    )


def _row_ends(rows: dict[int, Mapping[str, float]], names: list[str]) -> dict[int, str] | None:
    """What ends the line of a case with each of ``rows`` (its values), or ``None``."""
    found = list(rows.values())
    if set(map(len, found)) != {len(names)}:
        return None
    try:
        values = list(map(itemgetter(*names), found))
    except KeyError:
        return None
    if len(names) == 1:
        values = list(zip(values))
    flat = list(chain.from_iterable(values))
    if set(map(type, flat)) != {float} or not all(map(math.isfinite, flat)):
        return None
    if any(math.copysign(1.0, zero) < 0 for zero in filter(not_, flat)):
        return None  # -0.0 and 0.0 are one key below
    text = {value: repr(value) for value in set(flat)}  # how json writes a finite float
    fields = [json.dumps(name, ensure_ascii=False) + ": " for name in names]
    return {
        key: '], "values": {' + ", ".join(map(add, fields, map(text.__getitem__, row))) + "}}"
        for key, row in zip(rows, values, strict=True)
    }


def _flat(ranked: list[tuple[str, ...]]) -> tuple[list[str], list[int]]:
    return list(chain.from_iterable(ranked)), list(map(len, ranked))


def _same_count_lines(
    order: list[str], hashes: list[str], ids: list[str], ends: list[str], count: int
) -> Iterator[str]:
    """The lines when every case has ``count`` (> 0) ranked ids: fixed places in one list."""
    width = 5 + 2 * count
    for first in range(0, len(order), _CHUNK):
        last = min(first + _CHUNK, len(order))
        n = last - first
        parts = [_NEXT_ID] * (width * n)
        parts[0::width] = [_LEAD] * n
        parts[1::width] = order[first:last]
        parts[2::width] = [_TO_HASH] * n
        parts[3::width] = hashes[first:last]
        parts[4::width] = [_TO_HITS] * n
        for rank in range(count):
            parts[5 + 2 * rank :: width] = ids[first * count + rank : last * count : count]
        parts[width - 1 :: width] = map(_QUOTE.__add__, ends[first:last])
        if not first:
            parts[0] = _FIRST_LEAD
        yield "".join(parts)


def _lines(
    order: list[str], hashes: list[str], ids: list[str], counts: list[int], ends: list[str]
) -> Iterator[str]:
    """The lines for any numbers of ranked ids (none included): the text between two ids
    of different cases (a case's end, the lines of cases without ids, a case's start) is one
    piece."""
    at = 0
    for first in range(0, len(order), _CHUNK):
        last = min(first + _CHUNK, len(order))
        size = sum(counts[first:last])
        parts = [_NEXT_ID] * (2 * size + 1)
        parts[1::2] = ids[at : at + size]
        at += size
        carry = ""
        place = 0
        lead = _LEAD if first else _FIRST_LEAD
        for case_id, case_hash, count, end in zip(
            order[first:last], hashes[first:last], counts[first:last], ends[first:last], strict=True
        ):
            head = lead + case_id + _TO_HASH + case_hash + _TO_HITS
            lead = _LEAD
            if count:
                parts[place] = carry + head
                place += 2 * count
                carry = _QUOTE + end
            else:
                carry = carry + head[:-1] + end  # ``[]``: no first id to open
        parts[place] = carry
        yield "".join(parts)


#: Lines written at a time.
_CHUNK = 4096
#: The fixed pieces of a line: ``    "<id>": {"hash": "<hash>", "hits": ["<id>", "<id>"<end>``.
_FIRST_LEAD = '    "'
_LEAD = ',\n    "'
_TO_HASH = '": {"hash": "'
_TO_HITS = '", "hits": ["'
_NEXT_ID = '", "'
_QUOTE = '"'


def same_cases(
    doc: StoredCases, text: str, start: int, end: int
) -> Mapping[str, Mapping[str, float]] | None:
    """``doc``'s cases in file order when ``text[start:end]`` is exactly its cases block."""
    order = natural_order(doc.cases, hint=doc.cases)
    lines = case_lines(doc, order)
    if lines is None:
        return None
    at = start
    for piece in lines:  # compared a piece at a time: the first difference ends it
        if not text.startswith(piece, at) or at + len(piece) > end:
            return None
        at += len(piece)
    if at != end:
        return None
    cases = doc.cases
    return cases if list(cases) == order else {i: cases[i] for i in order}
