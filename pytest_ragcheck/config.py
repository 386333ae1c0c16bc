"""Settings for one ragcheck run: fixture-call overrides > marker keywords > CLI > ini > defaults.

Validation lives here (not in the plugin) so that the library API and the pytest surface give
the same messages: unknown keywords and metric names list the valid ones and suggest the
closest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pytest_ragcheck.bounds import Threshold, layer_thresholds
from pytest_ragcheck.concurrency import AUTO, Concurrency
from pytest_ragcheck.errors import ConfigError, did_you_mean
from pytest_ragcheck.facet_settings import FACET_KEYWORDS, FacetSettings, facet_settings
from pytest_ragcheck.names import DEFAULT_METRICS, MetricSpec, parse_metric
from pytest_ragcheck.registry import AGREEMENT_PROMPTS
from pytest_ragcheck.threads import MAX_TIMEOUT
from pytest_ragcheck.validate import (
    choice,
    concurrency_value,
    integer,
    mapping,
    number,
    str_list,
    timeout_seconds,
)

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_K",
    "DEFAULT_TIMEOUT",
    "DEFAULT_TOLERANCE",
    "MARKER_KEYWORDS",
    "Defaults",
    "JudgeSettings",
    "Settings",
    "Threshold",
    "build_settings",
]

DEFAULT_K = 10
DEFAULT_TOLERANCE = 0.02
#: Level of the paired test a drop beyond tolerance must pass to fail (``significance=None``:
#: tolerance alone).
DEFAULT_SIGNIFICANCE = 0.05
#: ``per_tag=True`` gates tags with at least this many cases.
DEFAULT_MIN_TAG_CASES = 10
#: Retriever calls at once: ``"auto"`` measures the first calls and runs CPU-bound retrievers
#: serially, I/O-bound and async ones 16 at a time (see :mod:`pytest_ragcheck.concurrency`).
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


def _valid_keywords_text() -> str:
    return ", ".join(MARKER_KEYWORDS) + ", min_<metric>, max_<latency metric>"


def _tolerance_name(name: str, k: int | None) -> str:
    try:
        spec = parse_metric(name, k)
    except ConfigError as exc:
        raise ConfigError(f"tolerances: {exc}") from None
    if spec.kind == "latency":  # it would be ignored: latency has no baseline to drop from
        raise ConfigError(
            f"tolerances: {name!r} is a latency, which is not compared with the baseline; "
            f"bound it with max_{spec.name}=<milliseconds>"
        )
    return spec.name


def _tags(value: object) -> tuple[str, ...]:
    """``tags=``: an empty selection is an error, not "every case" (an empty list is usually a
    comprehension that matched nothing); a blank tag is one no case can carry."""
    tags = str_list("tags", value)
    if not tags:
        raise ConfigError(
            f"tags={value!r} names no tag, which would select no case; to run every case, "
            "leave tags out (or pass tags=None)"
        )
    for tag in tags:
        if not tag.strip():
            raise ConfigError(f"tags: {tag!r} is an empty tag, which no case can carry; remove it")
    return tags


def _check_keywords(kwargs: Mapping[str, Any], where: str) -> None:
    for key in kwargs:
        if key in MARKER_KEYWORDS:
            continue
        if key.startswith(("min_", "max_")):
            continue  # validated with the metric name
        raise ConfigError(
            f"{where}: unknown keyword {key!r}{did_you_mean(key, MARKER_KEYWORDS)}; "
            f"valid keywords: {_valid_keywords_text()}"
        )


def build_settings(
    marker: Mapping[str, Any],
    overrides: Mapping[str, Any] | None = None,
    *,
    defaults: Defaults | None = None,
    where: str = "@ragcheck",
) -> Settings:
    """Merge and validate marker keywords, call overrides and CLI/ini defaults."""
    defaults = defaults or Defaults()
    overrides = overrides or {}
    _check_keywords(marker, where)
    _check_keywords(overrides, "ragcheck(...)")
    kw: dict[str, Any] = {**marker, **overrides}

    k_raw = kw.get("k", DEFAULT_K)
    k = None if k_raw is None else integer("k", k_raw, lo=1)

    metrics_raw = kw.get("metrics", DEFAULT_METRICS)
    names = str_list("metrics", metrics_raw)
    if not names:
        raise ConfigError("metrics must name at least one metric")
    specs: list[MetricSpec] = []
    for name in names:
        spec = parse_metric(name, k)
        if spec not in specs:
            specs.append(spec)

    # The call's bounds win over the marker's, whichever spelling either uses.
    outranked = {key: value for key, value in marker.items() if key not in overrides}
    thresholds = {
        **layer_thresholds(outranked, k, MARKER_KEYWORDS),
        **layer_thresholds(overrides, k, MARKER_KEYWORDS),
    }
    for t in thresholds.values():
        if t.spec not in specs and t.spec.kind != "latency":
            specs.append(t.spec)

    tolerance = number("tolerance", kw.get("tolerance", defaults.tolerance), lo=0.0)
    tolerances_raw = mapping(
        "tolerances",
        kw.get("tolerances"),
        "metric name -> allowed drop",
        hint=" (for one tolerance for every metric, use tolerance=)",
    )
    tolerances = {
        _tolerance_name(n, k): number(f"tolerances[{n!r}]", v, lo=0.0)
        for n, v in tolerances_raw.items()
    }
    significance_raw = kw.get("significance", defaults.significance)
    significance = (
        None
        if significance_raw is None
        else number("significance", significance_raw, lo=0.0, hi=1.0)
    )
    per_tag = kw.get("per_tag", False)
    if not isinstance(per_tag, bool):
        raise ConfigError(f"per_tag must be True or False, got {per_tag!r}")
    min_tag_cases = integer("min_tag_cases", kw.get("min_tag_cases", DEFAULT_MIN_TAG_CASES), lo=1)
    if significance is not None and not 0.0 < significance < 1.0:
        raise ConfigError(
            f"significance must be between 0 and 1 (e.g. 0.05), got {significance_raw!r}"
        )

    baseline = kw.get("baseline", True)
    if not isinstance(baseline, bool):
        raise ConfigError(f"baseline must be True or False, got {baseline!r}")
    tags_raw = kw.get("tags")
    tags = None if tags_raw is None else _tags(tags_raw)
    split = kw.get("split")
    if split is not None and not isinstance(split, str):
        raise ConfigError(f"split must be a string, got {split!r}")
    concurrency = concurrency_value(kw.get("concurrency", defaults.concurrency))
    timeout_raw = kw.get("timeout", DEFAULT_TIMEOUT)
    timeout = None if timeout_raw is None else timeout_seconds("timeout", timeout_raw)
    batch_raw = kw.get("batch_size")
    batch_size = None if batch_raw is None else integer("batch_size", batch_raw, lo=1)
    on_error = choice("on_error", kw.get("on_error", "fail"), ("fail", "zero"))
    empty = choice("empty", kw.get("empty", "error"), ("error", "skip", "zero"))
    id_key = kw.get("id_key")
    if id_key is not None and not isinstance(id_key, str):
        raise ConfigError(f"id_key must be a string, got {id_key!r}")
    if id_key is not None and not id_key.strip():  # no hit has it: every case would fail
        raise ConfigError(
            f"id_key must name the id's metadata key or attribute (e.g. 'doc_id'), got {id_key!r}"
        )

    judge = _judge_settings(kw, defaults.judge)
    _check_judge_statistics(specs, judge)
    return Settings(
        cases=kw.get("cases"),
        k=k,
        metrics=tuple(specs),
        thresholds=tuple(thresholds.values()),
        tolerance=tolerance,
        tolerances=tolerances,
        significance=significance,
        per_tag=per_tag,
        min_tag_cases=min_tag_cases,
        baseline=baseline,
        tags=tags,
        split=split,
        concurrency=concurrency,
        timeout=timeout,
        batch_size=batch_size,
        on_error=on_error,  # type: ignore[arg-type]
        empty=empty,  # type: ignore[arg-type]
        id_key=id_key,
        judge=judge,
        facets=facet_settings(kw, authority=defaults.authority),
    )


def _judge_settings(kw: Mapping[str, Any], base: JudgeSettings) -> JudgeSettings:
    model = kw.get("judge_model", base.model)
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise ConfigError(f"judge_model must be a model name string, got {model!r}")
    api_base = kw.get("judge_api_base", base.api_base)
    if api_base is not None and not isinstance(api_base, str):
        raise ConfigError(f"judge_api_base must be a URL string, got {api_base!r}")
    samples = integer("judge_samples", kw.get("judge_samples", base.samples), lo=1)
    max_calls_raw = kw.get("judge_max_calls", base.max_calls)
    max_calls = None if max_calls_raw is None else integer("judge_max_calls", max_calls_raw, lo=0)
    concurrency = integer("judge_concurrency", kw.get("judge_concurrency", base.concurrency), lo=1)
    timeout = number(
        "judge_timeout", kw.get("judge_timeout", base.timeout), lo=0.001, hi=MAX_TIMEOUT
    )
    disagreement = choice(
        "judge_disagreement", kw.get("judge_disagreement", base.disagreement), ("vote", "abstain")
    )
    if disagreement == "abstain" and samples < 2:
        raise ConfigError(
            "judge_disagreement='abstain' leaves out the items whose judge_samples disagree, "
            f"so it needs judge_samples >= 2 (got judge_samples={samples})"
        )
    embedding_model = kw.get("judge_embedding_model", base.embedding_model)
    if embedding_model is not None and (
        not isinstance(embedding_model, str) or not embedding_model.strip()
    ):
        raise ConfigError(
            f"judge_embedding_model must be a model name string, got {embedding_model!r}"
        )
    return replace(
        base,
        model=model,
        embedding_model=embedding_model or None,
        api_base=api_base or None,
        samples=samples,
        max_calls=max_calls,
        concurrency=concurrency,
        timeout=timeout,
        disagreement=disagreement,  # type: ignore[arg-type]
    )


def _check_judge_statistics(specs: Sequence[MetricSpec], judge: JudgeSettings) -> None:
    """``judge_kappa`` and ``judge_consistency`` measure the verdicts of other judge metrics."""
    names = {s.base for s in specs}
    prompts = {s.metric.prompt for s in specs} - {None}
    if "judge_kappa" in names and not prompts.intersection(AGREEMENT_PROMPTS):
        raise ConfigError(
            "judge_kappa compares the judge's relevance verdicts with the human labels: add "
            "llm_relevancy, llm_precision or llm_ndcg to metrics"
        )
    if "judge_consistency" in names and (not prompts or judge.samples < 2):
        raise ConfigError(
            "judge_consistency (min_judge_consistency) measures how often repeated judge "
            "samples agree: it needs a judge metric (e.g. llm_relevancy) and judge_samples >= 2, "
            f"since a single sample always agrees with itself (got judge_samples={judge.samples})"
        )
