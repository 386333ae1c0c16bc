"""pytest hooks, options and the ``ragcheck`` fixture.

Thin on purpose: validation, loading, evaluation, policy, baselines and reports live in the
pure modules and are imported lazily, so a project that has the plugin installed but runs no
ragcheck test pays only for this file and :mod:`pytest_ragcheck.options`, which every session
needs to check its options (no numpy, pydantic, syrupy or litellm at import).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_ragcheck.config import build_settings
from pytest_ragcheck.errors import ConfigError, RagcheckError
from pytest_ragcheck.options import OPTION_SPECS, RagcheckOptions, is_worker, parse_options

if TYPE_CHECKING:
    from collections.abc import Generator, Mapping

    from pytest_ragcheck.config import Settings
    from pytest_ragcheck.result import Result

MARKER = "ragcheck"
#: Records of the ragcheck calls made by one test item (JSON-safe dicts).
ITEM_RECORDS = pytest.StashKey[list[dict[str, Any]]]()
#: Every record of the session, gathered on the controller (or the only process).
SESSION_RECORDS = pytest.StashKey[list[dict[str, Any]]]()

#: The session's options, read and validated once in ``pytest_configure``.
OPTIONS = pytest.StashKey[RagcheckOptions]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ragcheck", "retrieval regression testing (pytest-ragcheck)")
    for spec in OPTION_SPECS:
        if spec.flag:
            group.addoption(
                spec.flag_name,
                dest=spec.dest,
                action="store_true" if spec.kind == "bool" else "store",
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
    if not is_worker(config):
        from pytest_ragcheck.guard import BaselineGuard

        guard = BaselineGuard(config, finish=pytest_sessionfinish)
        config.pluginmanager.register(guard, "ragcheck-baseline-guard")


def ragcheck_options(config: pytest.Config) -> RagcheckOptions:
    """The session's validated ragcheck options (command line > ini > default)."""
    return config.stash[OPTIONS]


def _read_options(config: pytest.Config) -> RagcheckOptions:
    cli = {s.name: config.getoption(s.dest, default=None) for s in OPTION_SPECS if s.flag}
    ini: dict[str, object] = {}
    for spec in OPTION_SPECS:
        try:
            ini[spec.name] = config.getini(spec.dest)
        except (ValueError, pytest.UsageError) as exc:  # "invalid truth value" (bool keys)
            raise pytest.UsageError(f"ini {spec.dest}: {exc}") from None
    try:
        return parse_options(
            cli=cli, ini=ini, invocation_dir=config.invocation_params.dir, rootdir=config.rootpath
        )
    except ConfigError as exc:
        raise pytest.UsageError(str(exc)) from None


def marker_kwargs(item: pytest.Item) -> dict[str, Any] | None:
    """Keywords of every ``ragcheck`` marker on the item, the closest marker winning."""
    marks = list(item.iter_markers(MARKER))
    if not marks:
        return None
    merged: dict[str, Any] = {}
    for mark in reversed(marks):  # farthest first, so the closest overrides
        if len(mark.args) > 1:
            raise ConfigError(
                f"@ragcheck takes at most one positional argument (the cases), got {mark.args!r}"
            )
        if mark.args:
            merged["cases"] = mark.args[0]
        merged.update(mark.kwargs)
    return merged


