"""Reading golden-set files: UTF-8 text, strict JSON and the ``.jsonl``/``.json`` loaders.

Every problem names the file, the line and (for JSON syntax) the column. JSON objects with a
repeated key are rejected: ``json`` would silently keep the last value.
"""

from __future__ import annotations

import codecs
import json
import re
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pytest_ragcheck.common.errors import GoldenSetError, did_you_mean
from pytest_ragcheck.common.escapes import utf8_writable
from pytest_ragcheck.common.input_files import read_regular_bytes
from pytest_ragcheck.common.json_keys import DuplicateKeyError, unique_keys
from pytest_ragcheck.golden.build import CaseBuilder
from pytest_ragcheck.golden.ids import IdError, as_id
from pytest_ragcheck.golden.model import GoldenSet

__all__ = [
    "display_path",
    "jsonl_records",
    "jsonl_values",
    "load_json",
    "load_jsonl",
    "read_text",
    "split_lines",
]


def display_path(path: Path) -> str:
    """A short path for messages: relative to the current directory when below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except (ValueError, OSError):  # not below the current directory, or it was removed
        return str(path)


def read_text(path: Path, display: str) -> str:
    """The file as text (UTF-8, a BOM allowed); an unreadable file or byte names its line.

    Only a regular file is read: a FIFO would hold the session until it is killed."""
    try:
        data = read_regular_bytes(path)
    except OSError as exc:
        raise GoldenSetError(f"cannot read golden set {display}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):  # Windows "Unicode"
            raise GoldenSetError(
                f"{display} is UTF-16 text (it starts with a UTF-16 byte-order mark); "
                "save it as UTF-8"
            ) from None
        line = data[: exc.start].count(b"\n") + 1
        raise GoldenSetError(f"{display}:{line}: not valid UTF-8 ({exc.reason})") from None


def split_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` pairs, counting from 1."""
    # Split on "\n" only: str.splitlines() also breaks on U+2028, which JSON allows in strings.
    for number, line in enumerate(text.split("\n"), 1):
        yield number, line.rstrip("\r")


# One shared decoder: json.loads(..., object_pairs_hook=...) would build a new one per line.
_DECODER = json.JSONDecoder(object_pairs_hook=unique_keys)


def _parse_json(text: str, display: str, line: int | None = None) -> Any:
    """Parse JSON; errors name the file, the line and the column.

    ``line`` is the file line of ``text`` when it is one JSONL line.
    """
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        lineno = exc.lineno if line is None else line
        raise GoldenSetError(f"{display}:{lineno}:{exc.colno}: malformed JSON: {exc.msg}") from None
    except DuplicateKeyError as exc:
        where = display if line is None else f"{display}:{line}"
        raise GoldenSetError(f"{where}: duplicate key {exc.key!r} in a JSON object") from None
    except ValueError:  # a number longer than Python converts (sys.get_int_max_str_digits)
        where = display if line is None else f"{display}:{line}"
        raise GoldenSetError(
            f"{where}: a number has more digits than Python reads "
            f"({sys.get_int_max_str_digits():,}); write long ids as strings"
        ) from None
    except RecursionError:  # lists or objects nested deeper than Python's recursion limit
        where = display if line is None else f"{display}:{line}"
        raise GoldenSetError(
            f"{where}: malformed JSON: lists or objects nested too deeply "
            f"(Python reads at most about {sys.getrecursionlimit():,} levels)"
        ) from None


#: JSONL lines parsed by one decoder call.
_CHUNK = 2048
#: A ``\\uD800``-``\\uDFFF`` escape: JSON can spell half a surrogate pair, which is no text.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _surrogate_problem(where: str) -> str:
    return (
        f"{where}: a string holds an unpaired surrogate escape (\\ud800-\\udfff without its "
        "pair), which is not text; fix or remove it"
    )


