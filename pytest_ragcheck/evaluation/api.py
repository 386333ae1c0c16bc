"""The library API: evaluate a retriever from a script or notebook, no pytest needed."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_ragcheck.common.errors import ConfigError, did_you_mean
from pytest_ragcheck.evaluation.facet_settings import with_table
from pytest_ragcheck.evaluation.keywords import build_settings
from pytest_ragcheck.evaluation.settings import Defaults, JudgeSettings

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import Result
    from pytest_ragcheck.evaluation.settings import Settings
    from pytest_ragcheck.explore.systems import Comparison
    from pytest_ragcheck.golden import GoldenSet

__all__ = ["compare", "evaluate"]


def evaluate(
    retriever: Any,
    cases: str | os.PathLike[str] | Sequence[Any],
    *,
    k: int | None = 10,
    metrics: str | Sequence[str] | None = None,
    judge: str | Mapping[str, Any] | JudgeSettings | None = None,
    **options: Any,
) -> Result:
    """Evaluate ``retriever`` on a golden set and return the :class:`~pytest_ragcheck.Result`.

    ``cases`` is a path (``.jsonl``, ``.json`` or a BEIR folder; relative paths resolve against
    the current directory) or a list of cases/dicts. ``judge`` is a judge model name, a dict of
    ``JudgeSettings`` fields (``model``, ``api_base``, ``cache_dir``, ``offline``...) or a
    ``JudgeSettings``. Other keywords are the marker's (``tags``, ``concurrency``, ``timeout``,
    ``on_error``, ``empty``...); thresholds are not checked here: read ``result[...]``.
    """
    from pytest_ragcheck.common.collector import fewer_collections
    from pytest_ragcheck.evaluation.pipeline import evaluate_golden

    with fewer_collections():  # the cases loaded are kept: no collection walks them again
        golden, settings = _prepare(cases, k, metrics, judge, options, where="evaluate()")
        return evaluate_golden(retriever, golden, settings)


def compare(
    retrievers: Mapping[str, Any],
    cases: str | os.PathLike[str] | Sequence[Any],
    *,
    k: int | None = 10,
    metrics: str | Sequence[str] | None = None,
    significance: float | None = 0.05,
    judge: str | Mapping[str, Any] | JudgeSettings | None = None,
    **options: Any,
) -> Comparison:
    """Evaluate named retrievers on the same golden set and compare them with the first.

    ``retrievers`` is ``{"bm25": bm25, "hybrid": hybrid}``; each is evaluated exactly as
    :func:`evaluate` would (``cmp.results["hybrid"]``), then tested case by case against the
    first with the baseline gate's test (one-sided paired sign-flip, in the direction of the
    change), Holm-corrected across the systems at ``significance`` (``None``: means only). ``print(cmp)`` shows the table;
    ``cmp.better("hybrid", "bm25", "ndcg@10")`` asserts; ``cmp.to_pandas()`` for notebooks.
    """
    from pytest_ragcheck.common.collector import fewer_collections
    from pytest_ragcheck.evaluation.pipeline import evaluate_golden
    from pytest_ragcheck.explore.systems import check_level, check_systems, compare_results

    systems = check_systems(retrievers)
    level = check_level(significance)
    with fewer_collections():  # as in evaluate()
        golden, settings = _prepare(cases, k, metrics, judge, options, where="compare()")
        results = {name: evaluate_golden(r, golden, settings) for name, r in systems.items()}
    return compare_results(results, significance=level)


def _prepare(
    cases: str | os.PathLike[str] | Sequence[Any],
    k: int | None,
    metrics: str | Sequence[str] | None,
    judge: str | Mapping[str, Any] | JudgeSettings | None,
    options: Mapping[str, Any],
    *,
    where: str,
) -> tuple[GoldenSet, Settings]:
    """The golden set and settings of a library call (paths relative to the current folder)."""
    from pytest_ragcheck.golden import load_golden

    kw: dict[str, Any] = {"k": k, **options}
    if metrics is not None:  # one name, or names, as the marker takes them
        kw["metrics"] = metrics if isinstance(metrics, str) else list(metrics)
    settings = build_settings(kw, defaults=Defaults(judge=_judge(judge)), where=where)
    if settings.needs_sources:  # a relative authority table path: from the current folder
        settings = settings.replace(facets=with_table(settings.facets, [Path.cwd()]))
    golden = load_golden(
        cases if not isinstance(cases, os.PathLike) else os.fspath(cases),
        base_dirs=[Path.cwd()],
        split=settings.split,
    )
    return golden, settings


def _judge(judge: str | Mapping[str, Any] | JudgeSettings | None) -> JudgeSettings:
    default_cache = Path.cwd() / ".ragcheck" / "judge"
    if judge is None:
        return JudgeSettings(cache_dir=default_cache)
    if isinstance(judge, JudgeSettings):
        return judge
    if isinstance(judge, str):
        return JudgeSettings(model=judge, cache_dir=default_cache)
    fields = dict(judge)
    known = [f.name for f in dataclasses.fields(JudgeSettings)]
    for key in fields:
        if key not in known:
            raise ConfigError(
                f"judge: unknown setting {key!r}{did_you_mean(str(key), known)}; "
                f"valid settings: {', '.join(known)}"
            )
    cache = fields.pop("cache_dir", default_cache)
    return JudgeSettings(cache_dir=None if cache in (None, "off") else Path(cache), **fields)
