"""No baseline is lost to an incomplete ``--snapshot-update`` session.

syrupy deletes, at the end of a ``--snapshot-update`` session, every snapshot no test used. That
is right when the whole suite ran, and destroys baselines when it did not: ``-x`` or
``--maxfail`` after an unrelated failure, Ctrl-C, a test module that fails to import, a
module skipped at collection (``pytest.importorskip``), ``--collect-only`` or a test that
crashed its pytest-xdist worker all leave tests that never ran (or never got to keep their
baseline), and their baselines used to be deleted.

:class:`BaselineGuard` wraps syrupy's ``pytest_sessionfinish``. When the session did not
complete and pytest-ragcheck baseline files lie under its test paths, the guard turns on
syrupy's own ``--snapshot-no-cleanup`` first: syrupy deletes nothing and its summary lists the
snapshots it did not use as unused, not deleted. It also reads every such baseline file, and
writes back, byte for byte, any that was deleted all the same (a syrupy without that option).
A complete session keeps syrupy's behaviour (baselines of removed tests are deleted), and
removes the old copies of baselines moved out of ``__snapshots__/`` (``baseline_moves``). The
guard runs where syrupy deletes: in a plain run, or on the pytest-xdist controller.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_ragcheck.baseline.moves import retire_legacy
from pytest_ragcheck.baseline.options import BASELINE_DIRNAME
from pytest_ragcheck.common.input_files import open_regular, read_regular_bytes

__all__ = ["BaselineGuard", "is_baseline_file"]

#: Written into every baseline file (``baseline_doc.FORMAT``); read as bytes, no JSON parse.
#: Any spacing: a file reformatted by a tool (``jq -c``) is still read as a baseline.
_MARKER = re.compile(rb'"format"\s*:\s*"pytest-ragcheck baseline"')
#: Bytes read at each end of a candidate file.
_PEEK = 4096
#: Options that collect tests without running them (option attribute, as written): syrupy
#: would count every baseline as unused.
_NO_TEST_RUNS = (
    ("collectonly", "--collect-only"),
    ("setupplan", "--setup-plan"),
    ("setuponly", "--setup-only"),
)
#: The phase pytest-xdist gives the report of a test whose worker crashed.
_CRASHED_PHASE = "???"
#: Folders never searched for snapshots.
_SKIP_DIRS = frozenset({"node_modules", "__pycache__", "site-packages", "venv", ".venv"})


def is_baseline_file(path: Path) -> bool:
    """A pytest-ragcheck baseline: a regular ``.json`` file holding our marker.

    Keys are sorted, so ``"format"`` follows the ``"cases"`` block: in a large file it is near
    the end, and the end is read as well as the start.
    """
    if path.suffix != ".json":
        return False
    try:
        with open_regular(path) as handle:  # a FIFO would never answer
            head = handle.read(_PEEK)
            handle.seek(max(0, handle.seek(0, os.SEEK_END) - _PEEK))
            tail = handle.read(_PEEK)
    except OSError:
        return False
    return _MARKER.search(head) is not None or _MARKER.search(tail) is not None


class BaselineGuard:
    """Session plugin: keeps baseline files when an updating session did not complete.

    What it sees of collection and teardowns also tells the judge cache's prune
    (:mod:`pytest_ragcheck.plugin.prune`) whether the run was whole."""

    def __init__(
        self,
        config: pytest.Config,
        *,
        finish: Callable[[pytest.Session, int | pytest.ExitCode], None] | None = None,
    ) -> None:
        self.config = config
        #: The plugin's own end-of-session work (reports), run here when syrupy's clean-up
        #: raised before it could run.
        self.finish = finish
        self.collect_errors: list[str] = []
        self.collect_skips: list[str] = []
        #: Tests whose pytest-xdist worker died under them (no report of their own).
        self.crashed: list[str] = []
        #: Tests that ran to their teardown (``pytest.exit`` in a test stops the session
        #: with whatever status it is given, 0 included, and the rest never run).
        self.finished: set[str] = set()
        #: What the guard did, for the terminal summary.
        self.messages: list[str] = []

    # --- what happened during the session ---------------------------------------------------

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collect_errors.append(report.nodeid or ".")
        elif report.skipped:
            self.collect_skips.append(report.nodeid or ".")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # pytest-xdist reports a test whose worker crashed (a segfault in a native library)
        # with this phase: the test never reached the point of keeping its baseline.
        if report.failed and report.when == _CRASHED_PHASE:
            self.crashed.append(report.nodeid)
        elif report.when == "teardown":
            self.finished.add(report.nodeid)

    def _updating(self) -> bool:
        option = self.config.option
        return bool(getattr(option, "update_snapshots", False))

    def incomplete_reason(self, session: pytest.Session, exitstatus: int | pytest.ExitCode) -> str:
        """Why the session cannot tell which baselines are unused ('' when it completed)."""
        for flag, name in _NO_TEST_RUNS:
            if getattr(self.config.option, flag, False):
                return f"{name} runs no test"
        if exitstatus == pytest.ExitCode.INTERRUPTED and not self.collect_errors:
            return "the session was interrupted"
        if exitstatus in (pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR):
            return "the session ended with an internal or usage error"
        if self.collect_errors:
            return f"{len(self.collect_errors)} collection error(s) ({_first(self.collect_errors)})"
        if self.collect_skips:
            return (
                f"{len(self.collect_skips)} module(s) skipped at collection "
                f"({_first(self.collect_skips)})"
            )
        if self.crashed:
            return (
                f"{len(self.crashed)} test(s) crashed their pytest-xdist worker "
                f"({_first(self.crashed)})"
            )
        if session.shouldfail or session.shouldstop:
            reason = session.shouldfail or session.shouldstop
            return f"the session stopped early ({reason})"
        if len(self.finished) < session.testscollected:
            return f"only {len(self.finished)} of the {session.testscollected} tests ran to the end"
        return ""

    # --- around syrupy's clean-up --------------------------------------------------------------

    # trylast: the innermost wrapper, so it still wraps syrupy's clean-up (a plain hook) but
    # finishes before the terminal reporter's wrapper prints the summary.
    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_sessionfinish(
        self, session: pytest.Session, exitstatus: int | pytest.ExitCode
    ) -> Generator[None, None, None]:
        reason = self.incomplete_reason(session, exitstatus) if self._updating() else ""
        saved = dict(self._read_baselines(session)) if reason else {}
        if self._updating():
            # Old baselines copied to __ragcheck__/ (by this run or an earlier one) go before
            # syrupy's clean-up, which would list them as unknown snapshots it deleted.
            legacy = _snapshot_folders(_search_roots(session), {_legacy_dirname(self.config)})
            self.messages.extend(retire_legacy(legacy, self.config.rootpath, reason=reason))
        option = self.config.option
        cleanup_off = bool(saved) and not getattr(option, "no_cleanup", False)
        if cleanup_off:
            # syrupy's own --snapshot-no-cleanup: it deletes nothing and its summary says
            # "unused", not "deleted" (left set: the summary reads it after this hook).
            option.no_cleanup = True
        try:
            yield
        except OSError as exc:
            # syrupy could not delete a stale snapshot (a read-only folder): say so plainly
            # instead of a traceback, and let the run end with its own outcome. Its summary
            # (made later) would call every unused snapshot deleted: it says "unused" instead.
            option.no_cleanup = True
            self.messages.append(_removal_failed(self.config, exc))
            if self.finish is not None:
                self.finish(session, exitstatus)
        except KeyboardInterrupt:
            # syrupy before 7 writes the baselines here, at the session's end; pytest's
            # session finish does not handle Ctrl-C (a traceback, and no summary)
            self.messages.append(
                "interrupted while the session finished: a baseline file is replaced whole "
                "or not at all, so any not yet written keeps its earlier content; run "
                "--snapshot-update again to write them"
                if self._updating()
                else "interrupted while the session finished"
            )
            session.exitstatus = pytest.ExitCode.INTERRUPTED
            _drop_unfinished_syrupy(self.config)
        if not saved:
            return
        gone = [path for path in saved if not path.exists()]
        if not gone:
            if cleanup_off:
                self.messages.append(
                    f"--snapshot-update deleted no unused snapshot, because {reason}. "
                    "Snapshots of removed tests are deleted only by a complete session."
                )
            return
        for path in gone:  # a syrupy without --snapshot-no-cleanup deleted them
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(saved[path])
        shown = ", ".join(_display(p, self.config.rootpath) for p in gone[:5])
        more = f" and {len(gone) - 5} more" if len(gone) > 5 else ""
        self.messages.append(
            f"kept {len(gone)} baseline file(s) that --snapshot-update would have deleted, "
            f"because {reason}: {shown}{more}. Baselines of removed tests are deleted only "
            "by a complete session."
        )

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        for message in self.messages:
            terminalreporter.write_line(f"ragcheck: {message}", yellow=True)

    def _read_baselines(self, session: pytest.Session) -> Iterator[tuple[Path, bytes]]:
        names = {BASELINE_DIRNAME, _legacy_dirname(self.config)}
        for folder in _snapshot_folders(_search_roots(session), names):
            for path in sorted(folder.rglob("*.json")):
                if is_baseline_file(path):
                    try:
                        yield path, read_regular_bytes(path)
                    except OSError:
                        continue


def _legacy_dirname(config: pytest.Config) -> str:
    """syrupy's own snapshot folder: where earlier versions kept the baselines."""
    return str(getattr(config.option, "snapshot_dirname", None) or "__snapshots__")


