"""Records for the report renderer tests, built through the real Result/Verdict/record code.

Five tests with every status a report must show: a regression against the baseline (with
per-case baseline values and judge verdicts), a floor violation without baseline, an
improvement, a clean pass and retriever errors. Values are seeded pseudo-random numbers whose
aggregates are the means of the per-case values, as in a real run.
"""

from __future__ import annotations

import dataclasses
import math
import random
from typing import Any

from pytest_ragcheck.evaluation.keywords import build_settings
from pytest_ragcheck.evaluation.result import CaseResult, HitRecord, Result
from pytest_ragcheck.gate.verdict import CaseChange, MetricCheck, check_floors
from pytest_ragcheck.metrics.names import parse_metric
from pytest_ragcheck.report.record import build_record

QUERIES = (
    "how do I reset my password",
    "refund policy for annual plans",
    "export data to csv",
    "two-factor authentication setup",
    "delete my account",
    "change billing address",
    "api rate limits",
    "invite a team member",
    "single sign-on with okta",
    "download invoices",
    "webhooks retry schedule",
    "supported file formats",
)
NODE = "tests/test_search.py::"


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values) if values else 0.0


def make_result(
    *,
    names: tuple[str, ...],
    values: dict[str, list[float]],
    k: int = 10,
    source: str = "golden/faq.jsonl",
    errors: dict[int, str] | None = None,
    judge: dict[int, dict[str, list[dict[str, Any]]]] | None = None,
    text_len: int = 120,
) -> Result:
    """A Result with one case per value; case i gets hits whose first relevant one sits where
    its MRR says (1/value)."""
    specs = tuple(parse_metric(n, k) for n in (*names, "latency_p50_ms", "latency_p95_ms"))
    n = len(next(iter(values.values())))
    errors = errors or {}
    cases = []
    for i in range(n):
        query = QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" ({i})")
        cid = f"q{i + 1:02d}"
        if i in errors:
            cases.append(
                CaseResult(
                    id=cid,
                    query=query,
                    status="error",
                    error=errors[i],
                    traceback="Traceback (most recent call last):\n  ...\n" + errors[i],
                    latency_ms=30.0,
                    values={name: 0.0 for name in names},
                )
            )
            continue
        mrr = values.get(f"mrr@{k}", [1.0] * n)[i]
        first = round(1 / mrr) if mrr > 0 else None
        hits = []
        for rank in range(1, 6):
            relevant = rank == first
            hits.append(
                HitRecord(
                    rank=rank,
                    id=f"doc-{(i * 7 + rank * 3) % 40:03d}",
                    text=(f"Chunk {rank} for '{query}'. " * 20)[:text_len],
                    score=round(1.0 - rank * 0.07, 4),
                    grade=2 if relevant else 0,
                )
            )
        cases.append(
            CaseResult(
                id=cid,
                query=query,
                tags=("faq",) if i % 2 else ("faq", "billing"),
                hits=hits,
                n_relevant=1,
                values={name: values[name][i] for name in names},
                latency_ms=12.0 + i,
                judge=(judge or {}).get(i, {}),
            )
        )
    metrics = {name: _mean([c.values[name] for c in cases if name in c.values]) for name in names}
    metrics["latency_p50_ms"] = 17.5
    metrics["latency_p95_ms"] = 23.4
    return Result(
        metrics=metrics,
        cases=cases,
        k=k,
        specs=specs,
        golden_hash="sha256:" + "ab" * 8,
        golden_source=source,
        info={},
    )


def _compare(
    result: Result,
    checks: dict[str, MetricCheck],
    baseline: dict[str, float],
    *,
    allowed: float = 0.02,
    p_values: dict[str, float] | None = None,
) -> None:
    for name, base in baseline.items():
        check = checks[name]
        delta = check.value - base
        status = check.status
        if status == "pass":
            status = "regressed" if delta < -allowed else "improved" if delta > allowed else "pass"
        checks[name] = dataclasses.replace(
            check,
            baseline=base,
            delta=delta,
            allowed=allowed,
            status=status,
            p_value=(p_values or {}).get(name),
        )


def _record(nodeid: str, result: Result, marker: dict[str, Any], **parts: Any) -> dict[str, Any]:
    settings = build_settings({"cases": result.golden_source, **marker})
    verdict = check_floors(
        result, settings, header=f"{result.golden_source} ({len(result.cases)} cases, k={result.k})"
    )
    base_cases = parts.get("base_cases")
    if "baseline" in parts:
        _compare(result, verdict.checks, parts["baseline"], p_values=parts.get("p_values"))
    verdict.case_changes.extend(parts.get("case_changes", []))
    verdict.problems.extend(parts.get("problems", []))
    baseline_info = None
    if "baseline" in parts:
        baseline_info = {
            "status": "compared",
            "path": f"tests/__ragcheck__/test_search/{nodeid.split('::')[-1]}.json",
            "values": dict(parts["baseline"]),
        }
        if base_cases:
            baseline_info["cases"] = base_cases
    record = build_record(
        nodeid=nodeid, result=result, verdict=verdict, settings=settings, baseline=baseline_info
    )
    record["outcome"] = "failed" if verdict.failed else "passed"
    return record


