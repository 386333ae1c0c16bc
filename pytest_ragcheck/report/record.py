"""The JSON-safe record of one ragcheck call: what reports and pytest-xdist carry.

A record is built on the process that ran the test (an xdist worker, say) and travels to the
controller inside the test report, so it holds plain JSON values only and is kept small: long
texts (retrieved chunks, judge reasons, tracebacks) are cut to what a report shows, and a run
of more than :data:`~pytest_ragcheck.report.cases.SHOWN_CASES` cases carries the entries of
the cases that matter most plus every entry as compressed bytes, written out only by the JSON
report (see :mod:`pytest_ragcheck.report.cases`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from pytest_ragcheck.common.escapes import json_safe, utf8_writable
from pytest_ragcheck.common.redact import known_secrets, redact_data, redactor
from pytest_ragcheck.report.capped import MetricColumns, distribution, select_shown
from pytest_ragcheck.report.cases import (
    MAX_HITS,
    QUERY_LIMIT,
    SHOWN_CASES,
    TEXT_LIMIT,
    all_cases_json,
    cases_json,
    clip,
    pack,
)

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import Result
    from pytest_ragcheck.evaluation.settings import Settings
    from pytest_ragcheck.gate.verdict import Verdict

__all__ = [
    "MAX_HITS",
    "QUERY_LIMIT",
    "SHOWN_CASES",
    "TEXT_LIMIT",
    "build_record",
    "clip",
    "failure_record",
    "junit_properties",
    "metric_kind",
    "safe_url",
    "utf8_safe",
]


def safe_url(url: str | None) -> str | None:
    """A URL fit to print or store: no user/password, no query string, no fragment."""
    if not url:
        return None
    has_scheme = "://" in url
    try:
        parts = urlsplit(url if has_scheme else "//" + url)
        port = parts.port
    except ValueError:
        return "<invalid url>"
    host = parts.hostname or ""
    if port is not None:
        host = f"{host}:{port}"
    return urlunsplit((parts.scheme if has_scheme else "", host, parts.path, "", "")).lstrip("/")


def failure_record(*, nodeid: str, header: str, message: str) -> dict[str, Any]:
    """The record of a ragcheck test that failed before any evaluation (a damaged golden set,
    a bad keyword, a fixture that raised): the reports list it as failed with its message, so
    they never read "1 passed" for a run whose other ragcheck tests could not run."""
    problem = clip(" ".join(message.split()), QUERY_LIMIT) or "failed before its evaluation"
    return {
        "nodeid": nodeid,
        "header": header,
        "verdict": {"failed": True, "problems": [f"not evaluated: {problem}"]},
    }


def utf8_safe(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``records`` with every half surrogate pair (an id or a chunk read with
    ``surrogateescape``) written as the text ``\\udcff``, as the reports write it.

    pytest-xdist carries records to the controller as UTF-8, which has no such characters;
    the usual records have none and come back as they are, after one scan of their text.
    """
    # the packed entries (bytes) were escaped as they were packed
    return records if utf8_writable(records) else _walk(records)


