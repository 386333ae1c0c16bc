"""The JSON-safe record of one ragcheck call: what reports and pytest-xdist carry.

A record is built on the process that ran the test (an xdist worker, say) and travels to the
controller inside the test report, so it holds plain JSON values only and is kept small: long
texts (retrieved chunks, judge reasons, tracebacks) are cut to what a report shows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from pytest_ragcheck.redact import redact_data

if TYPE_CHECKING:
    from pytest_ragcheck.config import Settings
    from pytest_ragcheck.policy import Verdict
    from pytest_ragcheck.result import Result

__all__ = [
    "MAX_HITS",
    "TEXT_LIMIT",
    "build_record",
    "clip",
    "json_safe",
    "junit_properties",
    "metric_kind",
    "safe_url",
]

#: Characters kept of a retrieved chunk, a judge reason or a claim.
TEXT_LIMIT = 240
#: Characters kept of a query and of an error message.
QUERY_LIMIT = 1000
#: Characters kept from the end of a retriever traceback.
TRACEBACK_LIMIT = 2000
#: Hits kept per case (reports show the top of the ranking; ``k=None`` may return thousands).
MAX_HITS = 100


def clip(text: str | None, limit: int = TEXT_LIMIT) -> str | None:
    """``text`` cut to ``limit`` characters, with an ellipsis when something was dropped."""
    if text is None:
        return None
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tail(text: str | None, limit: int = TRACEBACK_LIMIT) -> str | None:
    if text is None:
        return None
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


def json_safe(value: Any) -> Any:
    """``value`` as plain JSON data: non-finite floats become ``None``, unknown objects ``str``."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_safe(v) for v in value]
    try:  # numpy scalars and friends
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return number if math.isfinite(number) else None


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


def metric_kind(name: str) -> str:
    from pytest_ragcheck.registry import find_metric

    metric = find_metric(name)
    return metric.kind if metric is not None else "rank"


def _judge_details(judge: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for metric, items in judge.items():
        rows: list[dict[str, Any]] = []
        for item in list(items)[:MAX_HITS]:
            row = {str(k): json_safe(v) for k, v in dict(item).items()}
            for key in ("reason", "claim", "error", "quote", "question", "statement"):
                if isinstance(row.get(key), str):
                    row[key] = clip(row[key])
            if isinstance(row.get("claims"), list):
                row["claims"] = [
                    {**c, "claim": clip(c.get("claim"))} if isinstance(c, dict) else c
                    for c in row["claims"][:MAX_HITS]
                ]
            rows.append(row)
        out[str(metric)] = rows
    return out


def _case(case: Mapping[str, Any]) -> dict[str, Any]:
    hits = list(case.get("hits") or [])
    return {
        "id": case["id"],
        "query": clip(case.get("query"), QUERY_LIMIT),
        "tags": list(case.get("tags") or []),
        "status": case.get("status", "ok"),
        "n_relevant": case.get("n_relevant", 0),
        "values": json_safe(case.get("values") or {}),
        "latency_ms": json_safe(case.get("latency_ms")),
        "error": clip(case.get("error"), QUERY_LIMIT),
        "traceback": _tail(case.get("traceback")),
        "duplicates": case.get("duplicates", 0),
        "mode": case.get("mode", "ids"),
        "hits": [
            {
                "rank": h["rank"],
                "id": str(h["id"]),
                "text": clip(h.get("text")),
                "score": json_safe(h.get("score")),
                "grade": h.get("grade", 0),
                "spans": list(h.get("spans") or []),
            }
            for h in hits[:MAX_HITS]
        ],
        "hits_dropped": max(0, len(hits) - MAX_HITS),
        "judge": _judge_details(case.get("judge") or {}),
        "judge_errors": [clip(e, QUERY_LIMIT) for e in case.get("judge_errors") or []],
        "answer": clip(case.get("answer")),
    }


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


def build_record(
    *,
    nodeid: str,
    result: Result,
    verdict: Verdict,
    settings: Settings,
    baseline: dict[str, Any] | None,
) -> dict[str, Any]:
    """Everything the reports need about one ``ragcheck(retriever)`` call, as JSON data."""
    raw = result.to_dict()
    kinds = {s.name: s.kind for s in result.specs}
    return {
        "nodeid": nodeid,
        "header": verdict.header,
        "settings": json_safe(_settings(settings)),
        "result": {
            "k": raw["k"],
            "metrics": json_safe(raw["metrics"]),
            "metric_names": list(raw["metric_names"]),
            "kinds": {name: kinds.get(name) or metric_kind(name) for name in raw["metrics"]},
            "golden_hash": raw["golden_hash"],
            "golden_source": raw["golden_source"],
            "n_cases": raw["n_cases"],
            "n_errors": raw["n_errors"],
            "n_skipped": raw["n_skipped"],
            "info": json_safe(raw["info"]),
            "cases": [_case(c) for c in raw["cases"]],
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

    ``ragcheck.<metric>`` is the value; when a baseline was compared, ``.baseline``,
    ``.delta``, ``.allowed`` and ``.status`` (pass, regressed, improved, below_floor...) follow.
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
        props.append((f"{name}.baseline", round(baseline, 6)))
        props.append((f"{name}.delta", round(value - baseline if delta is None else delta, 6)))
        if check.get("allowed") is not None:
            props.append((f"{name}.allowed", round(check["allowed"], 6)))
        props.append((f"{name}.status", check.get("status", "pass")))
    return redact_data(props)
