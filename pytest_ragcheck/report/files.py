"""Writing reports: ``--ragcheck-report`` files and the GitHub Actions job summary.

Writing a report never changes a test outcome or pytest's exit status: a failure becomes a
message that the terminal summary prints in red at the end of the run. An unknown extension,
on the other hand, is a usage error before any test runs (see
:func:`pytest_ragcheck.plugin.options.parse_report_paths`, re-exported here).
"""

from __future__ import annotations

import errno
import gzip
import io
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from pytest_ragcheck.report.packing import ESCAPE
from pytest_ragcheck.report.paths import (
    FORMATS,
    JSON_FORMATS,
    ReportPathError,
    parse_report_paths,
    report_format,
)

__all__ = [
    "FORMATS",
    "JSON_FORMATS",
    "ReportPathError",
    "append_github_summary",
    "parse_report_paths",
    "render",
    "report_format",
    "write_file",
    "write_report",
]

#: Bytes kept free in the job summary (GitHub counts the whole file against its limit).
_SAFETY = 4096
#: gzip's level for ``.json.gz``: the JSON report of 200,000 cases (293 MB) becomes 14 MB in
#: 0.9 s of CPU; the default level (6) takes twice that for 11.5 MB.
_GZIP_LEVEL = 1


_DUMP = {"ensure_ascii": False, "allow_nan": False, "separators": (",", ":")}
#: Where each test's cases go in the JSON text (a string no JSON value can spell this way:
#: the quotes around ``cases`` would be escaped inside a string).
_CASES_AT = re.compile(r'"cases":"\\u0000ragcheck-cases-(\d+)\\u0000"')


def _json_pieces(document: Mapping[str, Any]) -> Iterator[str]:
    """The JSON report in pieces: a capped test's cases are unpacked as they are written, so
    the whole text of a large run is never in memory at once."""
    from pytest_ragcheck.report.cases import unpacked_text
    from pytest_ragcheck.report.document import CAPPED_KEYS, PACKED

    tests = list(document.get("tests") or [])
    marked = [
        {
            **{k: v for k, v in test.items() if k not in CAPPED_KEYS},
            "cases": f"\x00ragcheck-cases-{index}\x00",
        }
        for index, test in enumerate(tests)
    ]
    text = json.dumps({**document, "tests": marked}, **_DUMP)  # type: ignore[arg-type]
    for n, part in enumerate(_CASES_AT.split(text)):
        if n % 2 == 0:
            yield part
            continue
        test = tests[int(part)]
        packed = test.get(PACKED)
        yield '"cases":'
        if packed:
            yield from unpacked_text(packed)
        else:
            yield json.dumps(test.get("cases") or [], **_DUMP)  # type: ignore[arg-type]
    yield "\n"


def _pieces(path: Path, document: Mapping[str, Any]) -> Iterable[str]:
    suffix = report_format(path)
    if suffix in JSON_FORMATS:
        # Compact: reports of large golden sets run to megabytes (``python -m json.tool``
        # pretty-prints one).
        return _json_pieces(document)
    if suffix == ".md":
        from pytest_ragcheck.report.markdown import render_markdown

        return (render_markdown(document),)
    from pytest_ragcheck.report.html import render_html

    return (render_html(document),)


def render(path: Path, document: Mapping[str, Any]) -> str:
    """The file content for ``path``'s format (for ``.json.gz``, the text before gzip)."""
    return "".join(_pieces(path, document))


def write_report(path: Path, document: Mapping[str, Any]) -> int:
    """Render and write one report file (atomically, as it is rendered); returns its bytes
    (on disk: compressed for ``.json.gz``)."""
    pieces = _pieces(path, document)
    if report_format(path) == ".json.gz":
        return write_file(path, pieces, compress=True)
    return write_file(path, pieces)


def write_file(path: Path, text: str | Iterable[str], *, compress: bool = False) -> int:
    """Write ``text`` (or its pieces) atomically: a reader never sees half a report; creates
    the folder. ``compress``: as gzip. Returns the bytes written."""
    folder = next(p for p in (path.parent, *path.parent.parents) if p.exists())
    if not folder.is_dir():  # mkdir would only say "File exists"
        raise NotADirectoryError(errno.ENOTDIR, f"{folder} is a file, not a folder")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.tmp")
    try:
        # open() rather than mkstemp: the file gets the usual permissions (umask), not 0600.
        if compress:
            size = _write_gzip(tmp, text)
        else:
            with open(tmp, "x", encoding="utf-8", errors=ESCAPE, newline="\n") as handle:
                for piece in (text,) if isinstance(text, str) else text:
                    handle.write(piece)
                size = handle.tell()
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return size


def _write_gzip(tmp: Path, text: str | Iterable[str]) -> int:
    """Write ``text`` to the new file ``tmp`` gzip-compressed (no name or time in the header:
    the same report, the same bytes); returns the compressed size."""
    with (
        open(tmp, "xb") as raw,
        gzip.GzipFile(
            filename="", mode="wb", fileobj=raw, compresslevel=_GZIP_LEVEL, mtime=0
        ) as zipped,
        io.TextIOWrapper(zipped, encoding="utf-8", errors=ESCAPE, newline="\n") as handle,
    ):
        for piece in (text,) if isinstance(text, str) else text:
            handle.write(piece)
    return tmp.stat().st_size


def append_github_summary(
    path: Path,
    document: Mapping[str, Any],
    *,
    limit: int | None = None,
    renderer: Callable[..., str] | None = None,
) -> int:
    """Append the ragcheck section to the job summary file; returns the bytes written.

    Never overwrites: whatever earlier steps or plugins wrote stays, and the section is cut
    so that the whole file stays under GitHub's limit.
    """
    from pytest_ragcheck.report.markdown import GITHUB_SUMMARY_LIMIT, render_github_summary

    render_fn = renderer or render_github_summary
    cap = GITHUB_SUMMARY_LIMIT if limit is None else limit
    with open(path, "a+b") as handle:
        handle.seek(0, os.SEEK_END)
        existing = handle.tell()
        lead = b"\n" if existing else b""
        budget = cap - existing - len(lead) - (_SAFETY if limit is None else 0)
        text = render_fn(document, budget=budget) if budget > 0 else ""
        if not text:
            raise OSError(
                f"the job summary already holds {existing} bytes, no room left under "
                f"GitHub's {cap // 1024} KiB limit"
            )
        data = lead + text.encode("utf-8", ESCAPE)
        handle.write(data)
    return len(data)