def _walk(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode()
    if isinstance(value, dict):
        return {_walk(k): _walk(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(map(_walk, value))
    return value


def metric_kind(name: str) -> str:
    from pytest_ragcheck.metrics.registry import find_metric

    metric = find_metric(name)
    return metric.kind if metric is not None else "rank"


def _settings(settings: Settings) -> dict[str, Any]:
    judge = settings.judge
    return {
        "k": settings.k,
        "metrics": list(settings.metric_names),
        "tolerance": settings.tolerance,
        "tolerances": dict(settings.tolerances),
        "significance": settings.significance,
        "per_tag": settings.per_tag,
        "min_tag_cases": settings.min_tag_cases,
        "baseline": settings.baseline,
        "thresholds": {t.name: {"bound": t.bound, "kind": t.kind} for t in settings.thresholds},
        "tags": list(settings.tags) if settings.tags else None,
        "concurrency": settings.concurrency,
        "timeout": settings.timeout,
        "on_error": settings.on_error,
        "empty": settings.empty,
        "judge": {
            "model": judge.model,
            "api_base": safe_url(judge.api_base),
            "samples": judge.samples,
            "max_calls": judge.max_calls,
            "cache": str(judge.cache_dir) if judge.cache_dir is not None else None,
            "offline": judge.offline,
        }
        if settings.judge_metrics
        else None,
    }


def _shown_metrics(result: Result) -> list[tuple[str, bool]]:
    return [(s.name, s.metric.higher_is_better) for s in result.specs if s.metric.snapshot]


def _cases(
    result: Result,
    verdict: Verdict,
    baseline: Mapping[str, Any] | None,
    *,
    pack_all: bool,
) -> dict[str, Any]:
    """The ``cases`` part of the record: every entry when few, else the shown ones + packed."""
    by_case: Mapping[str, Mapping[str, float]] = (baseline or {}).get("cases") or {}
    cases = result.cases
    first = [c.id for c in verdict.case_changes]
    metrics = _shown_metrics(result)
    columns = MetricColumns(cases, by_case, [name for name, _ in metrics])
    shown = select_shown(cases, metrics, by_case, first=first, columns=columns)
    picked = [cases[i] for i in shown]
    text = cases_json(picked, [by_case.get(c.id) for c in picked])
    out: dict[str, Any] = {"cases": json.loads(f"[{text}]")}
    if len(shown) == len(cases):
        return out
    names = [name for name, _ in metrics]
    out["cases_shown"] = len(shown)
    out["distribution"] = distribution(cases, names, by_case, columns=columns)
    if pack_all:
        entries = all_cases_json(cases, by_case)
        out["cases_packed"] = pack(entries, redactor(known_secrets()))
    return out


def build_record(
    *,
    nodeid: str,
    result: Result,
    verdict: Verdict,
    settings: Settings,
    baseline: dict[str, Any] | None,
    pack_all: bool = True,
) -> dict[str, Any]:
    """Everything the reports need about one ``ragcheck(retriever)`` call, as JSON data.

    ``pack_all=False`` (no JSON report asked for) leaves out the entries of the cases a
    capped report does not show. The baseline's per-case values go into the case entries.
    """
    kinds = {s.name: s.kind for s in result.specs}
    metrics = {n: v for n, v in result.metrics.items()}
    cases = _cases(result, verdict, baseline, pack_all=pack_all)
    if baseline is not None:
        baseline = {k: v for k, v in baseline.items() if k != "cases"}
    return {
        "nodeid": nodeid,
        "header": verdict.header,
        "settings": json_safe(_settings(settings)),
        "result": {
            "k": result.k,
            "metrics": json_safe(metrics),
            "metric_names": list(result.metric_names),
            "kinds": {name: kinds.get(name) or metric_kind(name) for name in metrics},
            "golden_hash": result.golden_hash,
            "golden_source": result.golden_source,
            "n_cases": len(result.cases),
            "n_errors": len(result.errors),
            "n_skipped": len(result.skipped),
            "info": json_safe(result.info),
            **cases,
        },
        "verdict": {
            "failed": verdict.failed,
            "checks": [json_safe(c.to_dict()) for c in verdict.checks.values()],
            "problems": [str(p) for p in verdict.problems],
            "notes": [str(n) for n in verdict.notes],
            "case_changes": [
                {
                    "id": c.id,
                    "query": clip(c.query, QUERY_LIMIT),
                    "metric": c.metric,
                    "before": json_safe(c.before),
                    "after": json_safe(c.after),
                    "explain": list(c.explain),
                    "baseline_hits": list(c.baseline_hits[:MAX_HITS]),
                }
                for c in verdict.case_changes
            ],
        },
        "baseline": json_safe(baseline) if baseline is not None else None,
    }


def junit_properties(record: Mapping[str, Any]) -> list[tuple[str, object]]:
    """``item.user_properties`` entries for one record (so they reach ``--junitxml``).

    ``ragcheck.<metric>`` is the value (over every case); when a baseline was compared,
    ``.baseline``, ``.delta``, ``.allowed`` and ``.status`` (pass, regressed, improved,
    below_floor...) follow, and when the golden set changed since the baseline, ``.current``
    (the value on the shared cases, which ``.delta`` is about) and ``.shared_cases``.
    """
    props: list[tuple[str, object]] = []
    for check in record["verdict"]["checks"]:
        name = f"ragcheck.{check['name']}"
        value = check.get("value")
        if value is None:
            continue
        props.append((name, round(value, 6)))
        baseline = check.get("baseline")
        if baseline is None:
            continue
        delta = check.get("delta")
        compared = check.get("compared")
        now = value if compared is None else compared
        if compared is not None:  # the golden set changed: the shared cases' value and count
            props.append((f"{name}.current", round(compared, 6)))
            if check.get("compared_cases") is not None:
                props.append((f"{name}.shared_cases", check["compared_cases"]))
        props.append((f"{name}.baseline", round(baseline, 6)))
        props.append((f"{name}.delta", round(now - baseline if delta is None else delta, 6)))
        if check.get("allowed") is not None:
            props.append((f"{name}.allowed", round(check["allowed"], 6)))
        props.append((f"{name}.status", check.get("status", "pass")))
        if check.get("basis") in ("tolerance", "setting"):  # not the paired test's verdict
            props.append((f"{name}.basis", check["basis"]))
    return redact_data(props)
