"""Latency statistics of a run: the registered latency metrics from per-case latencies."""

from __future__ import annotations

import math
from collections.abc import Sequence

from pytest_ragcheck.metrics.registry import metrics_of_kind

__all__ = ["latency_percentiles"]


def latency_percentiles(latencies_ms: Sequence[float]) -> dict[str, float]:
    """Every latency metric (``latency_p50_ms``, ``latency_p95_ms``, ``latency_max_ms``).

    Each is its declared quantile of the per-case latencies, with linear interpolation between
    the two closest ranks (numpy's default ``method="linear"``: position ``q * (n - 1)`` in the
    sorted values); quantile 1.0 is the maximum. With no latencies every value is 0.0, so that
    a run with no successful call still has finite numbers.
    """
    values = sorted(map(float, latencies_ms))
    if any(map(math.isnan, values)):
        raise ValueError("latencies must be numbers, got NaN")
    out: dict[str, float] = {}
    for metric in metrics_of_kind("latency"):
        if metric.quantile is None:  # pragma: no cover - every latency metric declares one
            raise AssertionError(metric.name)
        out[metric.name] = _quantile(values, metric.quantile)
    return out


def _quantile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    if q >= 1.0:
        return values[-1]
    pos = q * (len(values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(values) - 1)
    frac = pos - lo
    return values[lo] + (values[hi] - values[lo]) * frac
