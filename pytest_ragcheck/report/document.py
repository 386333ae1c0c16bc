"""Records of a session -> the versioned report document every output renders.

The JSON report is this document as is; the terminal summary, Markdown, GitHub job summary
and HTML report read the same entries, so they can never disagree on what regressed.
The schema is published as pydantic models in :mod:`pytest_ragcheck.report.schema`.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from pytest_ragcheck.common.escapes import json_safe
from pytest_ragcheck.gate.per_tag import split_tag
from pytest_ragcheck.report.labels import STATUS_ORDER, TEST_STATUSES, entry_status

__all__ = [
    "CAPPED_KEYS",
    "PACKED",
    "SCHEMA_VERSION",
    "build_document",
    "ci_info",
    "normalise",
    "run_info",
    "sort_for_attention",
]

#: Bumped on any incompatible change of the document (fields removed or changed in meaning).
SCHEMA_VERSION = 4
#: Key of a capped entry holding every case entry, compressed (``report.cases.pack``); only
#: the JSON report reads it, writing the entries out as ``cases``. ``None`` when the run asked
#: for no JSON report.
PACKED = "_cases_packed"
#: Keys of a capped entry that only the in-memory document has (the JSON report has every case).
CAPPED_KEYS = ("cases_shown", "distribution", PACKED)


def _baseline_cases(baseline: Mapping[str, Any] | None) -> dict[str, dict[str, float]]:
    """Per-case baseline values, from ``baseline["cases"]`` as a mapping or a list."""
    if not baseline:
        return {}
    cases = baseline.get("cases")
    out: dict[str, dict[str, float]] = {}
    if isinstance(cases, Mapping):
        for case_id, values in cases.items():
            if isinstance(values, Mapping):
                inner = values.get("values", values)
                if isinstance(inner, Mapping):
                    out[str(case_id)] = {
                        str(k): v for k, v in inner.items() if isinstance(v, int | float)
                    }
    elif isinstance(cases, list):
        for entry in cases:
            if isinstance(entry, Mapping) and "id" in entry:
                values = entry.get("values") or {}
                if isinstance(values, Mapping):
                    out[str(entry["id"])] = {
                        str(k): v for k, v in values.items() if isinstance(v, int | float)
                    }
    return out


def _metric(check: Mapping[str, Any], kind: str) -> dict[str, Any]:
    value = check.get("value")
    baseline = check.get("baseline")
    delta = check.get("delta")
    if delta is None and baseline is not None and value is not None:
        delta = value - baseline
    ci = check.get("ci")
    return {
        "name": check["name"],
        "kind": kind,
        "value": value,
        "higher_is_better": bool(check.get("higher_is_better", True)),
        "baseline": baseline,
        "delta": delta,
        "allowed": check.get("allowed"),
        "bound": check.get("bound"),
        "bound_kind": check.get("bound_kind"),
        "p_value": check.get("p_value"),
        "holm_over": check.get("holm_over"),
        "basis": check.get("basis") or "",
        "ci": list(ci) if ci is not None else None,
        "status": check.get("status", "pass"),
        "note": check.get("note") or "",
        "compared": check.get("compared"),
        # What ``baseline`` and ``delta`` are about: ``compared`` when the golden set changed
        # since the baseline (the shared cases), else ``value``; every output shows this one.
        "current": value if check.get("compared") is None else check["compared"],
        "compared_cases": check.get("compared_cases"),
        "all_cases": check.get("all_cases"),
        "detectable": check.get("detectable"),
    }


def normalise(record: Mapping[str, Any], call: int = 0) -> dict[str, Any]:
    """One record (as :func:`~pytest_ragcheck.report.record.build_record` made it) -> a test entry."""
    result = record.get("result") or {}
    verdict = record.get("verdict") or {}
    kinds: Mapping[str, str] = result.get("kinds") or {}
    aggregates: Mapping[str, Any] = result.get("metrics") or {}
    checks = {c["name"]: c for c in verdict.get("checks") or []}
    metrics = [
        _metric(checks.get(name, {"name": name, "value": value}), _kind(name, kinds))
        for name, value in aggregates.items()
    ]
    # Per-tag checks (``mrr@10 [tag pricing]``, per_tag=True) follow the overall metrics.
    overall = len(metrics)
    per_tag: dict[str, dict[str, Any]] = {}
    for name, check in checks.items():
        metric, tag = split_tag(name)
        if tag is not None:
            metrics.append(_metric(check, _kind(metric, kinds)))
            per_tag.setdefault(tag, {})[metric] = check.get("value")
    problems = [str(p) for p in verdict.get("problems") or []]
    outcome = str(record.get("outcome") or ("failed" if verdict.get("failed") else "passed"))
    baseline = record.get("baseline")
    by_case = _baseline_cases(baseline)
    if isinstance(baseline, Mapping) and "cases" in baseline:
        # Per-case values move into each case entry; no need to carry them twice.
        baseline = {k: v for k, v in baseline.items() if k != "cases"}
    cases = []
    for case in result.get("cases") or []:
        hits = [{**h, "relevant": bool(h.get("grade"))} for h in case.get("hits") or []]
        values = by_case.get(str(case["id"])) if by_case else case.get("baseline_values")
        cases.append({**case, "hits": hits, "baseline_values": values})
    judge = (result.get("info") or {}).get("judge")
    entry: dict[str, Any] = json_safe(
        {
            "nodeid": record["nodeid"],
            "call": call,
            "outcome": outcome,
            "status": entry_status(
                (m["status"] for m in metrics[:overall]),
                outcome,
                slices=(m["status"] for m in metrics[overall:]),
            ),
            "header": record.get("header") or "",
            "source": result.get("golden_source", ""),
            "golden_hash": result.get("golden_hash", ""),
            "k": result.get("k"),
            "n_cases": result.get("n_cases", len(cases)),
            "n_errors": result.get("n_errors", 0),
            "n_skipped": result.get("n_skipped", 0),
            "config": record.get("settings"),  # None: failed before its evaluation
            "aggregates": dict(aggregates),
            "metrics": metrics,
            "baseline": baseline,
            "problems": problems,
            "notes": [str(n) for n in verdict.get("notes") or []],
            "case_changes": list(verdict.get("case_changes") or []),
            "per_tag": per_tag or record.get("per_tag") or None,
            "judge": judge if isinstance(judge, Mapping) else None,
            "cases": cases,
        }
    )
    if record.get("timings") is not None:
        entry["timings"] = json_safe(record["timings"])
    if "cases_shown" in result:  # a capped run: see report.cases
        entry["cases_shown"] = result["cases_shown"]
        entry["distribution"] = json_safe(result.get("distribution"))
        entry[PACKED] = result.get("cases_packed")
    return entry


def _kind(name: str, kinds: Mapping[str, str]) -> str:
    kind = kinds.get(name)
    if kind is None:
        from pytest_ragcheck.report.record import metric_kind

        kind = metric_kind(name)
    return kind


def sort_for_attention(tests: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Regressions first, then floors, errors, failures, improvements, passes; by node id."""
    return sorted(tests, key=lambda t: (STATUS_ORDER.get(t["status"], 99), t["nodeid"], t["call"]))


