"""What the evaluation reads of every golden case: its merged grades and relevant count.

Both are worked out once per case and kept in the case's ``__dict__``, beside its fields
(pydantic's dumps, equality, ``repr`` and iteration read only the fields): a case read from
plain dicts has them as it is built (:func:`~pytest_ragcheck.golden.plain.plain_cases`), any
other case when they are first asked for. :func:`case_facts` then gathers them for a run in a
few C-level passes instead of a property call per case.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import compress, repeat
from operator import attrgetter, itemgetter, not_
from typing import Any, NamedTuple

__all__ = [
    "COUNT_KEY",
    "GRADES_KEY",
    "CaseFacts",
    "case_facts",
    "forget_facts",
    "gathered_facts",
    "id_facts",
    "keep_facts",
]

#: Where a case keeps its merged grades and its relevant count, in its ``__dict__``.
GRADES_KEY = "_grades_built"
COUNT_KEY = "_count_built"


def keep_facts(fields: dict[str, Any]) -> dict[str, int]:
    """Work out and keep in a case's ``fields`` (its ``__dict__``) its merged grades
    (``expected_ids`` at grade 1, overridden by ``relevance``) and its relevant count (ids
    at grade >= 1, or else text spans); return the grades (shared: never change them)."""
    grades = dict.fromkeys(fields["expected_ids"], 1)
    relevance = fields["relevance"]
    if not relevance:  # every expected id at grade 1, or text spans, or nothing
        count = len(grades) if grades else len(fields["expected_texts"])
    else:
        grades.update(relevance)
        count = sum(1 for grade in grades.values() if grade >= 1)
    fields[GRADES_KEY] = grades
    fields[COUNT_KEY] = count
    return grades


def forget_facts(fields: dict[str, Any]) -> None:
    """Drop what :func:`keep_facts` kept in ``fields`` (they were copied, then changed)."""
    fields.pop(GRADES_KEY, None)
    fields.pop(COUNT_KEY, None)


class CaseFacts(NamedTuple):
    """What the evaluation reads of every case, gathered in one go (:func:`case_facts`)."""

    #: ``case._grades`` of each case.
    grades: list[Mapping[str, int]]
    #: ``case.relevant_count`` of each case.
    counts: list[int]
    #: Whether a case matches by text spans (``mode == "texts"``).
    by_text: bool


_fields_of = attrgetter("__dict__")
_grades_of = itemgetter(GRADES_KEY)
_count_of = itemgetter(COUNT_KEY)


def case_facts(cases: Sequence[object]) -> CaseFacts:
    """Each of ``cases``' grades and relevant count, read where :func:`keep_facts` kept them
    (worked out first for the cases that have none kept yet)."""
    fields: list[dict[str, Any]] = list(map(_fields_of, cases))
    try:
        every: list[Mapping[str, int]] = list(map(_grades_of, fields))
        counts: list[int] = list(map(_count_of, fields))
    except KeyError:
        for case_fields in fields:
            if GRADES_KEY not in case_fields or COUNT_KEY not in case_fields:
                keep_facts(case_fields)
        every, counts = list(map(_grades_of, fields)), list(map(_count_of, fields))
    return gathered_facts(every, counts)


def gathered_facts(grades: list[Mapping[str, int]], counts: list[int]) -> CaseFacts:
    """The :class:`CaseFacts` of cases of these ``grades`` and relevant ``counts``."""
    # a case without grades counts its text spans
    return CaseFacts(grades, counts, any(compress(counts, map(not_, grades))))


def id_facts(expected: list[list[str]]) -> tuple[list[Mapping[str, int]], list[int]]:
    """:func:`keep_facts`'s grades and counts of cases with ``expected_ids`` alone (no
    ``relevance``, no spans), worked out in C-level passes: each id at grade 1."""
    grades: list[Mapping[str, int]] = list(map(dict.fromkeys, expected, repeat(1)))
    return grades, list(map(len, grades))
