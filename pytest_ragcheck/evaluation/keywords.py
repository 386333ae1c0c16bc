"""Marker keywords and fixture-call overrides read into :class:`Settings`.

Precedence: fixture-call overrides > marker keywords > CLI > ini > defaults. Validation lives
here (not in the plugin) so that the library API and the pytest surface give the same messages:
unknown keywords and metric names list the valid ones and suggest the closest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from pytest_ragcheck.common.errors import ConfigError, did_you_mean
from pytest_ragcheck.common.validate import (
    MAX_TIMEOUT,
    choice,
    concurrency_value,
    integer,
    mapping,
    number,
    str_list,
    timeout_seconds,
)
from pytest_ragcheck.evaluation.bounds import Threshold, layer_thresholds
from pytest_ragcheck.evaluation.facet_settings import facet_settings
from pytest_ragcheck.evaluation.settings import (
    DEFAULT_K,
    DEFAULT_MIN_TAG_CASES,
    DEFAULT_TIMEOUT,
    MARKER_KEYWORDS,
    Defaults,
    JudgeSettings,
    Settings,
)
from pytest_ragcheck.metrics.names import DEFAULT_METRICS, MetricSpec, parse_metric
from pytest_ragcheck.metrics.registry import AGREEMENT_PROMPTS

__all__ = ["Threshold", "build_settings"]


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
    significance = None if significance_raw is None else number("significance", significance_raw)
    per_tag = kw.get("per_tag", False)
    if not isinstance(per_tag, bool):
        raise ConfigError(f"per_tag must be True or False, got {per_tag!r}")
    min_tag_cases = integer("min_tag_cases", kw.get("min_tag_cases", DEFAULT_MIN_TAG_CASES), lo=1)
    if significance is not None and not 0.0 < significance < 1.0:
        raise ConfigError(
            "significance must be a level strictly between 0 and 1 (e.g. 0.05) or None, "
            f"got {significance_raw!r}"
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
    from pytest_ragcheck.answers.refusal import DEFAULT_REFUSAL_PATTERNS, refusal_patterns

    refusals = kw.get("refusal_patterns", defaults.refusal_patterns)
    if refusals is None:
        refusals = DEFAULT_REFUSAL_PATTERNS
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
        refusal_patterns=refusal_patterns(refusals, where="refusal_patterns"),
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
    """``judge_kappa``, ``aspect_kappa`` and ``judge_consistency`` measure the verdicts of
    other judge metrics."""
    names = {s.base for s in specs}
    prompts = {s.metric.prompt for s in specs} - {None}
    if "judge_kappa" in names and not prompts.intersection(AGREEMENT_PROMPTS):
        raise ConfigError(
            "judge_kappa compares the judge's relevance verdicts with the human labels: add "
            "llm_relevancy, llm_precision or llm_ndcg to metrics"
        )
    if "aspect_kappa" in names and "covers" not in prompts:
        raise ConfigError(
            "aspect_kappa compares the judge's aspect coverage with the human subtopics: add "
            "llm_aspect_recall or llm_alpha_ndcg to metrics"
        )
    if "judge_consistency" in names and (not prompts or judge.samples < 2):
        raise ConfigError(
            "judge_consistency (min_judge_consistency) measures how often repeated judge "
            "samples agree: it needs a judge metric (e.g. llm_relevancy) and judge_samples >= 2, "
            f"since a single sample always agrees with itself (got judge_samples={judge.samples})"
        )
