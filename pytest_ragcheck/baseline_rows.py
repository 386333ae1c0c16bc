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
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import chain, repeat
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING

from pytest_ragcheck.sorting import natural_order

if TYPE_CHECKING:
    from pytest_ragcheck.baseline_doc import BaselineDoc
    from pytest_ragcheck.result import CaseResult, Result

__all__ = [
    "CaseBlock",
    "ResultHits",
    "case_block",
    "result_cases",
    "same_cases",
]

#: Characters a JSON string escapes (``json.dumps`` with ``ensure_ascii=False``).
_ESCAPED = re.compile(r'[\x00-\x1f"\\]')


@dataclass(frozen=True, slots=True)
class CaseBlock:
    """The per-case part of a stored baseline, as ``BaselineDoc`` holds it."""

    cases: dict[str, dict[str, float]]
    hashes: dict[str, str]
    hits: Mapping[str, tuple[str, ...]]


class ResultHits(Mapping[str, tuple[str, ...]]):
    """Case id -> this run's ranked ids up to ``depth``, read from the result when asked for."""

    __slots__ = ("_cases", "_depth")

    def __init__(self, cases: Mapping[str, CaseResult], depth: int) -> None:
        self._cases = cases
        self._depth = depth

    def __getitem__(self, case_id: str) -> tuple[str, ...]:
        from pytest_ragcheck.result import hit_ids

        return tuple(hit_ids(self._cases[case_id])[: self._depth])

    def __iter__(self) -> Iterator[str]:
        return iter(self._cases)

    def __len__(self) -> int:
        return len(self._cases)

    def many(self, order: Iterable[str]) -> list[tuple[str, ...]]:
        """The ranked ids of every case of ``order`` (``hit_ids`` of each, in bulk)."""
        depth = self._depth
        get_id = attrgetter("id")
        return [
            tuple(map(get_id, (c._ranked[0] if c._ranked is not None else c.hits)[:depth]))
            for c in map(self._cases.__getitem__, order)
        ]


def result_cases(
    result: Result, names: tuple[str, ...], *, precision: int, depth: int
) -> CaseBlock | None:
    """Per case of ``result``: its values of ``names`` rounded for storage, its hash and hits.

    ``None`` unless every evaluated case has a finite float for every name (the usual run);
    the caller's loop handles the rest (and names a bad value). Each distinct value is rounded
    once: a run has few distinct values, and ``round`` is the costly part.
    """
    evaluated = result.evaluated
    if not evaluated or not names:
        return None
    try:
        rows = list(map(itemgetter(*names), map(attrgetter("values"), evaluated)))
    except KeyError:
        return None
    flat = list(chain.from_iterable(rows)) if len(names) > 1 else rows
    if set(map(type, flat)) != {float} or not all(map(math.isfinite, flat)):
        return None
    rounded = {value: round(value, precision) + 0.0 for value in set(flat)}  # round_value
    stored = map(rounded.__getitem__, flat)
    ids = list(map(attrgetter("id"), evaluated))
    known = result.golden.case_hashes if result.golden is not None else {}
    per_case = map(dict, map(zip, repeat(names), zip(*[stored] * len(names), strict=True)))
    return CaseBlock(
        cases=dict(zip(ids, per_case, strict=True)),
        hashes=dict(zip(ids, map(known.get, ids, repeat("")), strict=True)),
        hits=ResultHits(dict(zip(ids, evaluated, strict=True)), depth),
    )


def case_block(doc: BaselineDoc, order: list[str]) -> str | None:
    """The lines of ``doc``'s cases block, in ``order``, exactly as ``to_json`` writes them.

    ``None`` when this quick way might not give exactly that: no case, a case without every
    metric, a value that is not a finite float, a string to escape.
    """
    names = sorted(doc.metrics)
    if not order or not names:
        return None
    rows = list(map(doc.cases.__getitem__, order))
    if set(map(len, rows)) != {len(names)}:
        return None
    try:
        values = list(map(itemgetter(*names), rows))
    except KeyError:
        return None
    flat = list(chain.from_iterable(values)) if len(names) > 1 else values
    if set(map(type, flat)) != {float} or not all(map(math.isfinite, flat)):
        return None
    hashes = list(map(doc.case_hashes.get, order, repeat("")))
    found = doc.hits
    hits = (
        found.many(order)
        if isinstance(found, ResultHits)
        else list(map(found.get, order, repeat(())))
    )
    try:
        if _ESCAPED.search("".join(chain(order, hashes, chain.from_iterable(hits)))):
            return None
    except TypeError:  # an id that is not a string
        return None
    ranked = ['"' + '", "'.join(ids) + '"' if ids else "" for ids in hits]
    text = {value: repr(value) for value in set(flat)}  # how json writes a finite float
    strings = list(map(text.__getitem__, flat))
    fields = ", ".join(
        json.dumps(name, ensure_ascii=False).replace("{", "{{").replace("}", "}}") + ": {}"
        for name in names
    )
    line = '    "{}": {{"hash": "{}", "hits": [{}], "values": {{' + fields + "}}}}"
    columns = [strings[j :: len(names)] for j in range(len(names))]
    return ",\n".join(map(line.format, order, hashes, ranked, *columns))


def same_cases(
    doc: BaselineDoc, text: str, start: int, end: int
) -> Mapping[str, Mapping[str, float]] | None:
    """``doc``'s cases in file order when ``text[start:end]`` is exactly its cases block."""
    order = natural_order(doc.cases, hint=doc.cases)
    block = case_block(doc, order)
    if block is None or len(block) != end - start or not text.startswith(block, start):
        return None
    cases = doc.cases
    return cases if list(cases) == order else {i: cases[i] for i in order}
