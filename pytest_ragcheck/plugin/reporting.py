"""Reports: terminal summary, progress, JSON/Markdown/HTML files, GitHub job summary.

The plugin calls the four functions below; everything else loads on first use so that a
session without ragcheck tests pays nothing for reports. All outputs render one document
(:mod:`pytest_ragcheck.report.document`), built once on the controller from the records of
every test (pytest-xdist workers included).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_ragcheck.common.display import printable, shorten
from pytest_ragcheck.plugin.items import INPUTS

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.pipeline import Progress
    from pytest_ragcheck.plugin.options import RagcheckOptions

__all__ = [
    "make_progress",
    "report_header",
    "terminal_summary",
    "write_reports",
]

#: ``(level, text)`` lines printed at the end of the run ("info", "warning" or "error").
MESSAGES = pytest.StashKey[list[tuple[str, str]]]()
#: ``ragcheck.compare(...)`` tables of the session (``Comparison.to_dict()`` plus ``nodeid``).
COMPARISONS = pytest.StashKey[list[dict[str, Any]]]()
_DOCUMENT = pytest.StashKey[dict[str, Any]]()
#: Why the session did not run every selected test ('' or absent when it did).
INCOMPLETE = pytest.StashKey[str]()


def report_header(options: RagcheckOptions, *, rootdir: Path) -> list[str]:
    """The ``pytest_report_header`` line: the effective ragcheck configuration."""
    from pytest_ragcheck.report.header import header_line

    return [header_line(options, rootdir=rootdir)]


def make_progress(config: pytest.Config, nodeid: str) -> Progress | None:
    """A live one-line progress callback on a terminal; ``None`` elsewhere (CI logs, workers)."""
    from pytest_ragcheck.plugin.progress import make_live_progress

    return make_live_progress(config, nodeid)


def _document(config: pytest.Config, records: list[dict[str, Any]]) -> dict[str, Any]:
    document = config.stash.get(_DOCUMENT, None)
    if document is None or len(document["tests"]) != len(records):
        from pytest_ragcheck.common.redact import redact_data
        from pytest_ragcheck.report.document import build_document, run_info

        run = run_info(
            rootdir=str(config.rootpath),
            pytest_version=pytest.__version__,
            incomplete=config.stash.get(INCOMPLETE, ""),
        )
        document = redact_data(build_document(records, run=run))  # every output renders this
        comparisons = config.stash.get(COMPARISONS, [])
        if comparisons:
            document["comparisons"] = sorted(comparisons, key=lambda c: str(c["nodeid"]))
        config.stash[_DOCUMENT] = document
    return document


def terminal_summary(
    terminalreporter: pytest.TerminalReporter,
    config: pytest.Config,
    records: list[dict[str, Any]],
    *,
    options: RagcheckOptions,
) -> None:
    """The ``ragcheck summary`` section, then where reports went (or why they did not)."""
    if (records or config.stash.get(COMPARISONS, [])) and not options.no_summary:
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
                terminalreporter.write(printable(text), **markup)
            terminalreporter.line("")
    messages = [*_shrink_warnings(records), *config.stash.get(MESSAGES, [])]
    if messages and options.no_summary:
        terminalreporter.ensure_newline()
    for level, text in messages:
        bad = level == "error"
        terminalreporter.write_line(printable(text), red=bad, bold=bad, yellow=level == "warning")
    config.stash[MESSAGES] = []


def _shrink_warnings(records: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """A yellow line per test whose golden set lost more than half of its baseline's cases
    (printed whatever the verbosity or ``--ragcheck-no-summary``: the test passed on little)."""
    from pytest_ragcheck.gate.against_baseline import golden_shrink_warning

    found = []
    for record in records:
        baseline = record.get("baseline") or {}
        diff, updated = baseline.get("case_diff"), baseline.get("status") == "updated"
        warning = golden_shrink_warning(diff, record["nodeid"], updated=updated) if diff else ""
        if warning:
            found.append(("warning", f"ragcheck warning: {warning}"))
    return found


def _say(config: pytest.Config, level: str, text: str) -> None:
    from pytest_ragcheck.common.redact import redact

    config.stash.setdefault(MESSAGES, []).append((level, redact(text)))


def _record_history(config: pytest.Config, path: Path, document: dict[str, Any]) -> None:
    """Append this run's lines to the history file; the trend goes into ``document``."""
    from pytest_ragcheck.explore.history import (
        HistoryError,
        append_lines,
        git_info,
        history_lines,
        read_history,
        trend,
    )

    warnings: list[str] = []
    try:
        entries = read_history(path, warnings)  # a damaged file is reported, not appended to
        for warning in warnings:
            _say(config, "warning", f"ragcheck: {warning}")
        lines = history_lines(document, git=git_info(config.rootpath))
        append_lines(path, lines)
    except HistoryError as exc:
        _say(config, "error", f"ragcheck: {exc}")
        return
    except OSError as exc:
        _say(config, "error", f"ragcheck: could not append to the history file {path}: {exc}")
        return
    document["history"] = trend([*entries, *lines], document, file=str(path))
    _say(config, "info", f"ragcheck history: {len(lines)} line(s) appended to {path}")


