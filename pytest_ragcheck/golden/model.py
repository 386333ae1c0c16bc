"""The golden-set data: ``GoldenCase`` (one validated query), ``GoldenSet`` and its content hash.

Only this package imports pydantic, and the plugin imports the package lazily, so projects that
never load a golden set never pay for it.
"""

from __future__ import annotations

import functools
import hashlib
from abc import abstractmethod
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    field_validator,
    model_validator,
)

from pytest_ragcheck.common.collector import no_collections
from pytest_ragcheck.common.errors import GoldenSetError, did_you_mean
from pytest_ragcheck.common.escapes import utf8_writable
from pytest_ragcheck.golden.grades import (
    COUNT_KEY,
    GRADES_KEY,
    CaseFacts,
    case_facts,
    forget_facts,
    keep_facts,
)
from pytest_ragcheck.golden.hashing import all_hashes, case_digest, hashable, scored_json
from pytest_ragcheck.golden.ids import as_id
from pytest_ragcheck.golden.spans import normalize_text
from pytest_ragcheck.golden.subtopics import check_subtopic_texts, check_subtopics

__all__ = [
    "NO_ANSWER_FIELDS",
    "CaseFacts",
    "GoldenCase",
    "GoldenSet",
    "case_facts",
    "derive_case_id",
]

Mode = Literal["ids", "texts", "none"]
#: What a case with ``answerable: false`` cannot have: the collection holds no answer to it.
NO_ANSWER_FIELDS = (
    "expected_ids",
    "relevance",
    "expected_texts",
    "reference_answer",
    "reference_answers",
    "subtopics",
    "subtopic_texts",
)
#: Where a ``GoldenSet`` notes that its strings are all text (``check_hashable``).
_HASHABLE_KEY = "_hashable"
#: Where a ``GoldenSet`` made :meth:`~GoldenSet.of_columns` keeps them.
_COLUMNS_KEY = "_columns"


class CaseRows(Sequence["GoldenCase"]):
    """Cases kept as columns (:class:`pytest_ragcheck.golden.columns.IdCases`)."""

    @abstractmethod
    def cases(self) -> tuple[GoldenCase, ...]:
        """The case objects, made once."""


def derive_case_id(query: str) -> str:
    """The id of a case that has none: ``"q-"`` + the first 10 hex digits of SHA-1(query).

    The query is hashed exactly as written (UTF-8), so the id is stable across runs and
    platforms and two cases with the same query collide (reported as a duplicate id).
    """
    # surrogatepass: half a surrogate pair (not text) still gets an id, so the case is named
    # in the golden-set error that refuses it, not in a UnicodeEncodeError
    return "q-" + hashlib.sha1(query.encode("utf-8", "surrogatepass")).hexdigest()[:10]


def _coerce_id(value: object) -> object:
    # An integer id becomes its string as for hits; anything else goes on to pydantic's str
    # check unchanged, so a float, a bool or a blank id is reported with its own type.
    found = as_id(value)
    return value if found is None else found


def _non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


DocId = Annotated[str, BeforeValidator(_coerce_id), AfterValidator(_non_blank)]


