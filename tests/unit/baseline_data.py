"""Small hand-made results for the baseline document and policy tests."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_ragcheck.baseline.document import BaselineDoc
from pytest_ragcheck.evaluation.keywords import build_settings
from pytest_ragcheck.evaluation.result import CaseResult, Result
from pytest_ragcheck.evaluation.settings import Settings
from pytest_ragcheck.metrics.names import parse_metric

GOLDEN_HASH = "3f" * 32


def make_result(
    values: Mapping[str, Mapping[str, float]],
    *,
    k: int | None = 10,
    golden_hash: str = GOLDEN_HASH,
    skipped: Sequence[str] = (),
    latency: bool = True,
    queries: Mapping[str, str] | None = None,
) -> Result:
    """A Result whose aggregates are the means of ``values`` (case id -> metric -> value)."""
    names: list[str] = []
    for case_values in values.values():
        for name in case_values:
            if name not in names:
                names.append(name)
    specs = tuple(parse_metric(n, k) for n in names)
    cases = [
        CaseResult(
            id=case_id,
            query=(queries or {}).get(case_id, f"query {case_id}"),
            values=dict(case_values),
            latency_ms=1.5,
        )
        for case_id, case_values in values.items()
    ]
    cases += [CaseResult(id=i, query=f"query {i}", status="skipped") for i in skipped]
    metrics = {
        n: math.fsum(c[n] for c in values.values()) / len(values) for n in (s.name for s in specs)
    }
    if latency:
        specs += (parse_metric("latency_p95_ms", k),)
        metrics["latency_p95_ms"] = 12.5
    return Result(metrics=metrics, cases=cases, k=k, specs=specs, golden_hash=golden_hash)


def per_case(
    metric: str, scores: Sequence[float], *, prefix: str = "q"
) -> dict[str, dict[str, float]]:
    """``{"q01": {metric: scores[0]}, ...}``."""
    return {f"{prefix}{i + 1:02d}": {metric: float(s)} for i, s in enumerate(scores)}


def settings(**marker: Any) -> Settings:
    marker.setdefault("metrics", ["mrr"])
    return build_settings(marker)


def stored(result: Result, *, precision: int = 4) -> BaselineDoc:
    """The baseline a run of ``result`` would have stored (through the real text format)."""
    return BaselineDoc.from_json(BaselineDoc.from_result(result, precision=precision).to_json())
