"""BEIR-style golden sets: ``queries.jsonl`` plus qrels (``qrels.tsv`` or ``qrels/<split>.tsv``),
and optionally ``subtopics.tsv`` (TREC's diversity qrels: ``qid subtopic docid grade``).

Only judged queries become cases; what was skipped or ignored (unjudged queries, qrels for
unknown queries, repeated judgments) is kept as notes for the report instead of failing.
``corpus.jsonl`` is counted, never loaded.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_ragcheck.common.display import shorten
from pytest_ragcheck.common.errors import GoldenSetError, did_you_mean
from pytest_ragcheck.common.input_files import open_regular
from pytest_ragcheck.golden.build import CaseBuilder, problem_error
from pytest_ragcheck.golden.files import display_path, jsonl_records, read_text, split_lines
from pytest_ragcheck.golden.ids import as_id
from pytest_ragcheck.golden.model import GoldenSet

__all__ = ["BeirFiles", "beir_files", "beir_files_for_qrels", "load_beir"]


@dataclass(frozen=True, slots=True)
class BeirFiles:
    """The files of one BEIR golden set: the qrels actually read and the optional corpus."""

    queries: Path
    qrels: Path
    corpus: Path | None
    #: ``subtopics.tsv`` next to ``queries.jsonl``, when there is one.
    subtopics: Path | None = None

    @classmethod
    def in_folder(cls, folder: Path, qrels: Path) -> BeirFiles:
        corpus = folder / "corpus.jsonl"
        subtopics = folder / "subtopics.tsv"
        return cls(
            folder / "queries.jsonl",
            qrels,
            corpus if corpus.is_file() else None,
            subtopics if subtopics.is_file() else None,
        )

    @property
    def paths(self) -> tuple[Path, ...]:
        """Every file whose change must reload the set."""
        read = (self.queries, self.qrels)
        optional = (self.corpus, self.subtopics)
        return (*read, *(p for p in optional if p is not None))


def beir_files(folder: Path, split: str | None, display: str) -> BeirFiles:
    """The files of a BEIR folder; ``split`` picks ``qrels/<split>.tsv``.

    Without a split: ``qrels.tsv``, else ``qrels/test.tsv``, else the only split.
    """
    root_qrels = folder / "qrels.tsv"
    qdir = folder / "qrels"
    splits = sorted(p.stem for p in qdir.glob("*.tsv")) if qdir.is_dir() else []
    if not (folder / "queries.jsonl").exists() or not (root_qrels.exists() or splits):
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
    elif root_qrels.exists():  # read as a file: anything else is named as such
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
    return BeirFiles.in_folder(folder, qrels)


def beir_files_for_qrels(path: Path, display: str) -> BeirFiles:
    """A ``.tsv`` given directly: its ``queries.jsonl`` is next to it or one folder up."""
    for folder in (path.parent, path.parent.parent):
        if (folder / "queries.jsonl").is_file():
            return BeirFiles.in_folder(folder, path)
    raise GoldenSetError(
        f"{display}: a .tsv golden set is read as BEIR qrels, but no queries.jsonl was found "
        "next to it or in the folder above"
    )


def _is_number(text: str) -> bool:
    """``"1.0"``, ``"-2"``, ``"3e0"``: a grade written wrong, not a header's column name.

    Digits too many for ``int()`` (or a float) are a number too: taking them for a header
    would drop the row unsaid.
    """
    try:
        return math.isfinite(float(text)) or any(c.isdigit() for c in text)
    except ValueError:
        return False


def _shown(text: str, limit: int = 40) -> str:
    """``text`` quoted, shortened when long (a 5,000-digit grade stays one readable line)."""
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}… ({len(text):,} characters)"


def _rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """The numbered rows of a TREC-style file, split on tabs (or any whitespace without one);
    blank lines and ``#`` comments skipped."""
    for number, line in split_lines(text):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            yield (
                number,
                (
                    [p.strip() for p in stripped.split("\t")]
                    if "\t" in stripped
                    else stripped.split()
                ),
            )