class GoldenCase(BaseModel):
    """One golden query and what a good retriever must return for it.

    ``expected_ids`` count as grade 1 unless ``relevance`` grades them (``relevance`` wins);
    grade 0 means judged not relevant. A case with only ``expected_texts`` is matched by text
    spans instead of ids (see :func:`pytest_ragcheck.golden.spans.match_spans`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Optional in the constructor: filled in from the query by ``_derive_id`` when absent.
    id: DocId = Field(default=None, validate_default=True)
    query: str
    expected_ids: list[DocId] = Field(default_factory=list)
    relevance: dict[DocId, StrictInt] = Field(default_factory=dict)
    expected_texts: list[str] = Field(default_factory=list)
    reference_answer: str | None = None
    #: Several acceptable answers: lexical answer metrics take the best match.
    reference_answers: list[str] = Field(default_factory=list)
    #: ``False``: the collection holds no answer, and the right behaviour is to decline
    #: (SPEC §13); rank metrics leave the case out.
    answerable: StrictBool = True
    tags: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    #: Diversity judgments (SPEC §12): subtopic -> ``{doc id: grade}`` (a list of ids is read
    #: as grade 1 each); the diversity metrics read them, the rank metrics do not.
    subtopics: dict[str, dict[str, int]] = Field(default_factory=dict)
    #: Diversity judgments of a span case: subtopic -> text spans (matched as expected_texts).
    subtopic_texts: dict[str, list[str]] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _derive_id(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and data.get("id") is None:
            query = data.get("query")
            if isinstance(query, str) and query.strip():
                return {**data, "id": derive_case_id(query)}
        return data

    @field_validator("subtopics", mode="before")
    @classmethod
    def _check_subtopics(cls, value: Any) -> dict[str, dict[str, int]]:
        return check_subtopics(value)

    @field_validator("subtopic_texts", mode="before")
    @classmethod
    def _check_subtopic_texts(cls, value: Any) -> dict[str, list[str]]:
        return check_subtopic_texts(value)

    @model_validator(mode="after")
    def _one_kind_of_subtopics(self) -> GoldenCase:
        if self.subtopics and self.subtopic_texts:
            raise ValueError(
                "a case judges its subtopics by document ids (subtopics) or by text spans "
                "(subtopic_texts), not both; keep one"
            )
        return self

    @model_validator(mode="after")
    def _nothing_to_find(self) -> GoldenCase:
        if not self.answerable:
            for name in NO_ANSWER_FIELDS:
                value = getattr(self, name)
                if value:
                    raise ValueError(
                        f"answerable is false (the collection holds no answer to this query), "
                        f"but the case has {name} {value!r}: remove {name}, or remove "
                        "answerable: false if the collection does answer it"
                    )
        return self

    @field_validator("query")
    @classmethod
    def _query_not_empty(cls, value: str) -> str:
        return _non_blank(value)

    @field_validator("expected_texts")
    @classmethod
    def _spans_not_empty(cls, value: list[str]) -> list[str]:
        for position, span in enumerate(value):
            if not normalize_text(span):
                raise ValueError(f"span #{position + 1} is empty (it would match every text)")
        return value

    @field_validator("tags")
    @classmethod
    def _tags_not_empty(cls, value: list[str]) -> list[str]:
        # An empty tag is almost always an empty spreadsheet cell, and no selection names it.
        for position, tag in enumerate(value):
            if not tag.strip():
                raise ValueError(f"tag #{position + 1} is empty ({tag!r}); remove it")
        return value

    @field_validator("reference_answers")
    @classmethod
    def _answers_not_empty(cls, value: list[str]) -> list[str]:
        for position, answer in enumerate(value):
            if not answer.strip():
                raise ValueError(f"reference answer #{position + 1} is empty")
        return value

    @property
    def references(self) -> tuple[str, ...]:
        """Every reference answer (``reference_answer`` first), blank ones left out."""
        found = [self.reference_answer or "", *self.reference_answers]
        return tuple(dict.fromkeys(a for a in found if a.strip()))

    def relevance_map(self) -> dict[str, int]:
        """Graded judgments: ``expected_ids`` at grade 1, overridden by ``relevance``."""
        return dict(self._grades)

    @property
    def _grades(self) -> Mapping[str, int]:
        """:meth:`relevance_map`, built once: the runner, the metrics and the hashes read it
        for every case (never change it: it is shared). Kept in the instance's ``__dict__``
        by hand: ``functools.cached_property`` takes a lock on every first read."""
        grades: dict[str, int] | None = self.__dict__.get(GRADES_KEY)
        if grades is None:
            grades = keep_facts(self.__dict__)
        return grades

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """pydantic's copy; one with ``update`` works its grades out again when read."""
        copied = super().model_copy(update=update, deep=deep)
        if update:
            forget_facts(copied.__dict__)
        return copied

    @property
    def mode(self) -> Mode:
        """``"ids"`` when the case has id judgments, else ``"texts"`` with spans, else ``"none"``."""
        if self.expected_ids or self.relevance:
            return "ids"
        if self.expected_texts:
            return "texts"
        return "none"

    @property
    def has_relevance(self) -> bool:
        """Whether there is anything relevant to find: an id with grade >= 1 or a text span.

        Judgments that are all grade 0 do not count: every rank metric would be 0 for them.
        """
        return self.relevant_count > 0

    @property
    def content_hash(self) -> str:
        """What can change this case's scores, hashed: query, relevance, spans, reference answer.

        16 hex digits of SHA-256 over a canonical JSON; not ``id`` (the key it is stored under),
        ``tags`` or ``metadata``. A baseline compares a case only when this is unchanged.
        """
        return case_digest(*scored_json(self))

    @property
    def relevant_count(self) -> int:
        """R: relevant ids (grade >= 1) in id mode, the number of spans in text mode."""
        count: int | None = self.__dict__.get(COUNT_KEY)
        if count is None:
            keep_facts(self.__dict__)
            count = self.__dict__[COUNT_KEY]
        return count


