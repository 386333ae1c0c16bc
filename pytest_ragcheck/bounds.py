"""Absolute bounds of one settings layer: ``min_<metric>``/``max_<metric>`` keywords and
``thresholds={name: bound}``.

The marker and the fixture call are two layers: ``config.build_settings`` reads each here and
lets the call's bounds replace the marker's, whichever spelling either uses. Inside one layer
a metric bounded twice with different values is an error, never a silent choice.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pytest_ragcheck.errors import ConfigError
from pytest_ragcheck.names import MetricSpec, parse_metric
from pytest_ragcheck.registry import METRICS
from pytest_ragcheck.validate import mapping, number

__all__ = ["Threshold", "layer_thresholds"]


@dataclass(frozen=True, slots=True)
class Threshold:
    """An absolute bound: ``min`` for quality metrics, ``max`` for latency."""

    spec: MetricSpec
    bound: float
    kind: Literal["min", "max"]

    @property
    def name(self) -> str:
        return self.spec.name


def _threshold(spec: MetricSpec, bound: object, *, source: str) -> Threshold:
    if not spec.higher_is_better:
        return Threshold(spec, number(source, bound, lo=0.0), "max")
    return Threshold(spec, number(source, bound, lo=0.0, hi=1.0), "min")


def _threshold_keyword(key: str, value: object, k: int | None) -> Threshold:
    prefix, _, metric = key.partition("_")
    try:
        spec = parse_metric(metric, k)
    except ConfigError as exc:
        base, _, cutoff = metric.rpartition("_")  # min_mrr_10: the "at" left out
        count = (cutoff.isascii() and cutoff.isdigit()) or cutoff == "all"
        if count and base in METRICS and METRICS[base].cutoff:
            raise ConfigError(
                f"{key}: write the cutoff with _at_: {prefix}_{base}_at_{cutoff} "
                f"(for {base}@{cutoff})"
            ) from None
        raise ConfigError(f"{key}: {exc}") from None
    if prefix == "max" and spec.higher_is_better:
        raise ConfigError(
            f"{key}: max_ bounds are for latency metrics and untrusted; for {spec.base} use "
            f"min_{metric}"
        )
    if prefix == "min" and not spec.higher_is_better:
        what = "latency" if spec.kind == "latency" else spec.base
        raise ConfigError(f"{key}: {what} is lower-is-better; use max_{metric}")
    return _threshold(spec, value, source=key)


def layer_thresholds(
    kw: Mapping[str, Any], k: int | None, keywords: Collection[str]
) -> dict[str, Threshold]:
    """Metric name -> bound of one layer; ``keywords`` are the other keywords (a
    ``min_tag_cases`` is no bound)."""
    found: dict[str, tuple[str, Threshold]] = {}

    def add(source: str, threshold: Threshold) -> None:
        prior = found.get(threshold.name)
        if prior is not None and prior[1].bound != threshold.bound:
            raise ConfigError(
                f"{threshold.name} is bounded twice: {prior[0]}={prior[1].bound:g} and "
                f"{source}={threshold.bound:g}; keep one"
            )
        found[threshold.name] = (source, threshold)

    for key, value in kw.items():
        if key.startswith(("min_", "max_")) and key not in keywords:
            add(key, _threshold_keyword(key, value, k))
    for name, value in mapping("thresholds", kw.get("thresholds"), "metric name -> bound").items():
        try:
            spec = parse_metric(name, k)
        except ConfigError as exc:
            raise ConfigError(f"thresholds: {exc}") from None
        add(f"thresholds[{name!r}]", _threshold(spec, value, source=f"thresholds[{name!r}]"))
    return {name: threshold for name, (_, threshold) in found.items()}
