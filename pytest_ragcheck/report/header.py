"""The ``pytest_report_header`` line: the effective ragcheck configuration.

Printed for every session of a project that has the plugin installed, so it imports only
what reading the options needs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

__all__ = ["header_line"]


def _shown_path(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def header_line(config: pytest.Config) -> str:
    """``ragcheck: judge=..., judge cache=..., tolerance=..., concurrency=..., report=...``."""
    from pytest_ragcheck.errors import RagcheckError
    from pytest_ragcheck.plugin import _defaults

    try:
        defaults = _defaults(config)
    except RagcheckError as exc:
        return f"ragcheck: invalid configuration: {exc}"
    judge = defaults.judge
    root = Path(config.rootpath)
    model = judge.model or "not set"
    if judge.api_base:
        from pytest_ragcheck.report.record import safe_url

        model += f" at {safe_url(judge.api_base)}"
    cache = "off" if judge.cache_dir is None else _shown_path(Path(judge.cache_dir), root)
    if judge.offline:
        cache += " (offline)"
    parts = [
        f"judge={model}",
        f"judge cache={cache}",
        f"tolerance={defaults.tolerance:g}",
        f"concurrency={defaults.concurrency}",
    ]
    try:
        from pytest_ragcheck.report import report_paths

        paths = report_paths(config)
    except ValueError:
        paths = []
    if paths:
        parts.append("report=" + ", ".join(_shown_path(p, root) for p in paths))
    return "ragcheck: " + ", ".join(parts)