@dataclass(frozen=True)
class GoldenSet:
    """An ordered, validated collection of golden cases.

    ``content_hash`` is a SHA-256 over a canonical JSON of what can change a score (id, query,
    merged relevance grades, text spans, reference answer) in case order; it deliberately leaves
    out ``tags`` and ``metadata`` so that editing notes does not invalidate stored baselines.
    """

    cases: tuple[GoldenCase, ...]
    source: str
    notes: tuple[str, ...] = ()
    #: What the reader left out that the user should see in the summary (judgments of
    #: unknown queries, repeated judgments); ``notes`` has these and the plain facts.
    warnings: tuple[str, ...] = ()

    @classmethod
    def of_columns(cls, columns: CaseRows, source: str) -> GoldenSet:
        """A set whose ``cases`` are made from ``columns`` when first read (``columns``: the
        cases as the evaluation reads them, without a case object each)."""
        golden = cls.__new__(cls)
        golden.__dict__.update(source=source, notes=(), warnings=(), **{_COLUMNS_KEY: columns})
        return golden

    if not TYPE_CHECKING:  # mypy: ``cases`` is the field, no other name is made up

        def __getattr__(self, name: str) -> Any:
            """``cases`` of a set made :meth:`of_columns`, made on first read and kept."""
            columns = self.__dict__.get(_COLUMNS_KEY) if name == "cases" else None
            if columns is None:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            cases = columns.cases()  # once, whichever thread asks first
            object.__setattr__(self, "cases", cases)
            return cases

    def __getstate__(self) -> dict[str, Any]:
        """What pickling and copying keep: the fields (``cases`` made if need be)."""
        self.cases  # noqa: B018 (made from the columns when not yet read)
        return {k: v for k, v in self.__dict__.items() if k != _COLUMNS_KEY}

    def view(self) -> Sequence[GoldenCase]:
        """The cases as columns when the set keeps them (:meth:`of_columns`: what the
        evaluation reads of each case, with no case object made until one is read), else
        :attr:`cases`."""
        columns: CaseRows | None = self.__dict__.get(_COLUMNS_KEY)
        return self.cases if columns is None else columns

    @property
    def content_hash(self) -> str:
        """Computed on first use (the baseline needs it; plain runs of big sets do not)."""
        return self._hashes[0]

    @property
    def case_hashes(self) -> dict[str, str]:
        """Case id -> :attr:`GoldenCase.content_hash` (what per-case baselines compare)."""
        return self._hashes[1]

    @functools.cached_property
    def _hashes(self) -> tuple[str, dict[str, str]]:
        """Both hashes in one pass: each case's canonical JSON is written once for both."""
        with no_collections():
            try:
                return all_hashes(self.cases)
            except UnicodeEncodeError:  # cases given as objects: files are checked as read
                case = next(c for c in self.cases if not utf8_writable([c.id, *scored_json(c)]))
                raise GoldenSetError(
                    f"{self.source}: case {case.id!r}: a string holds half a surrogate pair "
                    "(\\ud800-\\udfff without its pair, e.g. from a name decoded with "
                    "surrogateescape), which is not text; fix or remove it"
                ) from None

    def check_hashable(self) -> None:
        """Raise the error :attr:`content_hash` would raise (a string that is not text), without
        hashing: a run's hash is made only when something reads it. Files are checked as
        they are read (:meth:`checked_as_read`); cases given as objects here."""
        if self.__dict__.get(_HASHABLE_KEY) or "_hashes" in self.__dict__:
            return
        if not hashable(self.cases):
            self._hashes  # noqa: B018 (raises the GoldenSetError that names the case)
        self.__dict__[_HASHABLE_KEY] = True

    def checked_as_read(self) -> GoldenSet:
        """This set, known to hold only text (a file reader refused half a surrogate pair)."""
        self.__dict__[_HASHABLE_KEY] = True
        return self

    def subset_hash(self, ids: Collection[str]) -> str:
        """``content_hash`` of the cases whose id is in ``ids``, in this set's order.

        Tells whether the cases a 0.1-format baseline (which has no per-case hashes) was
        recorded on are still the same: equal when cases were only added.
        """
        wanted = set(ids)
        return GoldenSet(tuple(c for c in self.cases if c.id in wanted), self.source).content_hash

    def __len__(self) -> int:
        return len(self.view())

    def __iter__(self) -> Iterator[GoldenCase]:
        return iter(self.cases)

    @property
    def tags(self) -> tuple[str, ...]:
        """Every tag used by a case, sorted."""
        return tuple(sorted({tag for case in self.cases for tag in case.tags}))

    def select(self, tags: Sequence[str] | None) -> GoldenSet:
        """The cases carrying ANY of ``tags`` (all cases for ``None`` or an empty list).

        A tag that no case carries is an error (it is almost always a typo).
        """
        if not tags:
            return self
        if isinstance(tags, str):
            tags = [tags]
        known = self.tags
        for tag in tags:
            if tag not in known:
                listing = ", ".join(known) if known else "none (no case has tags)"
                raise GoldenSetError(
                    f"tag {tag!r} matches no case in {self.source}{did_you_mean(tag, known)}; "
                    f"known tags: {listing}"
                )
        wanted = set(tags)
        chosen = tuple(case for case in self.cases if wanted.intersection(case.tags))
        subset = GoldenSet(chosen, self.source, self.notes, self.warnings)
        # cases that hold only text hold only text in any subset
        return subset.checked_as_read() if self.__dict__.get(_HASHABLE_KEY) else subset
