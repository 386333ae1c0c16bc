"""The pytest face: hooks, options and the ``ragcheck`` fixture (the ``pytest11`` entry point).

The only folder that imports pytest or syrupy. Thin on purpose: importing it registers the
options (:mod:`.specs`, plain data) and the hooks, and loads nothing else of ours but the stash
keys (:mod:`.items`); a session checks its options (:mod:`.options`) when it starts, and every
stage (golden sets, the run, metrics, the gate, baselines, reports) loads when a ragcheck marker
or the fixture is first seen. Modules: ``fixture`` (the fixture's object), ``snapshots`` and
``snapshot_files`` (the syrupy extension and its life-cycle), ``owners`` and ``guard`` (no
baseline overwritten or lost), ``prune`` (verdict cache upkeep), ``progress`` and
``reporting`` (the session's live progress and reports).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import pytest

from pytest_ragcheck.plugin.items import (
    INPUTS,
    ITEM_COMPARISONS,
    ITEM_RECORDS,
    MARKER,
    OPTIONS,
    SESSION_RECORDS,
    USED,
    is_worker,
    marker_kwargs,
    ragcheck_options,
)
from pytest_ragcheck.plugin.specs import OPTION_SPECS

if TYPE_CHECKING:
    from collections.abc import Generator

    from pytest_ragcheck.plugin.fixture import RagcheckFixture
    from pytest_ragcheck.plugin.options import RagcheckOptions


class RagcheckWarning(pytest.PytestWarning):
    """A ragcheck test that checked nothing; filter it as ``pytest_ragcheck.RagcheckWarning``."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ragcheck", "retrieval regression testing (pytest-ragcheck)")
    for spec in OPTION_SPECS:
        if spec.flag:
            group.addoption(
                spec.flag_name,
                dest=spec.dest,
                action="store_true"
                if spec.kind == "bool"
                else "append"
                if spec.repeats
                else "store",
                default=None,
                help=spec.help,
            )
        parser.addini(
            spec.dest,
            spec.ini_help or spec.help,
            type=spec.kind,
            default=False if spec.kind == "bool" else None,
        )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "ragcheck(cases=..., k=10, metrics=[...], min_<metric>=..., ...): "
        "evaluate a retriever on a golden set (pytest-ragcheck)",
    )
    # A bad value stops the session here, before collection, with or without ragcheck tests.
    config.stash[OPTIONS] = _read_options(config)
    config.stash[SESSION_RECORDS] = []
    config.pluginmanager.register(_Collector(config), "ragcheck-collector")
    from pytest_ragcheck.plugin.owners import BaselineOwners
    from pytest_ragcheck.plugin.prune import CacheUpkeep

    config.pluginmanager.register(BaselineOwners(config), "ragcheck-baseline-owners")

    config.pluginmanager.register(
        CacheUpkeep(config, config.stash[OPTIONS]), "ragcheck-judge-cache"
    )
    if not is_worker(config):
        from pytest_ragcheck.plugin.guard import BaselineGuard

        guard = BaselineGuard(config, finish=pytest_sessionfinish)
        config.pluginmanager.register(guard, "ragcheck-baseline-guard")


