"""Golden sets: the ``GoldenCase`` model, the file loaders and the content hash.

A golden set is read from a ``.jsonl`` file (one case per line), a ``.json`` file (a list or
``{"cases": [...]}``), a BEIR-style folder (``queries.jsonl`` + ``qrels.tsv`` or
``qrels/<split>.tsv``) or an in-memory list of cases/dicts. Every problem becomes a
:class:`~pytest_ragcheck.errors.GoldenSetError` whose message names the file, the line and the
field, so users never see a raw pydantic dump. Loading is lazy and cached per process, keyed by
the file's path, modification time and size.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictInt,
    ValidationError,
    field_validator,
    model_validator,
)

from pytest_ragcheck.errors import GoldenSetError, did_you_mean
from pytest_ragcheck.hits import normalize_text

__all__ = [
    "GoldenCase",
    "GoldenSet",
    "clear_cache",
    "derive_case_id",
    "load_golden",
]

#: Errors listed in one message before the rest are summarised as "... and N more".
_MAX_PROBLEMS = 20
#: Bumped whenever the canonical form hashed by ``GoldenSet.content_hash`` changes.
_HASH_VERSION = 1
_JSONL_SUFFIXES = (".jsonl", ".ndjson")

Mode = Literal["ids", "texts", "none"]


def derive_case_id(query: str) -> str:
    """The id of a case that has none: ``"q-"`` + the first 10 hex digits of SHA-1(query).

    The query is hashed exactly as written (UTF-8), so the id is stable across runs and
    platforms and two cases with the same query collide (reported as a duplicate id).
    """
    return "q-" + hashlib.sha1(query.encode("utf-8")).hexdigest()[:10]


def _coerce_id(value: object) -> object:
    # Real BEIR/TREC files use numeric ids; accept JSON integers (never bools or floats).
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


def _non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


DocId = Annotated[str, BeforeValidator(_coerce_id), AfterValidator(_non_blank)]


class GoldenCase(BaseModel):
    """One golden query and what a good retriever must return for it.

    ``expected_ids`` count as grade 1 unless ``relevance`` grades them (``relevance`` wins);
    grade 0 means judged not relevant. A case with only ``expected_texts`` is matched by text
    spans instead of ids (see :func:`pytest_ragcheck.hits.match_spans`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Optional in the constructor: filled in from the query by ``_derive_id`` when absent.
    id: DocId = Field(default=None, validate_default=True)
    query: str
    expected_ids: list[DocId] = Field(default_factory=list)
    relevance: dict[DocId, StrictInt] = Field(default_factory=dict)
    expected_texts: list[str] = Field(default_factory=list)
    reference_answer: str | None = None
    tags: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _derive_id(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and data.get("id") is None:
            query = data.get("query")
            if isinstance(query, str) and query.strip():
                return {**data, "id": derive_case_id(query)}
        return data

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

    def relevance_map(self) -> dict[str, int]:
        """Graded judgments: ``expected_ids`` at grade 1, overridden by ``relevance``."""
        grades = dict.fromkeys(self.expected_ids, 1)
        grades.update(self.relevance)
        return grades

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
    def relevant_count(self) -> int:
        """R: relevant ids (grade >= 1) in id mode, the number of spans in text mode."""
        if self.mode == "ids":
            return sum(1 for grade in self.relevance_map().values() if grade >= 1)
        return len(self.expected_texts)


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
    "meta": "metadata",
}


def _suggest_field(name: str) -> str:
    alias = _FIELD_ALIASES.get(name.lower())
    if alias is not None:
        return f" (did you mean {alias!r}?)"
    return did_you_mean(name, _CASE_FIELDS)


def _short(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


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
            problems.append(f"field '{where}': {msg}")
        elif kind == "model_type":
            problems.append(f"expected a JSON object, got {type(err['input']).__name__}")
        else:
            key_note = " (key)" if loc and loc[-1] == "[key]" else ""
            problems.append(
                f"field '{where}'{key_note}: {str(err['msg']).lower().removeprefix('input ')}"
                f", got {type(err['input']).__name__} {_short(err['input'])}"
            )
    return problems


def _problem_error(title: str, problems: list[str]) -> GoldenSetError:
    if len(problems) == 1:
        return GoldenSetError(problems[0])
    shown = problems[:_MAX_PROBLEMS]
    more = len(problems) - len(shown)
    lines = [f"{title} has {len(problems)} problems:", *(f"  {p}" for p in shown)]
    if more:
        lines.append(f"  ... and {more} more")
    return GoldenSetError("\n".join(lines))


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

    @functools.cached_property
    def content_hash(self) -> str:
        """Computed on first use (the baseline needs it; plain runs of big sets do not)."""
        return _content_hash(self.cases)

    def __len__(self) -> int:
        return len(self.cases)

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
        return GoldenSet(chosen, self.source, self.notes)


def _content_hash(cases: Sequence[GoldenCase]) -> str:
    payload = {
        "version": _HASH_VERSION,
        "cases": [
            {
                "id": case.id,
                "query": case.query,
                "relevance": case.relevance_map(),
                "expected_texts": case.expected_texts,
                "reference_answer": case.reference_answer,
            }
            for case in cases
        ],
    }
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- case building


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


# One shared decoder: json.loads(..., object_pairs_hook=...) would build a new one per line.
_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicate_keys)


def _parse_json(text: str, display: str, line: int | None = None) -> Any:
    """Parse JSON; errors name the file, the line and the column.

    ``line`` is the file line of ``text`` when it is one JSONL line.
    """
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        lineno = exc.lineno if line is None else line
        raise GoldenSetError(f"{display}:{lineno}:{exc.colno}: malformed JSON: {exc.msg}") from None
    except _DuplicateKey as exc:
        where = display if line is None else f"{display}:{line}"
        raise GoldenSetError(f"{where}: duplicate key {exc.key!r} in a JSON object") from None


class _Builder:
    """Validates raw case dicts, collecting problems and checking id uniqueness."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.cases: list[GoldenCase] = []
        self.problems: list[str] = []
        self._first_seen: dict[str, tuple[str, bool]] = {}

    def add(self, raw: object, where: str, place: str) -> None:
        """``where`` prefixes messages (``file:3``); ``place`` names it in a duplicate note."""
        if isinstance(raw, GoldenCase):
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
            self.problems.append(f"{where}: expected {kind}, got {type(raw).__name__}")
            return
        first = self._first_seen.get(case.id)
        if first is not None:
            first_place, first_derived = first
            if derived and first_derived:
                self.problems.append(
                    f"{where}: duplicate id {case.id!r} (derived from the same query as "
                    f"{first_place}); remove the repeat or give the cases distinct ids"
                )
            else:
                self.problems.append(f"{where}: duplicate id {case.id!r} (also on {first_place})")
            return
        self._first_seen[case.id] = (place, derived)
        self.cases.append(case)

    def finish(self, source: str, notes: tuple[str, ...] = ()) -> GoldenSet:
        if self.problems:
            raise _problem_error(self.title, self.problems)
        if not self.cases:
            raise GoldenSetError(f"{self.title} contains no cases")
        return GoldenSet(tuple(self.cases), source, notes)


def _from_objects(items: Iterable[object]) -> GoldenSet:
    builder = _Builder("cases")
    for position, raw in enumerate(items, 1):
        builder.add(raw, f"case #{position}", f"case #{position}")
    return builder.finish("<cases>")


# --------------------------------------------------------------------------- file loaders


def _read_text(path: Path, display: str) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise GoldenSetError(f"cannot read golden set {display}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise GoldenSetError(f"{display}:{line}: not valid UTF-8 ({exc.reason})") from None


def _lines(text: str) -> Iterator[tuple[int, str]]:
    # Split on "\n" only: str.splitlines() also breaks on U+2028, which JSON allows in strings.
    for number, line in enumerate(text.split("\n"), 1):
        yield number, line.rstrip("\r")


def _load_jsonl(path: Path, display: str) -> GoldenSet:
    text = _read_text(path, display)
    builder = _Builder(display)
    for number, line in _lines(text):
        if not line.strip():
            continue
        where = f"{display}:{number}"
        try:
            raw = _parse_json(line, display, number)
        except GoldenSetError as exc:
            builder.problems.append(str(exc))
            continue
        builder.add(raw, where, f"line {number}")
    if not builder.cases and not builder.problems:
        raise GoldenSetError(f"golden set {display} is empty (expected one JSON case per line)")
    return builder.finish(display)


def _load_json(path: Path, display: str) -> GoldenSet:
    text = _read_text(path, display)
    if not text.strip():
        raise GoldenSetError(f"golden set {display} is empty (expected a JSON list of cases)")
    data = _parse_json(text, display)
    if isinstance(data, Mapping):
        extra = [key for key in data if key != "cases"]
        if extra:
            raise GoldenSetError(
                f"{display}: unknown top-level key {extra[0]!r}"
                f"{did_you_mean(extra[0], ['cases'])}; expected a list of cases or "
                '{"cases": [...]}'
            )
        if "cases" not in data:
            raise GoldenSetError(f'{display}: expected a list of cases or {{"cases": [...]}}')
        data = data["cases"]
    if not isinstance(data, list):
        raise GoldenSetError(
            f'{display}: expected a list of cases or {{"cases": [...]}}, got {type(data).__name__}'
        )
    builder = _Builder(display)
    for position, raw in enumerate(data, 1):
        label = f"case #{position}"
        if isinstance(raw, Mapping) and isinstance(raw.get("id"), str | int):
            label += f" (id {str(raw['id'])!r})"
        builder.add(raw, f"{display}: {label}", f"case #{position}")
    return builder.finish(display)


@dataclass(frozen=True)
class _BeirFiles:
    folder: Path
    queries: Path
    qrels: Path
    corpus: Path | None


def _beir_layout(folder: Path, split: str | None, display: str) -> _BeirFiles:
    queries = folder / "queries.jsonl"
    corpus = folder / "corpus.jsonl"
    root_qrels = folder / "qrels.tsv"
    qdir = folder / "qrels"
    splits = sorted(p.stem for p in qdir.glob("*.tsv")) if qdir.is_dir() else []
    if not queries.is_file() or not (root_qrels.is_file() or splits):
        try:
            found = ", ".join(sorted(p.name for p in folder.iterdir())[:12]) or "nothing"
        except OSError:
            found = "nothing readable"
        raise GoldenSetError(
            f"folder {display} is not a BEIR-style golden set: expected queries.jsonl and "
            f"qrels.tsv or qrels/<split>.tsv; found: {found}"
        )
    if split is not None:
        if split in splits:
            qrels = qdir / f"{split}.tsv"
        else:
            available = ", ".join(splits) if splits else "none (the folder has a single qrels.tsv)"
            raise GoldenSetError(
                f"{display}: no qrels for split {split!r}{did_you_mean(split, splits)}; "
                f"available splits: {available}"
            )
    elif root_qrels.is_file():
        qrels = root_qrels
    elif "test" in splits:
        qrels = qdir / "test.tsv"
    elif len(splits) == 1:
        qrels = qdir / f"{splits[0]}.tsv"
    else:
        raise GoldenSetError(
            f"{display}: several qrels splits ({', '.join(splits)}) and none is 'test'; choose "
            "one with split=... or point cases= at the qrels file, e.g. "
            f"{display}/qrels/{splits[0]}.tsv"
        )
    return _BeirFiles(folder, queries, qrels, corpus if corpus.is_file() else None)


def _beir_from_qrels_file(path: Path, display: str) -> _BeirFiles:
    for folder in (path.parent, path.parent.parent):
        if (folder / "queries.jsonl").is_file():
            corpus = folder / "corpus.jsonl"
            return _BeirFiles(
                folder, folder / "queries.jsonl", path, corpus if corpus.is_file() else None
            )
    raise GoldenSetError(
        f"{display}: a .tsv golden set is read as BEIR qrels, but no queries.jsonl was found "
        "next to it or in the folder above"
    )


def _parse_qrels(path: Path, display: str) -> tuple[dict[str, dict[str, int]], int]:
    """``qid docid grade`` rows (tab- or space-separated, TREC's 4 columns also accepted)."""
    text = _read_text(path, display)
    qrels: dict[str, dict[str, int]] = {}
    repeats = 0
    first_row = True
    problems: list[str] = []
    for number, line in _lines(text):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        parts = [p.strip() for p in stripped.split("\t")] if "\t" in stripped else stripped.split()
        if len(parts) == 4:
            qid, _, docid, grade_text = parts
        elif len(parts) == 3:
            qid, docid, grade_text = parts
        else:
            problems.append(
                f"{display}:{number}: expected 3 columns 'qid docid grade' (or TREC's 4), "
                f"got {len(parts)}"
            )
            first_row = False
            continue
        try:
            grade = int(grade_text)
        except ValueError:
            if not first_row:  # the first row may be a header such as "query-id corpus-id score"
                problems.append(f"{display}:{number}: grade must be an integer, got {grade_text!r}")
            first_row = False
            continue
        first_row = False
        if not qid or not docid:
            problems.append(f"{display}:{number}: empty query or document id")
            continue
        judged = qrels.setdefault(qid, {})
        if docid in judged:
            repeats += 1
        judged[docid] = grade
    if problems:
        raise _problem_error(display, problems)
    if not qrels:
        raise GoldenSetError(f"qrels file {display} has no judgments")
    return qrels, repeats


def _count_lines(path: Path) -> int:
    count = 0
    last = b"\n"
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (last != b"\n")


def _load_beir(files: _BeirFiles, display: str) -> GoldenSet:
    qrels_display = _display(files.qrels)
    queries_display = _display(files.queries)
    qrels, repeats = _parse_qrels(files.qrels, qrels_display)
    text = _read_text(files.queries, queries_display)
    builder = _Builder(queries_display)
    seen_qids: set[str] = set()
    unjudged = 0
    for number, line in _lines(text):
        if not line.strip():
            continue
        where = f"{queries_display}:{number}"
        try:
            raw = _parse_json(line, queries_display, number)
        except GoldenSetError as exc:
            builder.problems.append(str(exc))
            continue
        if not isinstance(raw, Mapping):
            builder.problems.append(f"{where}: expected a JSON object, got {type(raw).__name__}")
            continue
        qid = raw.get("_id", raw.get("id"))
        if isinstance(qid, int) and not isinstance(qid, bool):
            qid = str(qid)
        if not isinstance(qid, str) or not qid.strip():
            builder.problems.append(f"{where}: missing query id (field '_id' or 'id')")
            continue
        if qid in seen_qids:
            builder.problems.append(f"{where}: duplicate query id {qid!r}")
            continue
        seen_qids.add(qid)
        if "text" not in raw:
            builder.problems.append(f"{where}: missing required field 'text' (the query)")
            continue
        if not isinstance(raw["text"], str) or not raw["text"].strip():
            builder.problems.append(
                f"{where}: field 'text' (the query) must be a non-empty string, "
                f"got {_short(raw['text'])}"
            )
            continue
        if qid not in qrels:
            unjudged += 1
            continue
        # BEIR keeps extra query fields in "metadata"; other unknown fields are kept there too.
        given = raw.get("metadata")
        metadata: dict[str, Any] = dict(given) if isinstance(given, Mapping) else {}
        metadata.update(
            (k, v) for k, v in raw.items() if k not in ("_id", "id", "text", "metadata")
        )
        case = {"id": qid, "query": raw["text"], "relevance": qrels[qid], "metadata": metadata}
        builder.add(case, where, f"line {number}")
    notes: list[str] = [f"BEIR folder {display}, qrels {qrels_display}"]
    unknown = len(set(qrels) - seen_qids)
    if unknown:
        notes.append(f"{unknown} qrels queries not in queries.jsonl were ignored")
    if unjudged:
        notes.append(f"{unjudged} queries without judgments in this qrels file were skipped")
    if repeats:
        notes.append(f"{repeats} repeated (qid, docid) judgments: the last one was kept")
    if files.corpus is not None:
        notes.append(f"corpus.jsonl: {_count_lines(files.corpus)} documents (not loaded)")
    if not builder.cases and not builder.problems:
        raise GoldenSetError(
            f"{display}: no query in {queries_display} has a judgment in {qrels_display} "
            "(do the query ids match?)"
        )
    return builder.finish(display, tuple(notes))


# --------------------------------------------------------------------------- resolution + cache


def _display(path: Path) -> str:
    """A short path for messages: relative to the current directory when below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except (ValueError, OSError):  # not below the current directory, or it was removed
        return str(path)


def _resolve(source: str | os.PathLike[str], base_dirs: Sequence[Path]) -> Path:
    raw = Path(source).expanduser()
    if raw.is_absolute():
        candidates = [raw]
    else:
        bases = list(base_dirs) or [Path.cwd()]
        candidates = [Path(base) / raw for base in bases]
    for candidate in candidates:
        if candidate.exists():
            return candidate.resolve()
    looked = ", ".join(str(c) for c in candidates)
    raise GoldenSetError(f"golden set {str(source)!r} not found; looked in: {looked}")


_Signature = tuple[tuple[str, int, int], ...]
_CACHE: dict[tuple[str, str | None], tuple[_Signature, GoldenSet]] = {}
_CACHE_LOCK = threading.Lock()


def clear_cache() -> None:
    """Forget every loaded golden set (the next load reads the files again)."""
    with _CACHE_LOCK:
        _CACHE.clear()


def _signature(paths: Iterable[Path]) -> _Signature:
    out = []
    for path in paths:
        stat = path.stat()
        out.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(out)


def _load_path(path: Path, split: str | None) -> GoldenSet:
    display = _display(path)
    suffix = path.suffix.lower()
    beir: _BeirFiles | None = None
    if split is not None and not path.is_dir():
        raise GoldenSetError(
            f"split={split!r} applies only to a BEIR-style folder, but {display} is a file"
        )
    if path.is_dir():
        beir = _beir_layout(path, split, display)
        files: list[Path] = [beir.queries, beir.qrels] + ([beir.corpus] if beir.corpus else [])
    elif suffix == ".tsv":
        beir = _beir_from_qrels_file(path, display)
        files = [beir.queries, beir.qrels] + ([beir.corpus] if beir.corpus else [])
    elif suffix in _JSONL_SUFFIXES or suffix == ".json":
        files = [path]
    else:
        raise GoldenSetError(
            f"unsupported golden set {display}: use a .jsonl or .json file, or a BEIR-style "
            "folder (queries.jsonl + qrels.tsv)"
        )
    key = (str(path), split)
    with _CACHE_LOCK:
        signature = _signature(files)
        cached = _CACHE.get(key)
        if cached is not None and cached[0] == signature:
            return cached[1]
        if beir is not None:
            loaded = _load_beir(beir, display)
        elif suffix == ".json":
            loaded = _load_json(path, display)
        else:
            loaded = _load_jsonl(path, display)
        _CACHE[key] = (signature, loaded)
        return loaded


def load_golden(
    source: object,
    *,
    base_dirs: Sequence[Path] = (),
    split: str | None = None,
) -> GoldenSet:
    """Load a golden set from a path, a list of cases/dicts, or ``{"cases": [...]}``.

    A relative path is tried against each of ``base_dirs`` in order (the current directory
    when empty). ``split`` picks ``qrels/<split>.tsv`` in a BEIR folder (default: ``qrels.tsv``,
    else ``test``, else the only split). Files are cached per process and re-read when their
    modification time or size changes.
    """
    if isinstance(source, GoldenSet):
        return source
    if split is not None and not isinstance(source, str | os.PathLike):
        raise GoldenSetError(f"split={split!r} applies only to a BEIR-style folder")
    if isinstance(source, str | os.PathLike):
        if isinstance(source, str) and not source.strip():
            raise GoldenSetError("cases= is an empty path")
        return _load_path(_resolve(source, base_dirs), split)
    if isinstance(source, Mapping):
        if set(source) != {"cases"}:
            raise GoldenSetError(
                'an in-memory golden set must be a list of cases or {"cases": [...]}'
            )
        source = source["cases"]
    if isinstance(source, Iterable) and not isinstance(source, bytes | Mapping):
        return _from_objects(source)
    raise GoldenSetError(
        "cases= must be a path (.jsonl, .json or a BEIR folder) or a list of cases/dicts, "
        f"got {type(source).__name__}"
    )
