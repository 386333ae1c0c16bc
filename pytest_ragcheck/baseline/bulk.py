"""Bulk paths for large baselines: the stored file read in chunks, the new one built in bulk.

A stored file is canonical (``BaselineDoc.to_json``): one line per case inside the ``cases``
block. :func:`read_cases` parses that block a few thousand lines at a time and keeps per case
only what a comparison reads: its values (the very dict a full parse gives), its content hash,
and where its line starts, so its ranked ids are parsed back on demand (only the worst cases'
are ever shown). A full parse of 200,000 cases held every ranked id of every case at once, a
few hundred MB.

Anything unusual (a layout that is not canonical, a version-1 file, a value that is not a
finite float, a repeated id) returns ``None``: the caller then reads the file the ordinary way,
so a damaged file gets exactly the message it always got. And when the block is exactly what
this run would write (``baseline_rows.case_block``), nothing of it is parsed at all. Pure: no
pytest.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from itertools import chain
from operator import itemgetter
from typing import Any, ClassVar, Protocol, TypeVar

from pytest_ragcheck.baseline.rows import CaseBlock, StoredCases, same_cases
from pytest_ragcheck.common.errors import BaselineError
from pytest_ragcheck.common.json_keys import unique_keys

__all__ = [
    "LazyHits",
    "read_canonical",
    "read_cases",
    "split_cases",
    "strict_loads",
]

#: The canonical opening of the cases block, and its closing line.
_OPEN = '\n  "cases": {\n'
_CLOSE = "\n  }"
#: Case lines parsed per ``json.loads`` call (bounds the transient memory).
_CHUNK_LINES = 4096
_ENTRY = itemgetter("hash", "hits", "values")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def strict_loads(text: str) -> Any:
    """``json.loads`` of a full read: NaN, Infinity and a key repeated in one object raise
    ``ValueError`` (a repeated key: :class:`~pytest_ragcheck.common.json_keys.DuplicateKeyError`;
    a case id on two lines after a merge would otherwise lose one of them without a word).

    Lists or objects nested deeper than Python's recursion limit (a baseline has four levels)
    raise ``json.JSONDecodeError``, a damaged file like any other, not ``RecursionError``.
    """
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=unique_keys)
    except RecursionError:
        raise json.JSONDecodeError(
            f"lists or objects nested too deeply (Python reads at most about "
            f"{sys.getrecursionlimit():,} levels; a baseline has 4)",
            text,
            0,
        ) from None


class StoredDoc(StoredCases, Protocol):
    """What reading a canonical file needs of the document type (``BaselineDoc``)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def n_cases(self) -> int: ...
    def to_json(self) -> str: ...


Doc = TypeVar("Doc", bound=StoredDoc)


def read_canonical(
    text: str, read: Callable[[str], Doc], *, expected: Doc | None = None
) -> Doc | None:
    """The document of a canonical file, its cases read in chunks; ``None`` for any other.

    ``read`` is the ordinary full read, used here on the file without its cases: the header
    must be valid and exactly as the writer puts it, so nothing outside the block is unusual.
    When the block is, byte for byte, the one ``expected`` (this run) writes, the cases are
    ``expected``'s: the same values, hashes and hits, with nothing parsed.
    """
    parts = split_cases(text)
    if parts is None:
        return None
    header, start, end = parts
    try:
        head = read(header)
    except BaselineError:
        return None
    if head.to_json() != header:
        return None
    if expected is not None and expected.metrics == head.metrics:
        same = same_cases(expected, text, start, end)
        if same is not None and len(same) <= head.n_cases:
            return replace(head, cases=same, case_hashes=expected.case_hashes, hits=expected.hits)
    block = read_cases(text, start, end, metrics=json.loads(header)["metrics"])
    if block is None or len(block.cases) > head.n_cases:
        return None
    return replace(head, cases=block.cases, case_hashes=block.hashes, hits=block.hits)


def split_cases(text: str) -> tuple[str, int, int] | None:
    """``(header, start, end)``: the file with an empty cases block, and where the block's
    lines are in ``text``; ``None`` when there is no non-empty canonical block."""
    opening = text.find(_OPEN)
    if opening < 0:
        return None
    start = opening + len(_OPEN)
    end = text.find(_CLOSE, start)
    if end < 0:
        return None
    brace = opening + len(_OPEN) - 2
    return text[:brace] + "{}" + text[end + len(_CLOSE) :], start, end