def _all_at_once(lines: list[str]) -> list[Any] | None:
    """The values of ``lines`` parsed as one JSON array (one decoder call instead of one per
    line: half the time), or ``None`` when that fails.

    Equal to parsing each line on its own: every line that parses here holds at least one
    value (a blank line or one of only commas would not parse), so as many values as lines
    means one each.
    """
    try:
        values = _DECODER.decode("[" + ",".join(lines) + "]")
    except (ValueError, RecursionError):  # malformed, a repeated key, a long number, deep
        return None
    return values if type(values) is list and len(values) == len(lines) else None


def jsonl_values(text: str, display: str, problems: list[str]) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for each non-blank JSONL line.

    A malformed line (or one with half a surrogate pair) is added to ``problems`` and
    skipped, so one run reports every bad line.
    """
    values = _line_values(text, display, problems)
    if _SURROGATE_ESCAPE.search(text) is None:  # the usual file: nothing more to check
        return values
    return _text_only(values, display, problems)


def _text_only(
    values: Iterator[tuple[int, Any]], display: str, problems: list[str]
) -> Iterator[tuple[int, Any]]:
    for number, raw in values:
        if not utf8_writable(raw):  # hashing, baselines and reports could not write it
            problems.append(_surrogate_problem(f"{display}:{number}"))
            continue
        yield number, raw


def _line_values(text: str, display: str, problems: list[str]) -> Iterator[tuple[int, Any]]:
    """:func:`jsonl_values` without the surrogate check.

    Lines are parsed a chunk at a time (a chunk's values alive at once, not the whole file's):
    first as they are (a blank line, or one with no or two values, makes the chunk fail),
    then without the blank lines, then line by line.
    """
    rows = text.split("\n")
    while rows and not rows[-1].strip():  # the usual final newline
        rows.pop()
    for start in range(0, len(rows), _CHUNK):
        chunk = rows[start : start + _CHUNK]
        values = _all_at_once(chunk)
        if values is not None:
            yield from zip(range(start + 1, start + len(chunk) + 1), values, strict=True)
            continue
        lines = [(n, line.rstrip("\r")) for n, line in enumerate(chunk, start + 1) if line.strip()]
        found = _all_at_once([line for _, line in lines])
        if found is not None:
            yield from zip([number for number, _ in lines], found, strict=True)
            continue
        for number, line in lines:
            try:
                raw = _parse_json(line, display, number)
            except GoldenSetError as exc:
                problems.append(str(exc))
                continue
            yield number, raw


def jsonl_records(text: str, display: str, problems: list[str]) -> Iterator[tuple[int, str, Any]]:
    """``(line number, "file:line", value)`` for each non-blank JSONL line (:func:`jsonl_values`)."""
    for number, raw in jsonl_values(text, display, problems):
        yield number, f"{display}:{number}", raw


def load_jsonl(path: Path, display: str) -> GoldenSet:
    """One case per line; blank lines are skipped."""
    builder = CaseBuilder(display)
    add = builder.add_line
    for number, raw in jsonl_values(read_text(path, display), display, builder.problems):
        add(raw, number)
    if not builder.cases and not builder.problems:
        raise GoldenSetError(f"golden set {display} is empty (expected one JSON case per line)")
    return builder.finish(display)


def load_json(path: Path, display: str) -> GoldenSet:
    """A JSON list of cases, or ``{"cases": [...]}``."""
    text = read_text(path, display)
    if not text.strip():
        raise GoldenSetError(f"golden set {display} is empty (expected a JSON list of cases)")
    data = _parse_json(text, display)
    if _SURROGATE_ESCAPE.search(text) is not None and not utf8_writable(data):
        raise GoldenSetError(_surrogate_problem(display))
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
    builder = CaseBuilder(display)
    for position, raw in enumerate(data, 1):
        label = f"case #{position}"
        try:
            case_id = as_id(raw.get("id")) if isinstance(raw, Mapping) else None
        except IdError:  # reported with the case's fields
            case_id = None
        if case_id is not None:
            label += f" (id {case_id!r})"
        builder.add(raw, f"{display}: {label}", f"case #{position}")
    return builder.finish(display)