def _read_options(config: pytest.Config) -> RagcheckOptions:
    from pytest_ragcheck.common.errors import ConfigError
    from pytest_ragcheck.plugin.options import parse_options
    from pytest_ragcheck.plugin.outputs import BASELINE_FOLDERS, Inputs, check_outputs

    cli = {s.name: config.getoption(s.dest, default=None) for s in OPTION_SPECS if s.flag}
    for name, value in cli.items():
        if isinstance(value, list):  # a repeated flag: every value counts
            cli[name] = ",".join(value)
    ini: dict[str, object] = {}
    for spec in OPTION_SPECS:
        try:
            ini[spec.name] = config.getini(spec.dest)
        except (ValueError, pytest.UsageError) as exc:  # "invalid truth value" (bool keys)
            raise pytest.UsageError(f"ini {spec.dest}: {exc}") from None
    try:
        options = parse_options(
            cli=cli, ini=ini, invocation_dir=config.invocation_params.dir, rootdir=config.rootpath
        )
        dirname = getattr(config.option, "snapshot_dirname", None)  # syrupy's option
        config.stash[INPUTS] = Inputs(
            sources=(config.inipath,) if config.inipath else (),
            cache_dir=options.defaults.judge.cache_dir,
            baseline_folders=(*BASELINE_FOLDERS, *([str(dirname)] if dirname else [])),
        )
        check_outputs(options, config.stash[INPUTS])  # no output over an input
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None
    return options


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Check marker keywords and outputs up front: a typo is a usage error, not 40 failing
    tests, and a report path that names a golden set is refused before it is overwritten."""
    if is_worker(config):
        return  # checked per collector below: a UsageError would crash an xdist worker
    from pytest_ragcheck.plugin.collection import collection_problems

    problems = collection_problems(config, items)
    if problems:
        raise pytest.UsageError("\n".join(problems))


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """On an xdist worker, a bad marker is a collection error the controller shows cleanly."""
    report = yield
    if not is_worker(collector.config) or not report.passed:
        return report
    from pytest_ragcheck.plugin.collection import collection_problems

    items = [node for node in report.result if isinstance(node, pytest.Item)]
    problems = collection_problems(collector.config, items)
    if problems:
        report.outcome = "failed"
        report.longrepr = "\n".join(problems)
        report.result = []
    return report


@pytest.fixture
def ragcheck(request: pytest.FixtureRequest) -> RagcheckFixture:
    """Evaluate a retriever on the test's golden set: ``result = ragcheck(retriever)``."""
    from pytest_ragcheck.plugin.fixture import RagcheckFixture

    return RagcheckFixture(request)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    records = item.stash.get(ITEM_RECORDS, None) if report.when == "call" else None
    if not records and _failed_unevaluated(item, report):
        records = [_failure_record(item, report)]  # the reports list it as failed
    comparisons = item.stash.get(ITEM_COMPARISONS, None) if report.when == "call" else None
    # Plain JSON-safe data: pytest-xdist ships it to the controller with the report, as
    # UTF-8 (a name with half a surrogate pair, e.g. a file name, would end the session).
    if (records or comparisons) and is_worker(item.config):
        from pytest_ragcheck.report.record import utf8_safe

        records = utf8_safe(records) if records else records
        comparisons = utf8_safe(comparisons) if comparisons else comparisons
    if records:
        report.ragcheck = records  # type: ignore[attr-defined]
    if comparisons:
        report.ragcheck_compare = comparisons  # type: ignore[attr-defined]
    if _keeps_baselines(item, report):
        # syrupy deletes, under --snapshot-update, the snapshots no assertion touched: a test
        # that crashed, or passed without a ragcheck call (an early return), still exists, so
        # its stored baselines are marked used, unchanged.
        from pytest_ragcheck.plugin.snapshots import keep_baselines

        keep_baselines(item)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """Warn as the test's call phase ends: made an error (``filterwarnings = error``), the
    warning then fails the test in its call phase, with its message, like one the test raised."""
    __tracebackhide__ = True
    result = yield  # raises when the test failed, skipped or xfailed: nothing to warn about
    if _checked_nothing(item):
        item.warn(
            RagcheckWarning(
                f"{item.name} is marked @ragcheck(...) but never called ragcheck(...): "
                "nothing was checked (call ragcheck(retriever), or pytest.skip() when there "
                "is nothing to check)"
            )
        )
    return result


def _checked_nothing(item: pytest.Item) -> bool:
    """A test that returned, with its own marker (not a module's or class's) that its fixture
    never acted on.

    Markers on a module or a class may cover helper tests that have nothing to evaluate; one
    on the test itself says it is a gate. A test marked ``xfail`` is not reported: its outcome
    (xfailed or xpassed) already says more.
    """
    if not any(mark.name == MARKER for mark in item.own_markers):
        return False
    return not item.stash.get(USED, False) and item.get_closest_marker("xfail") is None


def _keeps_baselines(item: pytest.Item, report: pytest.TestReport) -> bool:
    """A test that failed before its baseline check, or passed without any ragcheck call.

    A test whose calls ran checked its baselines itself: the baseline of a call it no longer
    makes is truly gone.
    """
    crashed = report.failed and report.when in ("setup", "call")
    no_call = report.passed and report.when == "call" and not item.stash.get(ITEM_RECORDS, None)
    return (crashed or no_call) and _may_own_baseline(item)


