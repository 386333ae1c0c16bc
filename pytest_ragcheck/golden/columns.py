"""An in-memory golden set of plain ``{id, query, expected_ids}`` dicts, kept as columns.

Most in-memory sets are such dicts. A run reads of each case its id, its query and its
grades: kept as columns, the set makes no case object (a ``GoldenCase`` of twelve fields)
until something reads one; then all are made at once, exactly as the items would have
been built one by one (:func:`~pytest_ragcheck.golden.plain.id_cases`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import overload

from pytest_ragcheck.golden.grades import CaseFacts, gathered_facts, id_facts
from pytest_ragcheck.golden.model import CaseRows, GoldenCase, GoldenSet
from pytest_ragcheck.golden.plain import id_cases

__all__ = ["IdCases", "id_set"]


class IdCases(CaseRows):
    """Valid cases of ``id``, ``query`` and ``expected_ids`` alone, as columns: no
    ``relevance``, spans, answers, tags, metadata or subtopics, every case answerable.
    Indexing or iterating makes the case objects (once: two threads get the same)."""

    __slots__ = ("_built", "_lock", "counts", "expected", "grades", "ids", "queries")

    def __init__(self, ids: list[str], queries: list[str], expected: list[list[str]]) -> None:
        self.ids, self.queries, self.expected = ids, queries, expected
        #: each case's grades and relevant count (shared: never change them)
        self.grades, self.counts = id_facts(expected)
        self._built: tuple[GoldenCase, ...] | None = None
        self._lock = threading.Lock()

    def cases(self) -> tuple[GoldenCase, ...]:
        built = self._built
        if built is None:
            with self._lock:
                built = self._built
                if built is None:
                    made = id_cases(self.ids, self.queries, self.expected, self.grades, self.counts)
                    built = self._built = tuple(made)
        return built

    def facts(self) -> CaseFacts:
        """:func:`~pytest_ragcheck.golden.grades.case_facts` of the cases, from the columns."""
        return gathered_facts(self.grades[:], self.counts[:])

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, index: int) -> GoldenCase: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[GoldenCase]: ...

    def __getitem__(self, index: int | slice) -> GoldenCase | Sequence[GoldenCase]:
        return self.cases()[index]

    def __iter__(self) -> Iterator[GoldenCase]:
        return iter(self.cases())


def _columns(raws: Sequence[object]) -> IdCases | None:
    """The columns of ``raws`` when each is a valid dict of exactly ``id``, ``query`` and
    ``expected_ids`` (the checks :func:`~pytest_ragcheck.golden.plain.plain_case` makes),
    with distinct ids and only ASCII strings; else ``None``. (One loop, each string looked
    at while in hand: faster here than C-level passes over each column.)"""
    ids: list[str] = []
    queries: list[str] = []
    expected: list[list[str]] = []
    add_id, add_query, add_expected = ids.append, queries.append, expected.append
    for raw in raws:
        if type(raw) is not dict or len(raw) != 3:
            return None
        case_id, query, found = raw.get("id"), raw.get("query"), raw.get("expected_ids")
        if type(case_id) is not str or not case_id.isascii() or not case_id.strip():
            return None  # a missing id is derived: the general path
        if type(query) is not str or not query.isascii() or not query.strip():
            return None
        if type(found) is not list:
            return None
        for item in found:
            if type(item) is not str or not item.isascii() or not item.strip():
                return None
        add_id(case_id)
        add_query(query)
        add_expected(found[:])
    if not ids or len(set(ids)) != len(ids):
        return None  # the general path names the repeats (or the empty list)
    return IdCases(ids, queries, expected)


def id_set(raws: Sequence[object], source: str) -> GoldenSet | None:
    """The set of ``raws`` kept as columns (:class:`IdCases`), when every item is a plain
    dict of ``id``, ``query`` and ``expected_ids`` alone (ASCII, distinct ids); else
    ``None``: the general path builds and checks them."""
    columns = _columns(raws)
    if columns is None:
        return None
    # every string the hashes write is ASCII: none holds half a surrogate pair
    return GoldenSet.of_columns(columns, source).checked_as_read()