def ci_info(environ: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """Where the run happened, when a CI service says so (GitHub Actions only for now)."""
    env = os.environ if environ is None else environ
    if env.get("GITHUB_ACTIONS") != "true":
        return None
    server = env.get("GITHUB_SERVER_URL", "")
    repo = env.get("GITHUB_REPOSITORY", "")
    run_id = env.get("GITHUB_RUN_ID", "")
    return {
        "provider": "github-actions",
        "repository": repo or None,
        "sha": env.get("GITHUB_SHA") or None,
        "ref": env.get("GITHUB_REF_NAME") or env.get("GITHUB_REF") or None,
        "run_url": f"{server}/{repo}/actions/runs/{run_id}" if server and repo and run_id else None,
        "job": env.get("GITHUB_JOB") or None,
    }


def run_info(*, rootdir: str, pytest_version: str, incomplete: str = "") -> dict[str, Any]:
    """``incomplete``: why the session did not run every selected test ('' when it did)."""
    from pytest_ragcheck.common.version import __version__

    return {
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "generator": f"pytest-ragcheck {__version__}",
        "pytest_version": pytest_version,
        "python_version": platform.python_version(),
        "platform": f"{sys.platform} ({platform.machine()})",
        "rootdir": rootdir,
        "ci": ci_info(),
        "incomplete": incomplete or None,
    }


def _summary(tests: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    counts = dict.fromkeys(TEST_STATUSES, 0)
    for test in tests:
        counts[test["status"]] = counts.get(test["status"], 0) + 1
    return {"tests": len(tests), **counts}


def build_document(
    records: Iterable[Mapping[str, Any]], *, run: Mapping[str, Any]
) -> dict[str, Any]:
    """The whole report: run metadata, a count per status, one entry per ragcheck call.

    Tests are in node-id order (xdist delivers them in completion order); several
    ``ragcheck(...)`` calls in one test get ``call`` = 0, 1, ...
    """
    seen: dict[str, int] = {}
    tests = []
    for record in sorted(records, key=lambda r: str(r["nodeid"])):
        nodeid = str(record["nodeid"])
        call = seen.get(nodeid, 0)
        seen[nodeid] = call + 1
        tests.append(normalise(record, call))
    return {
        "schema_version": SCHEMA_VERSION,
        "run": dict(run),
        "summary": _summary(tests),
        "tests": tests,
    }