def _failed_unevaluated(item: pytest.Item, report: pytest.TestReport) -> bool:
    """A ragcheck test (marker, or fixture) that failed in setup or call without any record."""
    if not report.failed or report.when not in ("setup", "call"):
        return False
    if item.stash.get(ITEM_RECORDS, None) or item.stash.get(ITEM_COMPARISONS, None):
        return False  # its evaluations are reported; a comparison-only test has its tables
    return _is_ragcheck_test(item)


def _is_ragcheck_test(item: pytest.Item) -> bool:
    """A test with the marker, or one that asks for the ``ragcheck`` fixture."""
    return item.get_closest_marker(MARKER) is not None or "ragcheck" in getattr(
        item, "fixturenames", ()
    )


def _failure_record(item: pytest.Item, report: pytest.TestReport) -> dict[str, Any]:
    from pytest_ragcheck.common.redact import redact_data
    from pytest_ragcheck.report.record import failure_record

    crash = getattr(report.longrepr, "reprcrash", None)
    message = crash.message if crash is not None else report.longreprtext
    message = message.removeprefix("Failed: ")  # pytest.fail's own word: the entry says failed
    try:
        cases = (marker_kwargs(item) or {}).get("cases")
    except Exception:
        cases = None
    header = f"{cases} (not evaluated)" if isinstance(cases, str) else "not evaluated"
    when = "" if report.when == "call" else f"in {report.when}: "
    return redact_data(failure_record(nodeid=item.nodeid, header=header, message=when + message))


def _may_own_baseline(item: pytest.Item) -> bool:
    """A ragcheck test (marker or fixture) whose marker does not say ``baseline=False``."""
    if not _is_ragcheck_test(item):
        return False
    try:
        kwargs = marker_kwargs(item) or {}
    except Exception:
        return True
    return kwargs.get("baseline", True) is not False


class _Collector:
    """Gathers records from test reports; one per config, so nested sessions stay apart."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        comparisons = getattr(report, "ragcheck_compare", None)
        if comparisons and not is_worker(self.config):
            from pytest_ragcheck.plugin.reporting import COMPARISONS

            self.config.stash.setdefault(COMPARISONS, []).extend(comparisons)
        records = getattr(report, "ragcheck", None)
        if not records or is_worker(self.config):
            return
        for record in records:
            self.config.stash[SESSION_RECORDS].append({**record, "outcome": report.outcome})


def _to_report(config: pytest.Config) -> tuple[list[dict[str, Any]], RagcheckOptions] | None:
    """The session's records and options, when there is anything to report (controller only)."""
    if is_worker(config):
        return None
    records = config.stash.get(SESSION_RECORDS, [])
    options = ragcheck_options(config)
    from pytest_ragcheck.plugin.reporting import COMPARISONS

    compared = bool(config.stash.get(COMPARISONS, []))
    if not (records or compared or options.report_paths or options.propose_labels):
        return None
    return records, options


def pytest_sessionfinish(session: pytest.Session, exitstatus: int | pytest.ExitCode) -> None:
    try:
        guard = session.config.pluginmanager.get_plugin("ragcheck-baseline-guard")
        if guard is not None:  # the controller: the reports say when tests did not run
            from pytest_ragcheck.plugin.reporting import INCOMPLETE

            session.config.stash[INCOMPLETE] = guard.incomplete_reason(session, exitstatus)
        _write_reports(session.config)
    finally:
        _forget_golden_sets()


def _forget_golden_sets() -> None:
    """Drop the golden sets cached for the session's tests once they have all run.

    pytest collects garbage (twice) when it unconfigures, and each collection walks every
    live object: with 200,000 cached golden cases that is about a second each.
    """
    golden = sys.modules.get("pytest_ragcheck.golden")
    clear = None if golden is None else vars(golden).get("clear_cache")
    if clear is not None:  # bound only if a test read a golden set
        clear()


def _write_reports(config: pytest.Config) -> None:
    todo = _to_report(config)
    if todo is None:
        return
    records, options = todo
    from pytest_ragcheck.plugin.reporting import write_reports

    write_reports(config, records, options=options)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    todo = _to_report(config)
    if todo is None:
        return
    records, options = todo
    from pytest_ragcheck.plugin.reporting import terminal_summary

    terminal_summary(terminalreporter, config, records, options=options)


def pytest_report_header(config: pytest.Config) -> list[str]:
    """The effective ragcheck configuration (judge model, cache, tolerance) under the header."""
    from pytest_ragcheck.plugin.reporting import report_header

    return report_header(ragcheck_options(config), rootdir=config.rootpath)