def _marker_problems(config: pytest.Config, items: list[pytest.Item]) -> list[str]:
    """One message per distinct problem in the ``@ragcheck`` keywords (or options) of ``items``."""
    marked = [item for item in items if item.get_closest_marker(MARKER) is not None]
    if not marked:
        return []
    defaults = ragcheck_options(config).defaults
    where: dict[str, list[str]] = {}
    for item in marked:
        try:
            build_settings(marker_kwargs(item) or {}, defaults=defaults)
        except RagcheckError as exc:
            where.setdefault(str(exc), []).append(item.nodeid)
    return [
        f"{nodeids[0]}"
        + (f" (and {len(nodeids) - 1} more test(s))" if nodeids[1:] else "")
        + f": {message}"
        for message, nodeids in where.items()
    ]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Check marker keywords up front: a typo is a usage error, not 40 failing tests."""
    if is_worker(config):
        return  # checked per collector below: a UsageError would crash an xdist worker
    problems = _marker_problems(config, items)
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
    items = [node for node in report.result if isinstance(node, pytest.Item)]
    problems = _marker_problems(collector.config, items)
    if problems:
        report.outcome = "failed"
        report.longrepr = "\n".join(problems)
        report.result = []
    return report


class RagcheckFixture:
    """The ``ragcheck`` fixture: ``ragcheck(retriever, **overrides) -> Result``.

    Runs the golden set of the test's ``@ragcheck`` marker through ``retriever``, checks the
    thresholds and the stored baseline, records the metrics and fails the test (one message,
    no plugin traceback) when quality dropped.
    """

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self._request = request

    def settings(self, **overrides: Any) -> Settings:
        """The effective settings for this test (call overrides > marker > CLI > ini > default)."""
        item = self._request.node
        return build_settings(
            marker_kwargs(item) or {},
            overrides,
            defaults=ragcheck_options(self._request.config).defaults,
        )

    def __call__(self, retriever: Any, **overrides: Any) -> Result:
        __tracebackhide__ = True
        from pytest_ragcheck.evaluation import fewer_collections

        try:
            with fewer_collections():  # loading, baseline and record allocate in bulk too
                return self._run(retriever, overrides)
        except RagcheckError as exc:
            message = str(exc)
        from pytest_ragcheck.redact import redact

        # Outside the except block: pytest would otherwise print the message twice, joined
        # by "During handling of the above exception, another exception occurred".
        pytest.fail(redact(message), pytrace=False)

    def _run(self, retriever: Any, overrides: Mapping[str, Any]) -> Result:
        from pytest_ragcheck.evaluation import evaluate_golden
        from pytest_ragcheck.golden import load_golden
        from pytest_ragcheck.policy import check_floors, failure_message
        from pytest_ragcheck.redact import redact, redact_data
        from pytest_ragcheck.report import make_progress
        from pytest_ragcheck.report.record import build_record, junit_properties

        request = self._request
        item = request.node
        settings = self.settings(**overrides)
        if settings.cases is None:
            raise ConfigError(
                "no golden cases: add @ragcheck(cases='golden.jsonl') to the test "
                "or call ragcheck(retriever, cases=...)"
            )
        base_dirs = [Path(str(item.path)).parent, Path(request.config.rootpath)]
        clock = time.perf_counter()
        golden = load_golden(settings.cases, base_dirs=base_dirs, split=settings.split)
        timings = {"load_s": time.perf_counter() - clock}
        progress = make_progress(request.config, item.nodeid)
        result = evaluate_golden(retriever, golden, settings, progress=progress)
        timings.update(result.info.get("timings") or {})
        clock = time.perf_counter()
        header = f"{golden.source} ({len(result.cases)} cases, k={settings.k})"
        verdict = check_floors(result, settings, header=header, nodeid=item.nodeid)
        baseline_info: dict[str, Any] | None = None
        if settings.baseline:
            from pytest_ragcheck.baseline import check_baseline

            baseline_info = check_baseline(
                request=request,
                result=result,
                settings=settings,
                verdict=verdict,
                options=ragcheck_options(request.config).baseline,
            ).to_dict()
        timings["compare_s"] = time.perf_counter() - clock
        clock = time.perf_counter()
        options = ragcheck_options(request.config)
        record = build_record(
            nodeid=item.nodeid,
            result=result,
            verdict=verdict,
            settings=settings,
            baseline=baseline_info,
            pack_all=any(p.suffix.lower() == ".json" for p in options.report_paths),
        )
        if options.propose_labels is not None:
            from pytest_ragcheck.judge.proposals import label_proposals

            record["proposals"] = label_proposals(golden, result, settings)
        record = redact_data(record)  # no API key leaves the process (reports, junit, xdist)
        record["timings"] = {**timings, "record_s": time.perf_counter() - clock}
        item.stash.setdefault(ITEM_RECORDS, []).append(record)
        item.user_properties.extend(junit_properties(record))
        if verdict.failed:
            pytest.fail(redact(failure_message(verdict, result)), pytrace=False)
        return result


@pytest.fixture
def ragcheck(request: pytest.FixtureRequest) -> RagcheckFixture:
    """Evaluate a retriever on the test's golden set: ``result = ragcheck(retriever)``."""
    return RagcheckFixture(request)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    records = item.stash.get(ITEM_RECORDS, None)
    if records and report.when == "call":
        # Plain JSON-safe data: pytest-xdist ships it to the controller with the report.
        report.ragcheck = records  # type: ignore[attr-defined]
    if report.failed and report.when in ("setup", "call") and _may_own_baseline(item):
        # A crashed test must keep its stored baseline under --snapshot-update (syrupy
        # deletes snapshots no assertion touched): mark it used, unchanged.
        from pytest_ragcheck.baseline import keep_baselines

        keep_baselines(item)
    return report


def _may_own_baseline(item: pytest.Item) -> bool:
    """A ragcheck test (marker or fixture) whose marker does not say ``baseline=False``."""
    if item.get_closest_marker(MARKER) is None and "ragcheck" not in getattr(
        item, "fixturenames", ()
    ):
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
    if not records and not options.report_paths and options.propose_labels is None:
        return None
    return records, options


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    todo = _to_report(config)
    if todo is None:
        return
    records, options = todo
    if options.propose_labels is not None:
        from pytest_ragcheck.judge.proposals import write_proposals
        from pytest_ragcheck.report import MESSAGES

        message = write_proposals(options.propose_labels, records)
        config.stash.setdefault(MESSAGES, []).append(message)
    from pytest_ragcheck.report import write_reports

    write_reports(config, records, options=options)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    todo = _to_report(config)
    if todo is None:
        return
    records, options = todo
    from pytest_ragcheck.report import terminal_summary

    terminal_summary(terminalreporter, config, records, options=options)


def pytest_report_header(config: pytest.Config) -> list[str]:
    """The effective ragcheck configuration (judge model, cache, tolerance) under the header."""
    from pytest_ragcheck.report import report_header

    return report_header(ragcheck_options(config), rootdir=config.rootpath)
