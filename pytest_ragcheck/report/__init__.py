"""Reports: terminal summary, progress, JSON/Markdown/HTML files, GitHub job summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest

    from pytest_ragcheck.evaluation import Progress

__all__ = ["make_progress", "terminal_summary", "write_reports"]


def make_progress(config: pytest.Config, nodeid: str) -> Progress | None:
    return None


def terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config, records: list[dict[str, Any]]
) -> None:
    if config.getoption("ragcheck_no_summary", default=None) or config.getini(
        "ragcheck_no_summary"
    ):
        return
    terminalreporter.write_sep("=", "ragcheck summary")
    for record in records:
        terminalreporter.write_line(f"{record['nodeid']}")
        for name, value in record["result"]["metrics"].items():
            terminalreporter.write_line(f"  {name:<20} {value if value is not None else '-'}")


def write_reports(config: pytest.Config, records: list[dict[str, Any]]) -> None:
    return None
