"""Reports: terminal summary, progress, JSON/Markdown/HTML files, GitHub job summary.

The plugin calls the four functions below; everything else loads on first use so that a
session without ragcheck tests pays nothing for reports. All outputs render one document
(:mod:`pytest_ragcheck.report.document`), built once on the controller from the records of
every test (pytest-xdist workers included).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation import Progress

__all__ = [
    "check_report_option",
    "make_progress",
    "report_header",
    "report_paths",
    "terminal_summary",
    "write_reports",
]

#: ``(level, text)`` lines printed at the end of the run ("info" or "error").
MESSAGES = pytest.StashKey[list[tuple[str, str]]]()
_DOCUMENT = pytest.StashKey[dict[str, Any]]()


def _option(config: pytest.Config, name: str) -> Any:
    from pytest_ragcheck.plugin import option

    return option(config, name)


def report_paths(config: pytest.Config) -> list[Path]:
    """The ``--ragcheck-report`` paths: the command line's relative to the current folder,
    the ini file's relative to the rootdir."""
    cli = config.getoption("ragcheck_report", default=None)
    raw = cli if cli else config.getini("ragcheck_report")
    if not raw:
        return []
    from pytest_ragcheck.report.files import parse_report_paths

    base = Path(config.invocation_params.dir if cli else config.rootpath)
    return parse_report_paths(str(raw), base=base)


def check_report_option(config: pytest.Config) -> None:
    """Fail fast, before collection, on a report path with an unknown extension."""
    from pytest_ragcheck.report.files import ReportPathError

    try:
        report_paths(config)
    except ReportPathError as exc:
        raise pytest.UsageError(str(exc)) from None


def report_header(config: pytest.Config) -> list[str]:
    """The ``pytest_report_header`` line: the effective ragcheck configuration."""
    from pytest_ragcheck.report.header import header_line

    return [header_line(config)]


def make_progress(config: pytest.Config, nodeid: str) -> Progress | None:
    """A live one-line progress callback on a terminal; ``None`` elsewhere (CI logs, workers)."""
    from pytest_ragcheck.report.progress import make_live_progress

    return make_live_progress(config, nodeid)


def _document(config: pytest.Config, records: list[dict[str, Any]]) -> dict[str, Any]:
    document = config.stash.get(_DOCUMENT, None)
    if document is None or len(document["tests"]) != len(records):
        from pytest_ragcheck.report.document import build_document, run_info

        run = run_info(rootdir=str(config.rootpath), pytest_version=pytest.__version__)
        document = build_document(records, run=run)
        config.stash[_DOCUMENT] = document
    return document


def _no_summary(config: pytest.Config) -> bool:
    return bool(
        config.getoption("ragcheck_no_summary", default=None)
        or config.getini("ragcheck_no_summary")
    )


def terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config, records: list[dict[str, Any]]
) -> None:
    """The ``ragcheck summary`` section, then where reports went (or why they did not)."""
    if records and not _no_summary(config):
        from pytest_ragcheck.report.terminal import render_summary

        document = _document(config, records)
        lines = render_summary(
            document,
            verbosity=terminalreporter.verbosity,
            markup=bool(terminalreporter.hasmarkup),
        )
        terminalreporter.write_sep("=", "ragcheck summary")
        for line in lines:
            for text, markup in line:
                terminalreporter.write(text, **markup)
            terminalreporter.line("")
    messages = config.stash.get(MESSAGES, [])
    if messages and _no_summary(config):
        terminalreporter.ensure_newline()
    for level, text in messages:
        terminalreporter.write_line(text, red=level == "error", bold=level == "error")
    config.stash[MESSAGES] = []


def _say(config: pytest.Config, level: str, text: str) -> None:
    config.stash.setdefault(MESSAGES, []).append((level, text))


def write_reports(config: pytest.Config, records: list[dict[str, Any]]) -> None:
    """Write the ``--ragcheck-report`` files and append to ``$GITHUB_STEP_SUMMARY``.

    Problems (an unwritable path, an unopenable summary file) become red lines at the end of
    the terminal output; test outcomes and the exit status stay as they are.
    """
    from pytest_ragcheck.report.files import ReportPathError, render, write_file

    try:
        paths = report_paths(config)
    except ReportPathError as exc:  # configure already refused it; only a plugin could get here
        _say(config, "error", f"ragcheck: {exc}")
        paths = []
    document = _document(config, records) if paths or records else None
    for path in paths:
        assert document is not None
        try:
            write_file(path, render(path, document))
        except OSError as exc:
            reason = exc.strerror or str(exc)
            _say(config, "error", f"ragcheck: could not write the report {path}: {reason}")
        except Exception as exc:  # a report bug must not cost the user the run
            _say(config, "error", f"ragcheck: could not render the report {path}: {exc!r}")
        else:
            _say(config, "info", f"ragcheck report: {path}")

    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary and records and document is not None:
        from pytest_ragcheck.report.files import append_github_summary

        try:
            append_github_summary(Path(summary), document)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            _say(
                config,
                "error",
                f"ragcheck: could not append to the GitHub job summary "
                f"(GITHUB_STEP_SUMMARY={summary}): {reason}",
            )
        except Exception as exc:
            _say(config, "error", f"ragcheck: could not render the GitHub job summary: {exc!r}")

    if config.pluginmanager.get_plugin("terminalreporter") is None:
        for _, text in config.stash.get(MESSAGES, []):
            print(text, file=sys.stderr)
        config.stash[MESSAGES] = []
