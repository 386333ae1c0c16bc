"""Verdict cache upkeep: what the run used, and ``--ragcheck-judge-prune`` of the rest.

A committed cache only grows: after a retriever change the verdicts of chunks it no longer
returns stay forever. At the end of a run the summary says how many entries the run read,
how many it wrote and how many it did not use; ``--ragcheck-judge-prune`` deletes the unused
ones, but only after a complete run: every test selected and passing, nothing interrupted,
no worker lost. Otherwise an entry a deselected or failed test needs could go, and a verdict
costs money to record again. ``--ragcheck-judge-prune-dry-run`` lists them and deletes
nothing. Under pytest-xdist each worker hands its journal (:mod:`.judge.journal`) to the
controller, which decides and deletes alone.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import sys
from collections.abc import Generator, Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from pytest_ragcheck.plugin.items import is_worker
from pytest_ragcheck.plugin.options import RagcheckOptions

if TYPE_CHECKING:
    from pytest_ragcheck.plugin.guard import BaselineGuard

__all__ = ["CacheUpkeep", "cache_entries", "delete_entries", "incomplete_run"]

#: ``<prompt id>/<2 hex>/<sha256>.json``: anything else in the folder is not an entry.
_ENTRY = re.compile(r"[^/]+/[0-9a-f]{2}/[0-9a-f]{64}\.json")
_WORKER_KEY = "ragcheck_judge_journal"
#: The marker's and the fixture's name: a skipped test with either may need cache entries.
_FIXTURE = "ragcheck"
#: Entries a dry run lists by name (the count is always given).
_LISTED = 200


def cache_entries(root: Path) -> list[str]:
    """Every entry under ``root``, as ``prompt/ab/<key>.json`` names, sorted."""
    if not root.is_dir():
        return []
    names = []
    for path in root.glob("*/*/*.json"):
        name = path.relative_to(root).as_posix()
        if _ENTRY.fullmatch(name):
            names.append(name)
    return sorted(names)


def delete_entries(root: Path, names: Iterable[str]) -> int:
    """Delete the entries and the folders they leave empty; returns how many were deleted."""
    deleted = 0
    folders: set[Path] = set()
    for name in names:
        path = root / name
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        deleted += 1
        folders.update((path.parent, path.parent.parent))
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):
            folder.rmdir()  # only when empty
    return deleted


def incomplete_run(
    config: pytest.Config,
    *,
    exitstatus: int,
    deselected: int,
    skipped: Sequence[str],
    lost_workers: int,
    left_out: Sequence[str] = (),
    selected: int = 0,
    finished: int = 0,
) -> list[str]:
    """Why this run does not show which entries the suite needs (empty: it does).

    ``left_out``: modules skipped or broken at collection; ``selected`` and ``finished``: the
    tests to run and those that ran to their teardown (``pytest.exit(returncode=0)`` in a test
    stops the session with a passing exit status).
    """
    option = config.option
    reasons = []
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        reasons.append("the run was interrupted")
    elif exitstatus != pytest.ExitCode.OK:
        reasons.append(f"the run did not pass (exit status {int(exitstatus)})")
    if getattr(option, "keyword", "") or getattr(option, "markexpr", ""):
        reasons.append("tests were selected with -k or -m")
    if getattr(option, "lf", False) or getattr(option, "stepwise", False):
        reasons.append("--lf / --sw ran only some tests")
    if getattr(option, "deselect", None) or deselected:
        reasons.append(f"{deselected or 'some'} test(s) were deselected")
    ignored = _ignore_options(config)
    if ignored:
        reasons.append(f"tests were left out with {', '.join(ignored[:3])}")
    if left_out:
        reasons.append(
            f"{len(left_out)} module(s) were skipped or failed at collection ({left_out[0]}…)"
        )
    if finished < selected:
        reasons.append(f"only {finished} of the {selected} selected tests ran to the end")
    if skipped:
        reasons.append(f"{len(skipped)} ragcheck test(s) were skipped ({skipped[0]}…)")
    if lost_workers:
        reasons.append(f"{lost_workers} pytest-xdist worker(s) were lost")
    named = _named_paths(config)
    if named:
        reasons.append(f"only some tests were named ({', '.join(named[:3])})")
    return reasons


def _ignore_options(config: pytest.Config) -> list[str]:
    """``--ignore``/``--ignore-glob`` given for this run (on the command line or in
    ``PYTEST_ADDOPTS``); the ini file's ``addopts`` are the suite's own and leave nothing out."""
    args = [*config.invocation_params.args, *shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))]
    found = []
    for n, arg in enumerate(args):
        name, _, value = str(arg).partition("=")
        if name in ("--ignore", "--ignore-glob"):
            if not value and n + 1 < len(args):
                value = str(args[n + 1])
            found.append(f"{name}={value}")
    return found


def _named_paths(config: pytest.Config) -> list[str]:
    """Command-line test paths narrower than the whole suite (rootdir or ini testpaths)."""
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        return []
    whole = {config.rootpath.resolve()}
    for entry in config.getini("testpaths") or []:
        whole.add((config.rootpath / str(entry)).resolve())
    named = []
    for arg in config.args:
        path = Path(str(arg).split("::", 1)[0])
        path = path if path.is_absolute() else config.invocation_params.dir / path
        if "::" in str(arg) or path.resolve() not in whole:
            named.append(str(arg))
    return named


def _loaded_journal() -> ModuleType | None:
    """The journal, when this process loaded it (a session that judged nothing never does)."""
    return sys.modules.get("pytest_ragcheck.judge.journal")


class CacheUpkeep:
    """The session's journal of cache use, the summary line and the prune (controller)."""

    def __init__(self, config: pytest.Config, options: RagcheckOptions) -> None:
        self.config = config
        self.options = options
        self.deselected = 0
        self.skipped: list[str] = []
        self.lost_workers = 0
        self.lines: list[tuple[bool, str]] = []

    def pytest_sessionstart(self) -> None:
        journal = _loaded_journal()
        if journal is not None:  # an earlier session of this process judged: start afresh
            journal.clear()

    def pytest_deselected(self, items: Sequence[pytest.Item]) -> None:
        self.deselected += len(items)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if report.skipped and _FIXTURE in getattr(item, "fixturenames", ()):
            # A test with the fixture but no marker has no "ragcheck" keyword; the attribute
            # travels with the report to the pytest-xdist controller.
            report.ragcheck_fixture = True  # type: ignore[attr-defined]
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.skipped and (
            _FIXTURE in report.keywords or getattr(report, "ragcheck_fixture", False)
        ):
            self.skipped.append(report.nodeid)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """pytest-xdist: a worker finished; take its journal (a lost worker spoils the run)."""
        from pytest_ragcheck.judge import journal

        output = getattr(node, "workeroutput", None) or {}
        data = output.get(_WORKER_KEY)
        if error or data is None:
            self.lost_workers += 1
            return
        if data["entries"]:
            from pytest_ragcheck.judge import journal

            journal.merge(data["entries"])
        self.deselected += int(data["deselected"])

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        journal = _loaded_journal()
        entries = journal.snapshot() if journal is not None else {}
        if is_worker(self.config):
            data = {"entries": entries, "deselected": self.deselected}
            self.config.workeroutput[_WORKER_KEY] = data  # type: ignore[attr-defined]
            return
        root = self.options.defaults.judge.cache_dir
        mode = self.options.judge_prune
        if root is None:
            if mode is not None:
                self.lines.append(
                    (True, "ragcheck: --ragcheck-judge-prune: the verdict cache is off")
                )
            return
        used = entries.get(os.path.realpath(root), {})
        hits, new = set(used.get("hit", ())), set(used.get("new", ()))
        if not (hits or new) and mode is None:
            return  # no judge in this run: nothing to say
        entries = cache_entries(root)
        unused = [n for n in entries if n not in hits and n not in new]
        shown = _shown(root)
        if not self.options.no_summary or mode is not None:
            self.lines.append(
                (
                    False,
                    f"ragcheck judge cache {shown}: {len(hits)} verdict(s) from the cache, "
                    f"{len(new)} new, {len(unused)} entr{'y' if len(unused) == 1 else 'ies'} "
                    "not used by this run",
                )
            )
        if mode is not None:
            self._prune(
                root,
                unused,
                mode,
                exitstatus=exitstatus,
                used=bool(hits or new),
                selected=session.testscollected,
            )

    def _prune(
        self,
        root: Path,
        unused: list[str],
        mode: str,
        *,
        exitstatus: int,
        used: bool,
        selected: int,
    ) -> None:
        # What the baseline guard (on this controller too) saw of collection and teardowns;
        # nothing when it was blocked (``-p no:ragcheck-baseline-guard``).
        guard: BaselineGuard | None = self.config.pluginmanager.get_plugin(
            "ragcheck-baseline-guard"
        )
        reasons = incomplete_run(
            self.config,
            exitstatus=exitstatus,
            deselected=self.deselected,
            skipped=self.skipped,
            lost_workers=self.lost_workers,
            left_out=[*guard.collect_errors, *guard.collect_skips] if guard else [],
            selected=selected,
            finished=len(guard.finished) if guard else selected,
        )
        if not used:
            reasons.append("no ragcheck test read the cache (pruning would empty it)")
        flag = "--ragcheck-judge-prune" + ("-dry-run" if mode == "dry-run" else "")
        if reasons:
            self.lines.append(
                (
                    True,
                    f"ragcheck: {flag}: nothing deleted: {'; '.join(reasons)}. Entries not used "
                    "by a partial run may be needed by the tests it left out; prune after a "
                    "complete, passing run of the whole suite.",
                )
            )
            return
        if not unused:
            self.lines.append((False, f"ragcheck: {flag}: no unused entry; nothing to delete"))
            return
        if mode == "dry-run":
            self.lines.append(
                (False, f"ragcheck: {flag}: {_entries(len(unused))} would be deleted:")
            )
            self.lines += [(False, f"  {_shown(root / n)}") for n in unused[:_LISTED]]
            if len(unused) > _LISTED:
                self.lines.append((False, f"  … and {len(unused) - _LISTED} more"))
            return
        deleted = delete_entries(root, unused)
        self.lines.append(
            (False, f"ragcheck: {flag}: deleted {_entries(deleted)} from {_shown(root)}")
        )

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        for bad, text in self.lines:
            terminalreporter.write_line(text, red=bad, bold=bad)
        self.lines = []


def _entries(n: int) -> str:
    """``1 unused entry``, ``3 unused entries``."""
    return f"{n} unused {'entry' if n == 1 else 'entries'}"


def _shown(path: Path) -> str:
    """``path`` relative to the current folder when inside it (shorter lines)."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if relative.startswith("..") else relative