class LazyHits(Mapping[str, tuple[str, ...]]):
    """Case id -> ranked ids, parsed from the case's line when asked for."""

    __slots__ = ("_block", "_lines", "_text")

    def __init__(self, text: str, lines: Mapping[str, int], block: tuple[int, int]) -> None:
        self._text = text
        self._lines = lines
        self._block = block

    def __getitem__(self, case_id: str) -> tuple[str, ...]:
        start = self._lines[case_id]
        end = self._text.find("\n", start, self._block[1])
        line = self._text[start : end if end >= 0 else self._block[1]].rstrip().rstrip(",")
        try:  # blanks after the comma (a hand edit) or a case split over lines parse as a block
            entry = json.loads("{" + line + "}")
        except ValueError:
            entry = {}
        if list(entry) != [case_id]:  # not one case per line after all: read the whole block
            entry = json.loads("{" + self._text[self._block[0] : self._block[1]] + "}")
        return tuple(entry[case_id]["hits"])

    def __iter__(self) -> Iterator[str]:
        return iter(self._lines)

    def __len__(self) -> int:
        return len(self._lines)


def read_cases(text: str, start: int, end: int, *, metrics: list[str]) -> CaseBlock | None:
    """The cases of the block ``text[start:end]`` (one per line), or ``None`` when unusual.

    ``metrics`` are the file's metric names in file order: every case must have exactly those
    values, in that order, as finite floats (what a full read accepts as it is).
    """
    starts = _line_starts(text, start, end)
    order = tuple(metrics)
    cases: dict[str, dict[str, float]] = {}
    hashes: dict[str, str] = {}
    lines: dict[str, int] = {}
    for first in range(0, len(starts), _CHUNK_LINES):
        chunk = starts[first : first + _CHUNK_LINES]
        last = first + _CHUNK_LINES >= len(starts)
        stop = end if last else starts[first + _CHUNK_LINES] - 1
        part = text[chunk[0] : stop]
        if part.endswith(",") == last:  # a comma between lines, none after the last
            return None
        # Each line has one `": ` per key (id, hash, hits, values, each metric): more means a
        # key given twice (``json`` would keep the last) or an id holding `": `.
        if part.count('": ') != len(chunk) * (4 + len(order)):
            return None
        try:
            data = json.loads(
                "{" + (part if last else part[:-1]) + "}", parse_constant=_reject_constant
            )
        except (ValueError, RecursionError):  # the full read says what is wrong
            return None
        if len(data) != len(chunk) or not _usual(data.values(), order):
            return None
        entries = list(map(_ENTRY, data.values()))
        hashes.update(zip(data, map(itemgetter(0), entries), strict=True))
        cases.update(zip(data, map(itemgetter(2), entries), strict=True))
        lines.update(zip(data, chunk, strict=True))
    if len(cases) != len(starts):  # an id given twice
        return None
    return CaseBlock(cases=cases, hashes=hashes, hits=LazyHits(text, lines, (start, end)))


def _line_starts(text: str, start: int, end: int) -> list[int]:
    starts = [start]
    find = text.find
    at = find("\n", start, end)
    while at >= 0:
        starts.append(at + 1)
        at = find("\n", at + 1, end)
    return starts


def _usual(entries: Any, order: tuple[str, ...]) -> bool:
    """Every entry is ``{"hash": str, "hits": [str...], "values": {metric: float in [-1, 1]}}``."""
    entries = list(entries)
    if set(map(type, entries)) != {dict} or set(map(len, entries)) != {3}:
        return False
    try:
        hashes, hits, values = zip(*map(_ENTRY, entries), strict=True)
    except KeyError:
        return False
    return (
        set(map(type, hashes)) == {str}
        and set(map(type, hits)) == {list}
        and set(map(type, chain.from_iterable(hits))) <= {str}
        and set(map(type, values)) == {dict}
        and set(map(tuple, values)) == {order}
        and set(map(type, scores := list(chain.from_iterable(map(dict.values, values))))) == {float}
        and all(map(math.isfinite, scores))
        and min(scores) >= -1.0  # no metric scores outside [-1, 1] (most, outside [0, 1])
        and max(scores) <= 1.0
    )
