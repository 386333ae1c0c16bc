"""Which files ``--ragcheck-report`` names: formats by extension, paths resolved once."""

from __future__ import annotations

import os
from pathlib import Path

from pytest_ragcheck.common.errors import ConfigError

__all__ = ["FORMATS", "ReportPathError", "parse_report_paths", "report_format"]

#: Report formats by file extension (``.json.gz``: the JSON report, gzip-compressed).
FORMATS: tuple[str, ...] = (".json", ".md", ".html", ".json.gz")
#: The formats written as JSON text.
JSON_FORMATS = frozenset({".json", ".json.gz"})


def report_format(path: Path) -> str:
    """The format ``path`` names: its extension, lower-case (``.json.gz`` as one)."""
    suffixes = path.suffixes[-2:]
    if [s.lower() for s in suffixes] == [".json", ".gz"]:
        return ".json.gz"
    return path.suffix.lower()


class ReportPathError(ConfigError, ValueError):
    """A ``--ragcheck-report`` value that names no known format."""


def parse_report_paths(raw: str, *, base: Path, option: str = "--ragcheck-report") -> list[Path]:
    """Comma-separated report paths, resolved against ``base``; checks the extensions.

    ``option`` names where the value came from in a message (``ini ragcheck_report``).
    """
    paths: list[Path] = []
    for part in str(raw).split(","):
        text = part.strip()
        if not text:
            continue
        path = Path(os.path.expanduser(text))
        if report_format(path) not in FORMATS:
            suffix = path.suffix.lower()
            shown = f"'{suffix}'" if suffix else "no extension"
            raise ReportPathError(
                f"{option}={text}: unknown report format ({shown}); "
                f"use a path ending in {', '.join(FORMATS[:2])} or {FORMATS[2]}, or "
                f"{FORMATS[3]} for the JSON report compressed "
                "(several paths may be separated by commas)"
            )
        paths.append(path if path.is_absolute() else base / path)
    return paths