def _parse_qrels(path: Path, display: str) -> tuple[dict[str, dict[str, int]], int]:
    """``qid docid grade`` rows (tab- or space-separated, TREC's 4 columns also accepted)."""
    text = read_text(path, display)
    qrels: dict[str, dict[str, int]] = {}
    repeats = 0
    first_row = True
    problems: list[str] = []
    for number, parts in _rows(text):
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
            if "_" in grade_text:  # int() reads "1_0" as 10
                raise ValueError(grade_text)
        except ValueError:
            # The first row may be a header such as "query-id corpus-id score"; a number
            # (a grade of "1.0") is a judgment, never skipped unsaid.
            if not first_row or _is_number(grade_text):
                problems.append(
                    f"{display}:{number}: grade must be an integer, got {_shown(grade_text)}"
                )
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
        raise problem_error(display, problems)
    if not qrels:
        raise GoldenSetError(f"qrels file {display} has no judgments")
    return qrels, repeats


#: qid -> subtopic -> docid -> grade
Subtopics = dict[str, dict[str, dict[str, int]]]


def _parse_subtopics(path: Path, display: str) -> tuple[Subtopics, int]:
    """``qid subtopic docid grade`` rows (whitespace-separated, an optional header line)."""
    text = read_text(path, display)
    found: Subtopics = {}
    repeats = 0
    first_row = True
    problems: list[str] = []
    for number, parts in _rows(text):
        if len(parts) != 4:
            problems.append(
                f"{display}:{number}: expected 4 columns 'qid subtopic docid grade' (TREC's "
                f"diversity qrels), got {len(parts)}"
            )
            first_row = False
            continue
        qid, subtopic, docid, grade_text = parts
        try:
            grade = int(grade_text)
            if "_" in grade_text:
                raise ValueError(grade_text)
        except ValueError:
            if not first_row or _is_number(grade_text):  # else a header line
                problems.append(
                    f"{display}:{number}: grade must be an integer, got {_shown(grade_text)}"
                )
            first_row = False
            continue
        first_row = False
        if not qid or not subtopic or not docid:
            problems.append(f"{display}:{number}: empty query, subtopic or document id")
            continue
        judged = found.setdefault(qid, {}).setdefault(subtopic, {})
        if docid in judged:
            repeats += 1
        judged[docid] = grade
    if problems:
        raise problem_error(display, problems)
    if not found:
        raise GoldenSetError(
            f"subtopics file {display} has no judgments; remove it or add rows "
            "'qid subtopic docid grade'"
        )
    return found, repeats


def _count_lines(path: Path) -> int:
    count = 0
    last = b"\n"
    with open_regular(path) as handle:  # found a regular file: still one, never a FIFO
        while chunk := handle.read(1 << 20):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (last != b"\n")


def _query_metadata(raw: Mapping[str, Any], id_key: str) -> dict[str, Any] | str:
    """The case's metadata: BEIR's ``metadata`` object plus every other unknown field (an
    ``id`` beside ``_id`` too), or a problem when one of them would be lost."""
    given = raw.get("metadata")
    if given is None:  # absent, or null as some exports write it
        given = {}
    elif not isinstance(given, Mapping):  # BEIR writes {} when a query has none
        return (
            f"field 'metadata' must be a JSON object, got {type(given).__name__} "
            f"{shorten(repr(given))}"
        )
    metadata: dict[str, Any] = dict(given)
    for key, value in raw.items():
        if key in (id_key, "text", "metadata"):
            continue
        if key in metadata:
            return (
                f"field {key!r} is both a top-level field and a key of 'metadata' "
                f"({shorten(repr(value))} and {shorten(repr(metadata[key]))}); keep one"
            )
        metadata[key] = value
    return metadata


