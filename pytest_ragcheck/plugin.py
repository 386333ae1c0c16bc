"""pytest hooks, options and the ``ragcheck`` fixture.

Thin on purpose: validation, loading, evaluation, policy, baselines and reports live in the
pure modules and are imported lazily, so a project that has the plugin installed but runs no
ragcheck test pays only for this file (no numpy, pydantic, syrupy or litellm at import).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Generator, Mapping

    from pytest_ragcheck.baseline_doc import BaselineOptions
    from pytest_ragcheck.config import Defaults, Settings
    from pytest_ragcheck.result import Result

MARKER = "ragcheck"
#: Records of the ragcheck calls made by one test item (JSON-safe dicts).
ITEM_RECORDS = pytest.StashKey[list[dict[str, Any]]]()
#: Every record of the session, gathered on the controller (or the only process).
SESSION_RECORDS = pytest.StashKey[list[dict[str, Any]]]()

_OPTIONS: tuple[tuple[str, str, str, str | None], ...] = (
    # (option, ini type, help, default)
    (
        "report",
        "string",
        "write a report of every ragcheck test: PATH ending in .json, .md or .html",
        None,
    ),
    ("tolerance", "string", "absolute drop allowed against the baseline (default 0.02)", None),
    (
        "concurrency",
        "string",
        "parallel retriever calls per test (default 16; 1 for CPU-bound models)",
        None,
    ),
    ("judge_model", "string", "LLM judge model (any litellm model name)", None),
    ("judge_api_base", "string", "base URL of an OpenAI-compatible judge server", None),
    (
        "judge_cache",
        "string",
        "verdict cache folder, or 'off' (default .ragcheck/judge under the rootdir)",
        None,
    ),
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ragcheck", "retrieval regression testing (pytest-ragcheck)")
    for name, ini_type, help_text, _ in _OPTIONS:
        flag = "--ragcheck-" + name.replace("_", "-")
        group.addoption(flag, dest=f"ragcheck_{name}", default=None, help=help_text)
        parser.addini(f"ragcheck_{name}", help_text, type=ini_type, default=None)  # type: ignore[arg-type]
    group.addoption(
        "--ragcheck-judge-offline",
        dest="ragcheck_judge_offline",
        action="store_true",
        default=None,
        help="never call the LLM judge: missing verdicts fail (use with a committed cache in CI)",
    )
    parser.addini("ragcheck_judge_offline", "never call the LLM judge", type="bool", default=False)
    group.addoption(
        "--ragcheck-no-summary",
        dest="ragcheck_no_summary",
        action="store_true",
        default=None,
        help="do not print the ragcheck metrics table at the end of the run",
    )
    parser.addini(
        "ragcheck_no_summary", "do not print the ragcheck summary", type="bool", default=False
    )
    parser.addini(
        "ragcheck_fail_on_improvement",
        "fail when a metric improves beyond tolerance, so the baseline is refreshed",
        type="bool",
        default=False,
    )
    parser.addini(
        "ragcheck_baseline_precision",
        "decimals kept in baseline snapshot files (default 4)",
        type="string",
        default=None,
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "ragcheck(cases=..., k=10, metrics=[...], min_<metric>=..., ...): "
        "evaluate a retriever on a golden set (pytest-ragcheck)",
    )
    config.stash[SESSION_RECORDS] = []
    if not is_worker(config) and option(config, "report"):
        from pytest_ragcheck.report import check_report_option

        check_report_option(config)  # an unknown extension fails before any test runs
    config.pluginmanager.register(_Collector(config), "ragcheck-collector")


def option(config: pytest.Config, name: str) -> Any:
    """A ragcheck setting: the command line wins over the ini file."""
    value = config.getoption(f"ragcheck_{name}", default=None)
    if value is None:
        value = config.getini(f"ragcheck_{name}")
    return value


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _defaults(config: pytest.Config) -> Defaults:
    from pytest_ragcheck.config import Defaults, JudgeSettings
    from pytest_ragcheck.errors import ConfigError

    def number(name: str, cast: type[float] | type[int]) -> Any:
        raw = option(config, name)
        if raw in (None, ""):
            return None
        try:
            return cast(raw)
        except ValueError:
            raise ConfigError(
                f"--ragcheck-{name.replace('_', '-')} / ragcheck_{name}: expected a number, got {raw!r}"
            ) from None

    cache_raw = option(config, "judge_cache")
    cache_dir: Path | None
    if cache_raw in (None, ""):
        cache_dir = Path(config.rootpath) / ".ragcheck" / "judge"
    elif str(cache_raw).strip().lower() == "off":
        cache_dir = None
    else:
        anchor = (
            config.invocation_params.dir
            if config.getoption("ragcheck_judge_cache", default=None)
            else config.rootpath
        )
        cache_dir = (Path(anchor) / os.path.expanduser(str(cache_raw))).resolve()
    offline_cli = config.getoption("ragcheck_judge_offline", default=None)
    judge = JudgeSettings(
        model=option(config, "judge_model") or None,
        api_base=option(config, "judge_api_base") or None,
        cache_dir=cache_dir,
        offline=bool(offline_cli) or bool(config.getini("ragcheck_judge_offline")),
    )
    tolerance = number("tolerance", float)
    concurrency = number("concurrency", int)
    fallback = Defaults(judge=judge)
    return Defaults(
        tolerance=fallback.tolerance if tolerance is None else tolerance,
        concurrency=fallback.concurrency if concurrency is None else concurrency,
        judge=judge,
    )


def marker_kwargs(item: pytest.Item) -> dict[str, Any] | None:
    """Keywords of every ``ragcheck`` marker on the item, the closest marker winning."""
    marks = list(item.iter_markers(MARKER))
    if not marks:
        return None
    merged: dict[str, Any] = {}
    for mark in reversed(marks):  # farthest first, so the closest overrides
        if len(mark.args) > 1:
            from pytest_ragcheck.errors import ConfigError

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
    from pytest_ragcheck.config import build_settings
    from pytest_ragcheck.errors import RagcheckError

    try:
        defaults = _defaults(config)
    except RagcheckError as exc:
        return [str(exc)]
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


def _baseline_options(config: pytest.Config) -> BaselineOptions:
    """The baseline ini keys (``ragcheck_baseline_precision``, ``ragcheck_fail_on_improvement``)."""
    from pytest_ragcheck.baseline_doc import (
        DEFAULT_PRECISION,
        MAX_PRECISION,
        PRECISION_INI,
        BaselineOptions,
    )
    from pytest_ragcheck.errors import BaselineError

    raw = config.getini(PRECISION_INI)
    precision = DEFAULT_PRECISION
    if raw not in (None, ""):
        try:
            precision = int(str(raw).strip())
        except ValueError:
            precision = -1
        if not 0 <= precision <= MAX_PRECISION:
            raise BaselineError(
                f"ini {PRECISION_INI} must be an integer 0-{MAX_PRECISION} (decimals kept in "
                f"baseline files), got {raw!r}"
            )
    try:
        fail_on_improvement = bool(config.getini("ragcheck_fail_on_improvement"))
    except ValueError:  # not a truth value: off, as before
        fail_on_improvement = False
    return BaselineOptions(precision=precision, fail_on_improvement=fail_on_improvement)


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
        from pytest_ragcheck.config import build_settings

        item = self._request.node
        return build_settings(
            marker_kwargs(item) or {},
            overrides,
            defaults=_defaults(self._request.config),
        )

    def __call__(self, retriever: Any, **overrides: Any) -> Result:
        from pytest_ragcheck.errors import RagcheckError

        __tracebackhide__ = True
        try:
            return self._run(retriever, overrides)
        except RagcheckError as exc:
            message = str(exc)
        # Outside the except block: pytest would otherwise print the message twice, joined
        # by "During handling of the above exception, another exception occurred".
        pytest.fail(message, pytrace=False)

    def _run(self, retriever: Any, overrides: Mapping[str, Any]) -> Result:
        from pytest_ragcheck.errors import ConfigError
        from pytest_ragcheck.evaluation import evaluate_golden
        from pytest_ragcheck.golden import load_golden
        from pytest_ragcheck.policy import check_floors
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
        golden = load_golden(settings.cases, base_dirs=base_dirs, split=settings.split)
        progress = make_progress(request.config, item.nodeid)
        result = evaluate_golden(retriever, golden, settings, progress=progress)
        header = f"{golden.source} ({len(result.cases)} cases, k={settings.k})"
        verdict = check_floors(result, settings, header=header)
        baseline_info: dict[str, Any] | None = None
        if settings.baseline:
            from pytest_ragcheck.baseline import check_baseline

            baseline_info = check_baseline(
                request=request,
                result=result,
                settings=settings,
                verdict=verdict,
                options=_baseline_options(request.config),
            ).to_dict()
        record = build_record(
            nodeid=item.nodeid,
            result=result,
            verdict=verdict,
            settings=settings,
            baseline=baseline_info,
        )
        item.stash.setdefault(ITEM_RECORDS, []).append(record)
        item.user_properties.extend(junit_properties(record))
        if verdict.failed:
            pytest.fail(verdict.message(result), pytrace=False)
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


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    if is_worker(config):
        return
    records = config.stash.get(SESSION_RECORDS, [])
    if not records and not option(config, "report"):
        return
    from pytest_ragcheck.report import write_reports

    write_reports(config, records)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    if is_worker(config):
        return
    records = config.stash.get(SESSION_RECORDS, [])
    if not records and not option(config, "report"):
        return
    from pytest_ragcheck.report import terminal_summary

    terminal_summary(terminalreporter, config, records)


def pytest_report_header(config: pytest.Config) -> list[str]:
    """The effective ragcheck configuration (judge model, cache, tolerance) under the header."""
    from pytest_ragcheck.report import report_header

    return report_header(config)
