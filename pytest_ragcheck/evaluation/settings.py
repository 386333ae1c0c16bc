"""What one ragcheck run is configured with: the defaults, the judge's settings, ``Settings``.

Plain data, cheap to import: the plugin reads its options into :class:`Defaults` when a
session starts, before it knows whether any ragcheck test exists. The marker keywords are read
and validated into :class:`Settings` by :mod:`pytest_ragcheck.evaluation.keywords`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pytest_ragcheck.common.validate import AUTO, Concurrency
from pytest_ragcheck.evaluation.facet_settings import FACET_KEYWORDS, FacetSettings

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.bounds import Threshold
    from pytest_ragcheck.metrics.names import MetricSpec

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_K",
    "DEFAULT_TIMEOUT",
    "DEFAULT_TOLERANCE",
    "MARKER_KEYWORDS",
    "Defaults",
    "JudgeSettings",
    "Settings",
]

DEFAULT_K = 10
DEFAULT_TOLERANCE = 0.02
#: Level of the paired test a drop beyond tolerance must pass to fail (``significance=None``:
#: tolerance alone).
DEFAULT_SIGNIFICANCE = 0.05
#: ``per_tag=True`` gates tags with at least this many cases.
DEFAULT_MIN_TAG_CASES = 10
#: Retriever calls at once: ``"auto"`` measures the first calls and runs CPU-bound retrievers
#: serially, I/O-bound and async ones 16 at a time (see :mod:`pytest_ragcheck.run.concurrency`).
DEFAULT_CONCURRENCY: Concurrency = AUTO
#: Seconds one retriever call may take before the case is recorded as timed out.
DEFAULT_TIMEOUT = 60.0
DEFAULT_JUDGE_CONCURRENCY = 8

OnError = Literal["fail", "zero"]
Empty = Literal["error", "skip", "zero"]
#: What a judgment whose ``judge_samples`` disagree counts as: the majority vote / mean, or
#: nothing (left out of the metric and counted).
Disagreement = Literal["vote", "abstain"]

#: Every keyword the marker and the fixture call accept, besides ``min_<metric>`` and
#: ``max_<latency metric>``.
MARKER_KEYWORDS: tuple[str, ...] = (
    "cases",
    "k",
    "metrics",
    "thresholds",
    "tolerance",
    "tolerances",
    "significance",
    "per_tag",
    "min_tag_cases",
    "baseline",
    "tags",
    "split",
    "concurrency",
    "timeout",
    "batch_size",
    "on_error",
    "empty",
    "id_key",
    "judge_model",
    "judge_api_base",
    "judge_samples",
    "judge_max_calls",
    "judge_concurrency",
    "judge_timeout",
    "judge_disagreement",
    "judge_embedding_model",
    "refusal_patterns",
    *FACET_KEYWORDS,
)


@dataclass(frozen=True, slots=True)
class JudgeSettings:
    """How to reach the LLM judge and how much it may cost."""

    model: str | None = None
    api_base: str | None = None
    samples: int = 1
    max_calls: int | None = None
    concurrency: int = DEFAULT_JUDGE_CONCURRENCY
    timeout: float = 60.0
    #: Verdict cache folder; ``None`` disables the cache.
    cache_dir: Path | None = None
    #: Never call the judge: a cache miss is an error (for CI).
    offline: bool = False
    #: ``judge_samples`` >= 2: what a judgment whose samples disagree counts as.
    disagreement: Disagreement = "vote"
    #: litellm embedding model for ``answer_relevancy`` / ``answer_correctness`` (SPEC §10).
    embedding_model: str | None = None


@dataclass(frozen=True, slots=True)
class Defaults:
    """Values that come from the command line or the ini file (the marker overrides them)."""

    tolerance: float = DEFAULT_TOLERANCE
    concurrency: Concurrency = DEFAULT_CONCURRENCY
    significance: float | None = DEFAULT_SIGNIFICANCE
    judge: JudgeSettings = field(default_factory=JudgeSettings)
    #: ini ``ragcheck_refusal_patterns`` (``None``: the default list).
    refusal_patterns: tuple[str, ...] | None = None
    #: ini ``ragcheck_authority``: the authority table's path.
    authority: str | None = None


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything one evaluation needs, validated."""

    cases: Any = None
    k: int | None = DEFAULT_K
    #: Metrics to compute and report, in order, thresholds' metrics included.
    metrics: tuple[MetricSpec, ...] = ()
    thresholds: tuple[Threshold, ...] = ()
    tolerance: float = DEFAULT_TOLERANCE
    tolerances: Mapping[str, float] = field(default_factory=dict)
    significance: float | None = DEFAULT_SIGNIFICANCE
    #: Gate each tag with at least ``min_tag_cases`` cases on its own (Holm-corrected).
    per_tag: bool = False
    min_tag_cases: int = DEFAULT_MIN_TAG_CASES
    baseline: bool = True
    tags: tuple[str, ...] | None = None
    split: str | None = None
    concurrency: Concurrency = DEFAULT_CONCURRENCY
    timeout: float | None = DEFAULT_TIMEOUT
    #: Queries per retriever call (the retriever takes a list); ``None``: one query per call.
    batch_size: int | None = None
    on_error: OnError = "fail"
    empty: Empty = "error"
    id_key: str | None = None
    judge: JudgeSettings = field(default_factory=JudgeSettings)
    #: Regular expressions that make an answer a refusal (SPEC §13).
    refusal_patterns: tuple[str, ...] = ()
    #: Diversity and authority settings (``diversity_alpha``, ``authority``, ...).
    facets: FacetSettings = field(default_factory=FacetSettings)

    @property
    def metric_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.metrics)

    @property
    def needs_relevance(self) -> bool:
        """True when a metric needs judged documents (so every case must have some)."""
        return any("relevance" in s.metric.needs for s in self.metrics)

    @property
    def needs_sources(self) -> bool:
        """True when a metric reads the hits' sources (they are read only then)."""
        return any("sources" in s.metric.needs for s in self.metrics)

    @property
    def judge_metrics(self) -> tuple[MetricSpec, ...]:
        return tuple(s for s in self.metrics if s.kind == "judge")

    def allowed_drop(self, name: str) -> float:
        """The tolerance for one metric (per-metric ``tolerances`` win)."""
        return float(self.tolerances.get(name, self.tolerance))

    def replace(self, **changes: Any) -> Settings:
        return replace(self, **changes)