def _removal_failed(config: pytest.Config, exc: OSError) -> str:
    """What syrupy's failed clean-up did and did not remove (it stops at the first error)."""
    where = Path(exc.filename).parent if isinstance(exc.filename, str) else None
    folder = f"make {_display(where, config.rootpath)}/ writable" if where else "fix that"
    done = ""
    try:  # syrupy's report of this session: the files its clean-up meant to remove
        unused = [Path(c.location) for c in config._syrupy.report.unused]  # type: ignore[attr-defined]
        removed = [p for p in unused if not p.exists()]
        shown = ", ".join(_display(p, config.rootpath) for p in removed[:5])
        done = (
            f" It removed {len(removed)} of the {len(unused)} unused file(s) first ({shown})."
            if removed
            else f" None of the {len(unused)} unused file(s) was removed."
        )
    except Exception:  # no report to read: say only what is certain
        pass
    return (
        f"syrupy could not remove an unused snapshot: {type(exc).__name__}: {exc}.{done} "
        f"To remove it, {folder} and re-run --snapshot-update, or delete the stale file "
        "yourself"
    )


def _drop_unfinished_syrupy(config: pytest.Config) -> None:
    """syrupy before 7 makes its report in the session finish Ctrl-C stopped: its terminal
    summary would fail reading it (a traceback after ours), so it is not asked for one."""
    plugin = config.pluginmanager.get_plugin("syrupy")
    state: Any = getattr(config, "_syrupy", None)  # syrupy's session
    if plugin is not None and hasattr(state, "report") and state.report is None:
        config.pluginmanager.unregister(plugin)


def _search_roots(session: pytest.Session) -> list[Path]:
    """The folders the session's tests come from: the command-line paths, else the rootdir."""
    config = session.config
    roots: list[Path] = []
    for arg in config.args or [str(config.rootpath)]:
        path = Path(config.invocation_params.dir, arg.split("::")[0]).resolve()
        if path.is_file():
            path = path.parent
        if path.is_dir() and path not in roots:
            roots.append(path)
    return roots or [Path(config.rootpath)]


def _snapshot_folders(roots: list[Path], names: set[str]) -> Iterator[Path]:
    seen: set[Path] = set()
    for root in roots:
        for current, dirs, _ in os.walk(root):
            if Path(current).name in names:
                folder = Path(current)
                if folder not in seen:
                    seen.add(folder)
                    yield folder
                dirs[:] = []
                continue
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS]


def _first(nodeids: list[str]) -> str:
    return nodeids[0] + (f" and {len(nodeids) - 1} more" if len(nodeids) > 1 else "")


def _display(path: Path, rootpath: Path) -> str:
    try:
        return path.relative_to(rootpath).as_posix()
    except ValueError:
        return str(path)
