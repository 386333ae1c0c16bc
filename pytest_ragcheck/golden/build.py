"""Raw case dicts -> a validated ``GoldenSet``, every problem one readable line.

Users never see a raw pydantic dump: each validation error is rewritten to name the place
(``file:3``, ``case #2``) and the field, and all problems of a set are reported together.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

from pydantic import ValidationError

from pytest_ragcheck.common.display import shorten
from pytest_ragcheck.common.errors import GoldenSetError, did_you_mean
from pytest_ragcheck.golden.columns import id_set
from pytest_ragcheck.golden.model import GoldenCase, GoldenSet
from pytest_ragcheck.golden.plain import PlainCases, plain_case, plain_cases

__all__ = ["CaseBuilder", "from_objects", "problem_error"]

#: Errors listed in one message before the rest are summarised as "... and N more".
_MAX_PROBLEMS = 20
_CASE_FIELDS: tuple[str, ...] = tuple(GoldenCase.model_fields)
#: Common spellings from other tools, used only to suggest the right field name.
_FIELD_ALIASES: dict[str, str] = {
    "question": "query",
    "text": "query",
    "query_text": "query",
    "qid": "id",
    "query_id": "id",
    "_id": "id",
    "relevant_ids": "expected_ids",
    "relevant_docs": "expected_ids",
    "doc_ids": "expected_ids",
    "ids": "expected_ids",
    "ground_truth_ids": "expected_ids",
    "qrels": "relevance",
    "grades": "relevance",
    "judgments": "relevance",
    "relevant_texts": "expected_texts",
    "contexts": "expected_texts",
    "ground_truth_contexts": "expected_texts",
    "answer": "reference_answer",
    "ground_truth": "reference_answer",
    "reference": "reference_answer",
    "answers": "reference_answers",
    "references": "reference_answers",
    "ground_truths": "reference_answers",
    "meta": "metadata",
}


def _suggest_field(name: str) -> str:
    alias = _FIELD_ALIASES.get(name.lower())
    if alias is not None:
        return f" (did you mean {alias!r}?)"
    return did_you_mean(name, _CASE_FIELDS)


def _format_loc(loc: tuple[int | str, ...]) -> str:
    parts = [p for p in loc if p != "[key]"]
    if not parts:
        return ""
    out = str(parts[0])
    for part in parts[1:]:
        out += f"[{part}]" if isinstance(part, int) else f"[{json.dumps(part, ensure_ascii=False)}]"
    return out


def _validation_problems(exc: ValidationError) -> list[str]:
    """Rewrite pydantic's errors as one readable line each."""
    problems: list[str] = []
    errors = exc.errors(include_url=False)
    query_failed = any(err["loc"][:1] == ("query",) for err in errors)
    for err in errors:
        loc = tuple(err["loc"])
        if query_failed and loc == ("id",) and err["input"] is None:
            continue  # the id is derived from the query: only the query problem is real
        where = _format_loc(loc)
        kind = err["type"]
        if kind == "extra_forbidden":
            name = str(loc[-1])
            problems.append(f"unknown field {name!r}{_suggest_field(name)}")
        elif kind == "missing":
            problems.append(f"missing required field '{where}'")
        elif kind == "value_error":
            msg = str(err["msg"]).removeprefix("Value error, ")
            problems.append(f"field '{where}': {msg}" if where else msg)  # a case-wide rule
        elif kind == "model_type":
            problems.append(f"expected a JSON object, got {type(err['input']).__name__}")
        else:
            key_note = " (key)" if loc and loc[-1] == "[key]" else ""
            problems.append(
                f"field '{where}'{key_note}: {str(err['msg']).lower().removeprefix('input ')}"
                f", got {type(err['input']).__name__} {shorten(repr(err['input']))}"
            )
    return problems


def _kind_of(raw: object, title: str) -> str:
    """What a non-case is; a string in an in-memory list is most likely a path put in a list."""
    if title == "cases" and isinstance(raw, str):
        return f"str {shorten(repr(raw))} (a path goes in cases= on its own, not in a list)"
    return type(raw).__name__


def problem_error(title: str, problems: list[str]) -> GoldenSetError:
    """One error for all ``problems`` of ``title`` (a lone problem is the whole message)."""
    if len(problems) == 1:
        return GoldenSetError(problems[0])
    shown = problems[:_MAX_PROBLEMS]
    more = len(problems) - len(shown)
    lines = [f"{title} has {len(problems)} problems:", *(f"  {p}" for p in shown)]
    if more:
        lines.append(f"  ... and {more} more")
    return GoldenSetError("\n".join(lines))