def regressed_record(n: int = 12, seed: int = 7) -> dict[str, Any]:
    """mrr@10 fell beyond tolerance; per-case baseline values and judge verdicts included."""
    rng = random.Random(seed)
    names = ("mrr@10", "recall@10", "ndcg@10", "llm_relevancy@10")
    before = {
        "mrr@10": [rng.choice([1.0, 1.0, 0.5, 1 / 3]) for _ in range(n)],
        "recall@10": [rng.choice([1.0, 1.0, 0.5]) for _ in range(n)],
        "ndcg@10": [round(rng.uniform(0.5, 1.0), 4) for _ in range(n)],
        "llm_relevancy@10": [rng.choice([0.6, 0.8, 1.0]) for _ in range(n)],
    }
    now = {name: list(vals) for name, vals in before.items()}
    # Three cases lost their first hit; one improved.
    now["mrr@10"][2] = 0.25
    now["mrr@10"][5] = 0.2
    now["mrr@10"][9] = 0.5 if before["mrr@10"][9] == 1.0 else 0.2
    now["mrr@10"][0] = 1.0
    judge = {
        2: {
            "llm_relevancy@10": [
                {
                    "rank": 1,
                    "verdict": "no",
                    "reason": "About invoices, not passwords.",
                    "cached": True,
                },
                {
                    "rank": 2,
                    "verdict": "no",
                    "reason": "Mentions login but not reset.",
                    "cached": True,
                },
                {"rank": 3, "verdict": "no", "reason": "Unrelated billing text.", "cached": False},
                {
                    "rank": 4,
                    "verdict": "yes",
                    "reason": "Explains the reset link flow.",
                    "cached": False,
                },
                {"rank": 5, "verdict": "no", "reason": "Marketing copy.", "cached": False},
            ]
        }
    }
    result = make_result(names=names, values=now, judge=judge)
    result.info["judge"] = {"calls": 18, "cached": 42, "missing": 0, "failure": None}
    base_aggr = {name: _mean(vals) for name, vals in before.items()}
    changes = []
    for i in sorted(range(n), key=lambda j: now["mrr@10"][j] - before["mrr@10"][j])[:3]:
        changes.append(
            CaseChange(
                id=f"q{i + 1:02d}",
                query=QUERIES[i],
                metric="mrr@10",
                before=before["mrr@10"][i],
                after=now["mrr@10"][i],
            )
        )
    base_cases = {f"q{i + 1:02d}": {name: before[name][i] for name in names} for i in range(n)}
    return _record(
        NODE + "test_faq",
        result,
        {"metrics": list(names), "judge_model": "gpt-4o-mini"},
        baseline=base_aggr,
        base_cases=base_cases,
        case_changes=changes,
        p_values={"mrr@10": 0.003},
    )


def floor_record() -> dict[str, Any]:
    values = {
        "recall@5": [1.0, 0.5, 0.0, 1.0, 0.5, 0.0, 1.0, 0.5],
        "mrr@5": [1.0, 0.5, 0.0, 1.0, 1.0, 0.0, 0.5, 1.0],
    }
    result = make_result(
        names=("recall@5", "mrr@5"), values=values, k=5, source="golden/manual.json"
    )
    return _record(
        NODE + "test_manual",
        result,
        {"k": 5, "metrics": ["recall@5", "mrr@5"], "min_recall_at_5": 0.6, "baseline": False},
    )


def improved_record() -> dict[str, Any]:
    values = {"ndcg@10": [0.9, 0.8, 0.7, 0.6, 0.75, 0.85], "mrr@10": [1.0, 1.0, 0.5, 0.5, 1.0, 1.0]}
    result = make_result(names=("ndcg@10", "mrr@10"), values=values, source="golden/support.jsonl")
    return _record(
        NODE + "test_support",
        result,
        {"metrics": ["ndcg@10", "mrr@10"]},
        baseline={"ndcg@10": 0.70, "mrr@10": 5 / 6},
    )


def passed_record(nodeid: str = NODE + "test_smoke") -> dict[str, Any]:
    values = {"hit_rate@10": [1.0, 1.0, 1.0, 0.0], "mrr@10": [1.0, 0.5, 1.0, 0.0]}
    result = make_result(
        names=("hit_rate@10", "mrr@10"), values=values, source="golden/smoke.jsonl"
    )
    return _record(
        nodeid,
        result,
        {"metrics": ["hit_rate@10", "mrr@10"], "min_mrr": 0.5},
        baseline={"hit_rate@10": 0.75, "mrr@10": 0.625},
    )


def error_record() -> dict[str, Any]:
    """Two cases failed in the retriever (check_floors turns that into a problem)."""
    values = {"mrr@10": [1.0, 0.0, 1.0, 0.0, 0.5]}
    result = make_result(
        names=("mrr@10",),
        values=values,
        source="golden/api.jsonl",
        errors={1: "TimeoutError: no answer in 60 s", 3: "ConnectionError: refused"},
    )
    return _record(NODE + "test_flaky_api", result, {"metrics": ["mrr@10"]})


def sample_records() -> list[dict[str, Any]]:
    """All five, in the (completion) order xdist might deliver them."""
    return [passed_record(), regressed_record(), error_record(), improved_record(), floor_record()]


def sample_document() -> dict[str, Any]:
    from pytest_ragcheck.report.document import build_document

    run = {
        "created_at": "2025-01-01T00:00:00+00:00",
        "generator": "pytest-ragcheck 0.1.0",
        "pytest_version": "8.3.0",
        "python_version": "3.11.7",
        "platform": "linux (x86_64)",
        "rootdir": "/project",
        "ci": None,
    }
    return build_document(sample_records(), run=run)