def write_reports(
    config: pytest.Config, records: list[dict[str, Any]], *, options: RagcheckOptions
) -> None:
    """Write the ``--ragcheck-report`` files and append to ``$GITHUB_STEP_SUMMARY``.

    Problems (an unwritable path, an unopenable summary file) become red lines at the end of
    the terminal output; test outcomes and the exit status stay as they are. Ctrl-C while
    they are written stops the writing (a report being written keeps its earlier file) and
    ends the run as interrupted, with the summary rather than a traceback from pytest's
    session finish, which does not handle it.
    """
    try:
        _write_outputs(config, records, options=options)
    except KeyboardInterrupt:
        _say(
            config,
            "error",
            "ragcheck: interrupted while writing the reports: those not listed above as "
            "written were not (an earlier file at their path is unchanged); run again to "
            "write them",
        )
        session = config.pluginmanager.get_plugin("session")
        if session is not None:
            session.exitstatus = pytest.ExitCode.INTERRUPTED
    if config.pluginmanager.get_plugin("terminalreporter") is None:
        for _, text in config.stash.get(MESSAGES, []):
            print(printable(text), file=sys.stderr)
        config.stash[MESSAGES] = []


def _write_outputs(
    config: pytest.Config, records: list[dict[str, Any]], *, options: RagcheckOptions
) -> None:
    from pytest_ragcheck.plugin.outputs import refuse_outputs
    from pytest_ragcheck.report.files import write_report

    read = [Path(p) for record in records for p in record.get("inputs") or ()]
    options, refused = refuse_outputs(options, config.stash[INPUTS].adding(golden=read))
    for message in refused:  # a golden file given only at the call, known now
        _say(config, "error", f"ragcheck: {message}")
        session = config.pluginmanager.get_plugin("session")
        if session is not None and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR  # as the same check before the run
    if options.propose_labels is not None:
        from pytest_ragcheck.judge.proposals import write_proposals

        config.stash.setdefault(MESSAGES, []).append(
            write_proposals(options.propose_labels, records)
        )
    paths = options.report_paths
    compared = bool(config.stash.get(COMPARISONS, []))
    document = _document(config, records) if paths or records or compared else None
    if options.history is not None and records and document is not None:
        _record_history(config, options.history, document)
    for path in paths:
        assert document is not None
        start = time.perf_counter()
        try:
            size = write_report(path, document)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            _say(config, "error", f"ragcheck: could not write the report {path}: {reason}")
        except Exception as exc:  # a report bug must not cost the user the run
            reason = shorten(f"{type(exc).__name__}: {exc}", 300)  # never the whole text
            _say(config, "error", f"ragcheck: could not render the report {path}: {reason}")
        else:
            took = time.perf_counter() - start
            _say(config, "info", f"ragcheck report: {path} ({size / 1e6:.1f} MB, {took:.1f} s)")

    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary and (records or compared) and document is not None:
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
            reason = shorten(f"{type(exc).__name__}: {exc}", 300)
            _say(config, "error", f"ragcheck: could not render the GitHub job summary: {reason}")