class CaseBuilder:
    """Validates raw case dicts, collecting problems and checking id uniqueness."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.cases: list[GoldenCase] = []
        self.problems: list[str] = []
        #: id -> where its first case was (``place``, or a JSONL line number)
        self._first_seen: dict[str, str | int] = {}
        #: the ids of those first cases that were derived from their query
        self._derived: set[str] = set()
        #: how many cases came in runs of plain dicts whose hashed strings are all ASCII
        self._ascii_cases = 0

    def add(self, raw: object, where: str, place: str) -> None:
        """``where`` prefixes messages (``file:3``); ``place`` names it in a duplicate note."""
        if type(raw) is dict and (plain := plain_case(raw)) is not None:  # the common case
            case = plain
            derived = raw.get("id") is None
        elif isinstance(raw, GoldenCase):
            case = raw
            derived = False
        elif isinstance(raw, Mapping):
            try:
                case = GoldenCase.model_validate(dict(raw))
            except ValidationError as exc:
                self.problems.extend(f"{where}: {p}" for p in _validation_problems(exc))
                return
            derived = raw.get("id") is None
        else:
            kind = "a GoldenCase or a dict" if self.title == "cases" else "a JSON object"
            self.problems.append(f"{where}: expected {kind}, got {_kind_of(raw, self.title)}")
            return
        if case.id in self._first_seen:
            self._repeated(case.id, derived, where)
            return
        self._first_seen[case.id] = place
        if derived:
            self._derived.add(case.id)
        self.cases.append(case)

    def add_line(self, raw: object, number: int) -> None:
        """:meth:`add` for line ``number`` of the JSONL file ``title``: the messages' words
        (``file:3``, ``line 3``) are written only when there is a problem."""
        if type(raw) is dict and (case := plain_case(raw)) is not None:
            case_id = case.id
            if case_id in self._first_seen:
                self._repeated(case_id, raw.get("id") is None, f"{self.title}:{number}")
                return
            self._first_seen[case_id] = number
            if raw.get("id") is None:
                self._derived.add(case_id)
            self.cases.append(case)
        else:
            self.add(raw, f"{self.title}:{number}", f"line {number}")

    def add_items(self, items: Iterable[object]) -> None:
        """:meth:`add` for each of ``items``, an in-memory list (``case #1``...): each run of
        plain dicts is built in one pass (:func:`plain_cases`), the item that ends a run on
        its own."""
        raws = items if type(items) is list or type(items) is tuple else list(items)
        remaining = iter(raws)
        start = 0  # the items before the run
        while True:
            run = plain_cases(remaining)
            self._add_run(run, raws, start)
            start += len(run.cases)
            if not run.rest:
                return
            start += 1
            self.add(run.rest[0], f"case #{start}", f"case #{start}")

    def _add_run(self, run: PlainCases, raws: Sequence[object], start: int) -> None:
        """Keep the cases of ``run`` (items ``start + 1``... of ``raws``): all at once when
        they are the whole list and their ids distinct, else one by one as :meth:`add`."""
        cases, ids = run.cases, run.ids
        if run.ascii:
            self._ascii_cases += len(cases)
        if not self._first_seen and not run.rest and len(set(ids)) == len(ids):
            self.cases += cases  # nothing before or after to check the ids against
            return
        first_seen = self._first_seen
        for position, (case, case_id) in enumerate(zip(cases, ids, strict=True), start + 1):
            raw = raws[position - 1]
            derived = type(raw) is dict and raw.get("id") is None
            if case_id in first_seen:
                self._repeated(case_id, derived, f"case #{position}")
                continue
            first_seen[case_id] = f"case #{position}"
            if derived:
                self._derived.add(case_id)
            self.cases.append(case)

    def _repeated(self, case_id: str, derived: bool, where: str) -> None:
        first = self._first_seen[case_id]
        first_place = f"line {first}" if type(first) is int else first
        if derived and case_id in self._derived:
            self.problems.append(
                f"{where}: duplicate id {case_id!r} (derived from the same query as "
                f"{first_place}); remove the repeat or give the cases distinct ids"
            )
        else:
            self.problems.append(f"{where}: duplicate id {case_id!r} (also on {first_place})")

    def finish(
        self, source: str, notes: tuple[str, ...] = (), warnings: tuple[str, ...] = ()
    ) -> GoldenSet:
        """The set, or one error listing every problem (an empty set is one too)."""
        if self.problems:
            raise problem_error(self.title, self.problems)
        if not self.cases:
            raise GoldenSetError(f"{self.title} contains no cases")
        golden = GoldenSet(tuple(self.cases), source, notes, warnings)
        # every string the hashes write is ASCII: none holds half a surrogate pair
        return golden.checked_as_read() if self._ascii_cases == len(self.cases) else golden


def from_objects(items: Iterable[object]) -> GoldenSet:
    """An in-memory golden set: ``GoldenCase`` objects or dicts, named ``case #N`` in messages."""
    if type(items) is list or type(items) is tuple:
        kept = id_set(items, "<cases>")  # plain dicts of id, query and expected_ids
        if kept is not None:
            return kept
    builder = CaseBuilder("cases")
    builder.add_items(items)
    return builder.finish("<cases>")
