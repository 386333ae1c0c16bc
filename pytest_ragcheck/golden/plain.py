"""The common case of golden-set validation without pydantic: a plain JSON case.

Validating 200,000 cases with pydantic takes seconds; most cases are a dict of strings, lists
of strings and an int-graded ``relevance``, whose checks are a few type tests. A case that
passes them here is built exactly as ``GoldenCase.model_validate`` would build it; anything
else (another type, a blank value, an unknown field) returns ``None`` and goes through pydantic,
which reports the problem in its usual words.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from pytest_ragcheck.golden.model import NO_ANSWER_FIELDS, GoldenCase, derive_case_id
from pytest_ragcheck.golden.spans import normalize_text

__all__ = ["plain_case"]

_new = object.__new__
_set = object.__setattr__
# pydantic's instance slots, set through their descriptors (no attribute lookup per case)
_set_fields: Callable[[object, object], None] = vars(BaseModel)["__pydantic_fields_set__"].__set__
_set_extra: Callable[[object, object], None] = vars(BaseModel)["__pydantic_extra__"].__set__
_set_private: Callable[[object, object], None] = vars(BaseModel)["__pydantic_private__"].__set__
#: The fields set of every case whose keys come in this order: one set shared by the cases
#: of a shape (pydantic never changes a frozen model's set in place; a copy gets its own).
_FIELDS_SETS: dict[tuple[str, ...], set[str]] = {}
_MAX_SHAPES = 64


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


def plain_case(raw: dict[str, Any]) -> GoldenCase | None:
    """``GoldenCase.model_validate(raw)`` when ``raw`` is plainly valid, else ``None``."""
    query = raw.get("query")
    if type(query) is not str or not query.strip():
        return None
    case_id = raw.get("id")
    if case_id is None:
        case_id = derive_case_id(query)
    elif type(case_id) is not str or not case_id.strip():
        return None
    answer = raw.get("reference_answer")
    if answer is not None and type(answer) is not str:
        return None
    answerable = raw.get("answerable", True)
    if type(answerable) is not bool or (answerable is False and answer):
        return None  # pydantic names the field (or the type)
    values: dict[str, Any] = {
        "id": case_id,
        "query": query,
        "expected_ids": [],
        "relevance": {},
        "expected_texts": [],
        "reference_answer": answer,
        "reference_answers": [],
        "answerable": answerable,
        "tags": [],
        "metadata": {},
        "subtopics": {},
        "subtopic_texts": {},
    }
    for key, value in raw.items():
        if key in _LISTS:
            checked = _LISTS[key](value)
            if checked is None:
                return None
            values[key] = checked
        elif key not in ("id", "query", "reference_answer", "answerable"):
            return None  # an unknown field: pydantic names it
    if not answerable and any(values[name] for name in NO_ANSWER_FIELDS):
        return None
    keys = tuple(raw)
    fields_set = _FIELDS_SETS.get(keys)
    if fields_set is None:
        fields_set = {*keys, "id"}
        if len(_FIELDS_SETS) < _MAX_SHAPES:
            _FIELDS_SETS[keys] = fields_set
    case: GoldenCase = _new(GoldenCase)
    # What pydantic's validator sets on a model instance (fields, fields set, no extras).
    _set(case, "__dict__", values)
    _set_fields(case, fields_set)
    _set_extra(case, None)
    _set_private(case, None)
    return case
