"""Subtopic judgments of a golden case (SPEC §12): checked, normalised and hashed here.

``subtopics`` maps a subtopic (a facet of the query) to the documents relevant to it, as a
list of ids (grade 1 each) or ``{id: grade}`` (grade >= 1 relevant, 0 judged not relevant);
``subtopic_texts`` maps a subtopic to text spans, matched as ``expected_texts`` are. Both are
checked by hand rather than by a pydantic union type, whose errors name both union members
for every mistake; each problem here is one sentence naming the subtopic and the document.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_ragcheck.common.display import shorten
from pytest_ragcheck.golden.ids import IdError, as_id
from pytest_ragcheck.golden.spans import normalize_text

__all__ = ["check_subtopic_texts", "check_subtopics", "subtopics_json"]

_SHAPE = "an object {subtopic: [doc ids]} or {subtopic: {doc id: grade}}"
_TEXT_SHAPE = "an object {subtopic: [text spans]}"


def _shown(value: object) -> str:
    return f"{type(value).__name__} {shorten(repr(value))}"


def _subtopic_id(key: object, position: int) -> str:
    if not isinstance(key, str):
        raise ValueError(f"subtopic #{position}: its id must be a string, got {_shown(key)}")
    if not key.strip():
        raise ValueError(
            f"subtopic #{position} has a blank id ({key!r}); give every subtopic a name"
        )
    return key


def _doc_id(value: object, subtopic: str, position: int) -> str:
    try:
        found = as_id(value)
    except IdError as exc:
        raise ValueError(f"subtopic {subtopic!r}: document #{position}: {exc}") from None
    if found is None or not found.strip():
        raise ValueError(
            f"subtopic {subtopic!r}: document #{position} must be a non-empty string or "
            f"integer id, got {_shown(value)}"
        )
    return found


def check_subtopics(value: Any) -> dict[str, dict[str, int]]:
    """``subtopics`` as ``{subtopic: {doc id: grade}}`` in the order given, or a ``ValueError``
    naming the subtopic, the document and the value."""
    if not isinstance(value, Mapping):
        raise ValueError(f"must be {_SHAPE}, got {_shown(value)}")
    found: dict[str, dict[str, int]] = {}
    for position, (key, docs) in enumerate(value.items(), 1):
        name = _subtopic_id(key, position)
        grades: dict[str, int] = {}
        if isinstance(docs, list | tuple):
            for number, doc in enumerate(docs, 1):
                grades[_doc_id(doc, name, number)] = 1
        elif isinstance(docs, Mapping):
            for number, (doc, grade) in enumerate(docs.items(), 1):
                doc_id = _doc_id(doc, name, number)
                if type(grade) is not int:  # a bool, a float, "1": not a grade
                    raise ValueError(
                        f"subtopic {name!r}: the grade of document {doc_id!r} must be an "
                        f"integer (>= 1 relevant, 0 judged not relevant), got {_shown(grade)}"
                    )
                grades[doc_id] = grade
        else:
            raise ValueError(
                f"subtopic {name!r} must list its documents as [doc ids] or {{doc id: grade}}, "
                f"got {_shown(docs)}"
            )
        if not grades:
            raise ValueError(
                f"subtopic {name!r} lists no documents; list the documents relevant to it, "
                "or remove it"
            )
        found[name] = grades
    return found


def check_subtopic_texts(value: Any) -> dict[str, list[str]]:
    """``subtopic_texts`` as ``{subtopic: [spans]}``, or a ``ValueError`` naming the problem."""
    if not isinstance(value, Mapping):
        raise ValueError(f"must be {_TEXT_SHAPE}, got {_shown(value)}")
    found: dict[str, list[str]] = {}
    for position, (key, spans) in enumerate(value.items(), 1):
        name = _subtopic_id(key, position)
        if not isinstance(spans, list | tuple):
            raise ValueError(f"subtopic {name!r} must be a list of text spans, got {_shown(spans)}")
        if not spans:
            raise ValueError(
                f"subtopic {name!r} lists no text spans; list the spans that cover it, or remove it"
            )
        for number, span in enumerate(spans, 1):
            if not isinstance(span, str):
                raise ValueError(
                    f"subtopic {name!r}: span #{number} must be a string, got {_shown(span)}"
                )
            if not normalize_text(span):
                raise ValueError(
                    f"subtopic {name!r}: span #{number} is empty (it would match every text)"
                )
        found[name] = list(spans)
    return found


def subtopics_json(
    subtopics: Mapping[str, Mapping[str, int]], texts: Mapping[str, Sequence[str]]
) -> str:
    """The canonical JSON members of a case's subtopics for its content hash: ``""`` for a
    case without (so its hash stays what it was), else ``,"subtopic_texts":{...}`` and/or
    ``,"subtopics":{...}``, keys sorted. A list of ids and ``{id: 1}`` hash the same."""
    text = ""
    if texts:
        members = sorted((name, spans) for name, spans in texts.items())
        text += ',"subtopic_texts":' + json.dumps(
            dict(members), ensure_ascii=False, separators=(",", ":")
        )
    if subtopics:
        ordered = {name: dict(sorted(subtopics[name].items())) for name in sorted(subtopics)}
        text += ',"subtopics":' + json.dumps(ordered, ensure_ascii=False, separators=(",", ":"))
    return text
