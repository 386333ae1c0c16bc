"""The content hashes of golden cases: the canonical JSON of what can change a case's scores.

A set's hash and its per-case hashes are written in one pass. Most cases have only a query and
``expected_ids`` (no spans, no graded ``relevance``, no reference answer): their canonical JSON
is put together from constant pieces around the query and the sorted ids, about three times
faster than the general writer (:func:`scored_json`) and the same text.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from itertools import chain
from operator import attrgetter
from typing import Protocol

from pytest_ragcheck.golden.subtopics import subtopics_json

__all__ = ["HASH_VERSION", "HashedCase", "all_hashes", "case_digest", "hashable", "scored_json"]


class HashedCase(Protocol):
    """What the hashes read of a case (:class:`~pytest_ragcheck.golden.model.GoldenCase`)."""

    @property
    def id(self) -> str: ...
    @property
    def query(self) -> str: ...
    @property
    def expected_ids(self) -> Sequence[str]: ...
    @property
    def relevance(self) -> Mapping[str, int]: ...
    @property
    def expected_texts(self) -> Sequence[str]: ...
    @property
    def reference_answer(self) -> str | None: ...
    @property
    def reference_answers(self) -> Sequence[str]: ...
    @property
    def answerable(self) -> bool: ...
    @property
    def subtopics(self) -> Mapping[str, Mapping[str, int]]: ...
    @property
    def subtopic_texts(self) -> Mapping[str, Sequence[str]]: ...
    @property
    def _grades(self) -> Mapping[str, int]: ...


#: Bumped whenever the canonical form hashed by ``GoldenSet.content_hash`` changes.
HASH_VERSION = 1

#: A JSON string as the canonical JSON of the hashes writes it (``ensure_ascii=False``).
_string: Callable[[str], str] = json.encoder.encode_basestring
#: Cases whose set members are joined and hashed in one update.
_CHUNK = 4096


def scored_json(case: HashedCase) -> tuple[str, str]:
    """The canonical JSON members of what can change a case's scores, keys sorted: those
    before ``"id"`` and those after (the set's hash has the id among them).

    Written out rather than ``json.dumps(..., sort_keys=True)`` of a dict per case (three times
    faster); the strings are escaped by the same function and the result is the same text.
    """
    texts = ",".join(map(_string, case.expected_texts))
    grades = ",".join(
        f"{_string(doc)}:{int.__repr__(grade)}" for doc, grade in sorted(case._grades.items())
    )
    answer = "null" if case.reference_answer is None else _string(case.reference_answer)
    # "reference_answers" only when set: hashes of cases without stay as they were
    answers = (
        f',"reference_answers":[{",".join(map(_string, case.reference_answers))}]'
        if case.reference_answers
        else ""
    )
    # "answerable" only when false: hashes of the other cases stay as they were
    unanswerable = "" if case.answerable else '"answerable":false,'
    # subtopics only when set, after "relevance" in key order: hashes of cases without stay
    subtopics = (
        subtopics_json(case.subtopics, case.subtopic_texts)
        if case.subtopics or case.subtopic_texts
        else ""
    )
    return (
        f'{unanswerable}"expected_texts":[{texts}]',
        f'"query":{_string(case.query)},"reference_answer":{answer}{answers},'
        f'"relevance":{{{grades}}}{subtopics}',
    )


def case_digest(before: str, after: str) -> str:
    """A case's hash from its :func:`scored_json` members."""
    return hashlib.sha256(f"{{{before},{after}}}".encode()).hexdigest()[:16]


def all_hashes(cases: Sequence[HashedCase]) -> tuple[str, dict[str, str]]:
    """The set's hash (SHA-256 of ``{"cases":[...],"version":1}``) and case id -> case hash."""
    string, sha = _string, hashlib.sha256
    digest = sha(b'{"cases":[')
    per_case: dict[str, str] = {}
    for start in range(0, len(cases), _CHUNK):
        members: list[str] = []
        add = members.append
        for case in cases[start : start + _CHUNK]:
            case_id = case.id
            if (
                case.relevance
                or case.expected_texts
                or case.reference_answer is not None
                or case.reference_answers
                or not case.answerable
                or case.subtopics
                or case.subtopic_texts
            ):
                before, after = scored_json(case)
                text = f"{{{before},{after}}}"
                add(f'{{{before},"id":{string(case_id)},{after}}}')
            else:  # only a query and ids at grade 1 (each once, sorted): scored_json's text
                ids = case.expected_ids
                if len(ids) == 2:  # the usual size, compared directly
                    first, second = ids
                    if second < first:
                        first, second = second, first
                    grades = string(first) + (
                        ":1}}" if first == second else ":1," + string(second) + ":1}}"
                    )
                else:
                    grades = ":1,".join(map(string, sorted(set(ids)))) + ":1}}" if ids else "}}"
                tail = string(case.query) + ',"reference_answer":null,"relevance":{' + grades
                text = '{"expected_texts":[],"query":' + tail
                add('{"expected_texts":[],"id":' + string(case_id) + ',"query":' + tail)
            per_case[case_id] = sha(text.encode()).hexdigest()[:16]
        digest.update((b"," if start else b"") + ",".join(members).encode())
    digest.update(b'],"version":%d}' % HASH_VERSION)
    return digest.hexdigest(), per_case


def hashable(cases: Sequence[HashedCase]) -> bool:
    """Whether :func:`all_hashes` can write every case as UTF-8 (no string holds half a
    surrogate pair), in a few C-level passes: the hash itself waits until it is read."""
    columns = [
        map(attrgetter(name), cases)
        for name in ("id", "query", "expected_ids", "relevance", "expected_texts")
    ]
    ids, queries, expected, relevance, texts = columns
    answers = [
        answer for answer in map(attrgetter("reference_answer"), cases) if answer is not None
    ]
    every = chain(
        ids,
        queries,
        chain.from_iterable(expected),
        chain.from_iterable(relevance),
        chain.from_iterable(texts),
        answers,
        chain.from_iterable(map(attrgetter("reference_answers"), cases)),
    )
    try:
        "".join(every).encode()
    except UnicodeEncodeError:
        return False
    return True
