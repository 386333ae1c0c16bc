"""The common case of golden-set validation without pydantic: a plain JSON case.

Validating 200,000 cases with pydantic takes seconds; most cases are a dict of strings, lists
of strings and an int-graded ``relevance``, whose checks are a few type tests. A case that
passes them here is built exactly as ``GoldenCase.model_validate`` would build it; anything
else (another type, a blank value, an unknown field) returns ``None`` and goes through pydantic,
which reports the problem in its usual words.

:func:`plain_cases` builds a run of such cases in one pass and notes, while each case is in
hand, what the evaluation reads of it (:func:`~pytest_ragcheck.golden.grades.keep_facts`) and
whether every string the hashes write is ASCII (then none holds half a surrogate pair).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import repeat
from operator import setitem
from typing import Any, NamedTuple

from pydantic import BaseModel

from pytest_ragcheck.golden.grades import COUNT_KEY, GRADES_KEY, keep_facts
from pytest_ragcheck.golden.model import NO_ANSWER_FIELDS, GoldenCase, derive_case_id
from pytest_ragcheck.golden.spans import normalize_text

__all__ = ["PlainCases", "id_cases", "plain_case", "plain_cases"]

_new = object.__new__
# pydantic's instance slots, set through their descriptors (no attribute lookup per case)
_set_dict: Callable[[object, object], None] = vars(BaseModel)["__dict__"].__set__
_set_fields: Callable[[object, object], None] = vars(BaseModel)["__pydantic_fields_set__"].__set__
_set_extra: Callable[[object, object], None] = vars(BaseModel)["__pydantic_extra__"].__set__
_set_private: Callable[[object, object], None] = vars(BaseModel)["__pydantic_private__"].__set__
#: The fields set of every case whose keys come in this order: one set shared by the cases
#: of a shape (pydantic never changes a frozen model's set in place; a copy gets its own).
_FIELDS_SETS: dict[tuple[str, ...], set[str]] = {}
#: The fields sets of the cases of an ``id`` (or not: it is derived), a ``query`` and
#: perhaps ``expected_ids``, whatever their order.
_IDS_FIELDS = {"id", "query", "expected_ids"}
_QUERY_FIELDS = {"id", "query"}
#: The cases given those fields alone: their only other strings are in ``expected_ids``.
_ONLY_IDS = (_IDS_FIELDS, _QUERY_FIELDS)
_MAX_SHAPES = 64
#: ``raw.get`` default telling a missing key from one given as ``None``.
_ABSENT: Any = object()


def _strs(value: object, ok: Callable[[str], object] = str.strip) -> list[str] | None:
    """A copy of a list of ``str`` that all pass ``ok``, else ``None``."""
    if type(value) is not list:
        return None
    for item in value:
        if type(item) is not str or not ok(item):
            return None
    return list(value)


def _grades(value: object) -> dict[str, int] | None:
    if type(value) is not dict:
        return None
    for key, grade in value.items():
        if type(key) is not str or not key.strip() or type(grade) is not int:
            return None
    return dict(value)


def _metadata(value: object) -> dict[str, Any] | None:
    if type(value) is not dict:
        return None
    for key in value:
        if type(key) is not str:
            return None
    return dict(value)


#: field -> check returning the validated value, or ``None`` when pydantic must look.
_LISTS: dict[str, Callable[[object], Any]] = {
    "expected_ids": _strs,
    "expected_texts": lambda value: _strs(value, normalize_text),
    "reference_answers": _strs,
    "tags": _strs,
    "relevance": _grades,
    "metadata": _metadata,
}


def _other_fields(raw: dict[str, Any], values: dict[str, Any]) -> bool:
    """Check and set every field of ``raw`` but ``id``, ``query`` and ``expected_ids``;
    ``False`` when pydantic must look."""
    for key, value in raw.items():
        if key in _LISTS:
            if key != "expected_ids":
                checked = _LISTS[key](value)
                if checked is None:
                    return False
                values[key] = checked
        elif key == "reference_answer":
            if value is not None and type(value) is not str:
                return False
            values[key] = value
        elif key == "answerable":
            if type(value) is not bool:
                return False
            values[key] = value
        elif key not in ("id", "query"):
            return False  # an unknown field: pydantic names it
    # pydantic names the field that an unanswerable case cannot have
    return values["answerable"] or not any(values[name] for name in NO_ANSWER_FIELDS)


def _fields(raw: dict[str, Any], keep: bool) -> tuple[dict[str, Any], set[str]] | None:
    """The fields (``__dict__``) and fields set of ``GoldenCase.model_validate(raw)`` when
    ``raw`` is plainly valid, else ``None``; with the case's facts (:func:`keep_facts`) among
    the fields when ``keep``. A case of ``id``, ``query`` and ``expected_ids`` alone (most
    cases) is checked without a loop over its keys."""
    query = raw.get("query")
    if type(query) is not str or not query.strip():
        return None
    given = len(raw) - 1  # the keys left to check
    case_id = raw.get("id", _ABSENT)
    if case_id is _ABSENT or case_id is None:
        given -= case_id is None
        case_id = derive_case_id(query)
    elif type(case_id) is str and case_id.strip():
        given -= 1
    else:
        return None
    expected = raw.get("expected_ids", _ABSENT)
    if expected is _ABSENT:
        expected = []
        fields_set = _QUERY_FIELDS
    elif type(expected) is list:
        for item in expected:
            if type(item) is not str or not item.strip():
                return None
        expected = expected[:]
        given -= 1
        fields_set = _IDS_FIELDS
    else:
        return None
    values = _id_fields(case_id, query, expected)
    if given:  # fields other than id, query and expected_ids
        if not _other_fields(raw, values):
            return None
        fields_set = _fields_set(raw)
    if keep:
        keep_facts(values)
    return values, fields_set


def _id_fields(case_id: str, query: str, expected: list[str]) -> dict[str, Any]:
    """The fields of a valid case of ``id``, ``query`` and ``expected_ids`` (a list of its
    own), every other field at its default."""
    return {
        "id": case_id,
        "query": query,
        "expected_ids": expected,
        "relevance": {},
        "expected_texts": [],
        "reference_answer": None,
        "reference_answers": [],
        "answerable": True,
        "tags": [],
        "metadata": {},
        "subtopics": {},
        "subtopic_texts": {},
    }


def id_cases(
    ids: list[str],
    queries: list[str],
    expected: list[list[str]],
    grades: list[Mapping[str, int]],
    counts: list[int],
) -> list[GoldenCase]:
    """The cases of valid plain dicts of ``id``, ``query`` and ``expected_ids`` alone, from
    their columns (``expected``: each case's own list), each with its facts (``grades``,
    ``counts``: as :func:`~pytest_ragcheck.golden.grades.keep_facts` works them out) kept:
    the cases :func:`plain_cases` makes of those dicts."""
    every = list(map(_id_fields, ids, queries, expected))
    deque(map(setitem, every, repeat(GRADES_KEY), grades), 0)
    deque(map(setitem, every, repeat(COUNT_KEY), counts), 0)
    return _new_cases(every, repeat(_IDS_FIELDS, len(every)))


def _fields_set(raw: dict[str, Any]) -> set[str]:
    keys = tuple(raw)
    fields_set = _FIELDS_SETS.get(keys)
    if fields_set is None:
        fields_set = {*keys, "id"}
        if len(_FIELDS_SETS) < _MAX_SHAPES:
            _FIELDS_SETS[keys] = fields_set
    return fields_set


def plain_case(raw: dict[str, Any]) -> GoldenCase | None:
    """``GoldenCase.model_validate(raw)`` when ``raw`` is plainly valid, else ``None``."""
    found = _fields(raw, False)
    if found is None:
        return None
    case: GoldenCase = _new(GoldenCase)
    # What pydantic's validator sets on a model instance (fields, fields set, no extras).
    _set_dict(case, found[0])
    _set_fields(case, found[1])
    _set_extra(case, None)
    _set_private(case, None)
    return case


def _new_cases(fields: list[dict[str, Any]], fields_sets: Iterable[set[str]]) -> list[GoldenCase]:
    """:func:`plain_case`'s cases of many ``fields`` at once, in a few C-level passes (and
    next to each other in memory, where later passes over them find them sooner)."""
    cases: list[GoldenCase] = list(map(_new, repeat(GoldenCase, len(fields))))
    deque(map(_set_dict, cases, fields), 0)
    deque(map(_set_fields, cases, fields_sets), 0)
    deque(map(_set_extra, cases, repeat(None)), 0)
    deque(map(_set_private, cases, repeat(None)), 0)
    return cases


class PlainCases(NamedTuple):
    """A run of plainly valid cases (:func:`plain_cases`)."""

    cases: list[GoldenCase]
    #: ``case.id`` of each case.
    ids: list[str]
    #: Whether every string the content hashes write (not ``tags`` or ``metadata``) is
    #: ASCII, and so text: then :meth:`GoldenSet.check_hashable` has nothing to look at.
    ascii: bool
    #: The item that ended the run, not a plainly valid dict; empty when the items ran out.
    rest: tuple[object, ...]


def plain_cases(raws: Iterator[object]) -> PlainCases:
    """:func:`plain_case` of each of ``raws`` up to the first that is not a plainly valid dict
    (taken from ``raws`` too), each case with its facts kept
    (:func:`~pytest_ragcheck.golden.grades.keep_facts`)."""
    every: list[dict[str, Any]] = []
    fields_sets: list[set[str]] = []
    ids: list[str] = []
    queries: list[str] = []
    add_fields, add_set = every.append, fields_sets.append
    add_id, add_query = ids.append, queries.append
    ascii = True
    rest: tuple[object, ...] = ()
    for raw in raws:
        found = _fields(raw, True) if type(raw) is dict else None
        if found is None:
            rest = (raw,)
            break
        fields, fields_set = found
        if ascii:  # ids and queries are looked at all at once below
            ascii = "".join(fields["expected_ids"]).isascii() and (
                fields_set in _ONLY_IDS or _ascii_rest(fields)
            )
        add_fields(fields)
        add_set(fields_set)
        add_id(fields["id"])
        add_query(fields["query"])
    ascii = ascii and "".join(ids).isascii() and "".join(queries).isascii()
    return PlainCases(_new_cases(every, fields_sets), ids, ascii, rest)


def _ascii_rest(fields: dict[str, Any]) -> bool:
    """Whether the graded ids, spans and reference answers of a case are all ASCII."""
    answer = fields["reference_answer"] or ""
    texts = "".join([*fields["expected_texts"], answer, *fields["reference_answers"]])
    return texts.isascii() and "".join(fields["relevance"]).isascii()
