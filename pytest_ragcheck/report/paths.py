"""Which files ``--ragcheck-report`` names: formats by extension, paths resolved once."""

from __future__ import annotations

import os
from pathlib import Path

from pytest_ragcheck.common.errors import ConfigError

__all__ = ["FORMATS", "ReportPathError", "parse_report_paths"]

#: Report formats by file extension.
FORMATS: tuple[str, ...] = (".json", ".md", ".html")


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
        suffix = path.suffix.lower()
        if suffix not in FORMATS:
            shown = f"'{suffix}'" if suffix else "no extension"
            raise ReportPathError(
                f"{option}={text}: unknown report format ({shown}); "
                f"use a path ending in {', '.join(FORMATS[:-1])} or {FORMATS[-1]} "
                "(several paths may be separated by commas)"
            )
        paths.append(path if path.is_absolute() else base / path)
    return paths
