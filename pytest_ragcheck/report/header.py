"""The ``pytest_report_header`` line: the effective ragcheck configuration.

Printed for every session of a project that has the plugin installed, so it works from the
options read at start-up and imports nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_ragcheck.plugin.options import RagcheckOptions

__all__ = ["header_line"]


def _shown_path(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def header_line(options: RagcheckOptions, *, rootdir: Path) -> str:
    """``ragcheck: judge=..., judge cache=..., tolerance=..., concurrency=..., report=...``."""
    defaults = options.defaults
    judge = defaults.judge
    model = judge.model or "not set"
    if judge.api_base:
        from pytest_ragcheck.report.record import safe_url

        model += f" at {safe_url(judge.api_base)}"
    cache = "off" if judge.cache_dir is None else _shown_path(judge.cache_dir, rootdir)
    if judge.offline:
        cache += " (offline)"
    parts = [
        f"judge={model}",
        f"judge cache={cache}",
        f"tolerance={defaults.tolerance:g}",
        f"concurrency={defaults.concurrency}",
    ]
    if options.report_paths:
        parts.append("report=" + ", ".join(_shown_path(p, rootdir) for p in options.report_paths))
    return "ragcheck: " + ", ".join(parts)