def load_beir(files: BeirFiles, display: str) -> GoldenSet:
    """One case per judged query; ``display`` names the folder (or qrels file) given."""
    qrels_display = display_path(files.qrels)
    queries_display = display_path(files.queries)
    qrels, repeats = _parse_qrels(files.qrels, qrels_display)
    subtopics: Subtopics = {}
    subtopics_display = ""
    subtopic_repeats = 0
    if files.subtopics is not None:
        subtopics_display = display_path(files.subtopics)
        subtopics, subtopic_repeats = _parse_subtopics(files.subtopics, subtopics_display)
    text = read_text(files.queries, queries_display)
    builder = CaseBuilder(queries_display)
    seen_qids: set[str] = set()
    unjudged = 0
    for number, where, raw in jsonl_records(text, queries_display, builder.problems):
        if not isinstance(raw, Mapping):
            builder.problems.append(f"{where}: expected a JSON object, got {type(raw).__name__}")
            continue
        id_key = "_id" if "_id" in raw else "id"
        given = raw.get(id_key)
        qid = as_id(given)
        if given is None:
            builder.problems.append(f"{where}: missing query id (field '_id' or 'id')")
            continue
        if qid is None or not qid.strip():
            builder.problems.append(
                f"{where}: the query id (field '_id' or 'id') must be a non-empty string or an "
                f"integer, got {shorten(repr(given))}"
            )
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
                f"got {shorten(repr(raw['text']))}"
            )
            continue
        metadata = _query_metadata(raw, id_key)
        if isinstance(metadata, str):
            builder.problems.append(f"{where}: query {qid!r}: {metadata}")
            continue
        if qid not in qrels:
            unjudged += 1
            continue
        case = {"id": qid, "query": raw["text"], "relevance": qrels[qid], "metadata": metadata}
        if qid in subtopics:
            case["subtopics"] = subtopics[qid]
        builder.add(case, where, f"line {number}")
    notes: list[str] = [f"BEIR folder {display}, qrels {qrels_display}"]
    if subtopics_display:
        notes[0] += f", subtopics {subtopics_display}"
    warnings: list[str] = []
    unknown = sorted(set(qrels) - seen_qids)
    if unknown:
        shown = ", ".join(repr(shorten(q)) for q in unknown[:3])
        warnings.append(
            f"{qrels_display}: the judgments of {len(unknown)} query id(s) not in "
            f"{queries_display} were ignored (first: {shown}); do the query ids match?"
        )
    unknown_subtopics = sorted(set(subtopics) - seen_qids)
    if unknown_subtopics:
        shown = ", ".join(repr(shorten(q)) for q in unknown_subtopics[:3])
        warnings.append(
            f"{subtopics_display}: the subtopics of {len(unknown_subtopics)} query id(s) not in "
            f"{queries_display} were ignored (first: {shown}); do the query ids match?"
        )
    skipped = sorted((set(subtopics) & seen_qids) - set(qrels))
    if skipped:
        shown = ", ".join(repr(shorten(q)) for q in skipped[:3])
        warnings.append(
            f"{subtopics_display}: {len(skipped)} query id(s) have subtopics but no judgment "
            f"in {qrels_display}, so no case (first: {shown}); add their qrels"
        )
    if subtopic_repeats:
        warnings.append(
            f"{subtopics_display}: {subtopic_repeats} repeated (qid, subtopic, docid) "
            "judgment(s): the last of each was kept"
        )
    if unjudged:
        notes.append(f"{unjudged} queries without judgments in this qrels file were skipped")
    if repeats:
        warnings.append(
            f"{qrels_display}: {repeats} repeated (qid, docid) judgment(s): the last of each was kept"
        )
    notes[1:1] = warnings
    if files.corpus is not None:
        notes.append(f"corpus.jsonl: {_count_lines(files.corpus)} documents (not loaded)")
    if not builder.cases and not builder.problems:
        raise GoldenSetError(
            f"{display}: no query in {queries_display} has a judgment in {qrels_display} "
            "(do the query ids match?)"
        )
    return builder.finish(display, tuple(notes), tuple(warnings))
