"""Metric names: ``name@k`` parsing and the name lists derived from the registry.

Kept free of numpy so that option and marker validation stays cheap. A name without ``@``
takes the run's ``k`` so that every reported name carries its cutoff (``mrr`` -> ``mrr@10``);
metrics declared without a cutoff (``r_precision``, latency) keep their bare name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_ragcheck.common.errors import ConfigError, did_you_mean
from pytest_ragcheck.metrics.registry import METRICS, Kind, Metric, metrics_of_kind

__all__ = [
    "ANSWER_METRICS",
    "AUTHORITY_METRICS",
    "DEFAULT_METRICS",
    "DIVERSITY_METRICS",
    "JUDGE_METRICS",
    "LATENCY_METRICS",
    "RANK_METRICS",
    "MetricSpec",
    "all_metric_names",
    "parse_metric",
]

#: Rank metrics computed from ranked ids and graded relevance (``pytest_ragcheck.metrics``).
RANK_METRICS: tuple[str, ...] = tuple(
    m.name for m in metrics_of_kind("rank") if "relevance" in m.needs
)
#: Rank metrics over the cases' subtopic judgments (``pytest_ragcheck.metrics.diversity``).
DIVERSITY_METRICS: tuple[str, ...] = tuple(
    m.name for m in metrics_of_kind("rank") if "subtopics" in m.needs
)
#: Rank metrics over the hits' sources and an authority table.
AUTHORITY_METRICS: tuple[str, ...] = tuple(
    m.name for m in metrics_of_kind("rank") if "sources" in m.needs
)
#: Per-run latency statistics in milliseconds (lower is better, never snapshotted).
LATENCY_METRICS: tuple[str, ...] = tuple(m.name for m in metrics_of_kind("latency"))
#: Metrics that need an LLM judge (``pytest_ragcheck.judge``).
JUDGE_METRICS: tuple[str, ...] = tuple(m.name for m in metrics_of_kind("judge"))
#: Lexical answer metrics (``pytest_ragcheck.answers``): no LLM, a reference answer each.
ANSWER_METRICS: tuple[str, ...] = tuple(m.name for m in metrics_of_kind("answer"))
#: The marker's default ``metrics=``.
DEFAULT_METRICS: tuple[str, ...] = tuple(m.name for m in METRICS.values() if m.default)

_NAME_RE = re.compile(r"^(?P<base>[a-z_0-9]+?)(?:@(?P<k>[^@]*))?$")


def _is_count(text: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also accepts ``"²"``, which ``int`` refuses."""
    return text.isascii() and text.isdigit()


def all_metric_names() -> tuple[str, ...]:
    return tuple(METRICS)


@dataclass(frozen=True, slots=True, order=True)
class MetricSpec:
    """One metric at one cutoff; ``k=None`` means the whole ranking (or no cutoff at all)."""

    base: str
    k: int | None

    def __post_init__(self) -> None:
        if self.base not in METRICS:
            raise ValueError(f"unknown metric {self.base!r}; valid metrics: {', '.join(METRICS)}")

    @property
    def metric(self) -> Metric:
        """The registry's declaration of this metric."""
        return METRICS[self.base]

    @property
    def name(self) -> str:
        """Canonical name, e.g. ``mrr@10``, ``mrr@all`` (whole ranking) or ``r_precision``."""
        if not self.metric.cutoff:
            return self.base
        return f"{self.base}@{'all' if self.k is None else self.k}"

    @property
    def kind(self) -> Kind:
        return self.metric.kind

    @property
    def higher_is_better(self) -> bool:
        return self.metric.higher_is_better

    def __str__(self) -> str:
        return self.name


def parse_metric(name: str, default_k: int | None) -> MetricSpec:
    """Parse ``"mrr"``, ``"mrr@10"`` or ``"recall_at_5"``-style names into a :class:`MetricSpec`.

    Raises :class:`ConfigError` naming the valid metrics and the closest match.
    """
    if not isinstance(name, str):
        raise ConfigError(f"metric names must be strings, got {type(name).__name__}: {name!r}")
    raw = name.strip()
    text = raw.lower()
    if "@" not in text and "_at_" in text:
        base_part, _, k_part = text.rpartition("_at_")
        if _is_count(k_part) or k_part == "all":
            text = f"{base_part}@{k_part}"
    m = _NAME_RE.match(text)
    base = m.group("base") if m else text.partition("@")[0]
    valid = all_metric_names()
    metric = METRICS.get(base)
    if metric is None:
        parts = [part.strip() for part in raw.split(",")]
        hint = (  # metrics="mrr, recall@5": one string where a list was meant
            f" (one metric per string: {parts!r})"
            if len(parts) > 1 and all(parts)
            else did_you_mean(base, valid)
        )
        raise ConfigError(
            f"unknown metric {raw!r}{hint}; valid metrics: "
            + ", ".join(valid)
            + " (add @k for a cutoff, e.g. 'recall@5')"
        )
    k_text = m.group("k") if m else None
    if not metric.cutoff:
        if k_text not in (None, ""):
            raise ConfigError(f"metric {base!r} takes no cutoff, got {raw!r}")
        return MetricSpec(base, None)
    if k_text is None:
        return MetricSpec(base, default_k)
    if k_text == "all":
        return MetricSpec(base, None)
    if not _is_count(k_text) or int(k_text) < 1:
        raise ConfigError(f"bad cutoff in metric {raw!r}: k must be an integer >= 1")
    return MetricSpec(base, int(k_text))
