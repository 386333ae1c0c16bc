"""LLM-judge metrics: chunk verdicts turned into rank-aware scores, cached by content.

Importing this package is cheap (stdlib only); pydantic loads when verdicts are planned and
litellm only when a verdict is missing from the cache and the judge has to be called.

Modules: ``prompts`` (versioned questions, retrieved text fenced as data), ``schemas``
(answer validation), ``cache`` (the verdict cache), ``retry`` (backoff, budget), ``client``
(litellm calls), ``scoring`` (the formulas), ``planner`` (which calls a run needs), ``scorer``
(answers to values), ``engine`` (the run: cache, calls, scoring), ``run`` (the records).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from pytest_ragcheck.judge.run import JudgeItem, JudgeOptions, JudgeRun, summarize_details

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.settings import JudgeSettings
    from pytest_ragcheck.judge.retry import RetryPolicy
    from pytest_ragcheck.metrics.names import MetricSpec

__all__ = [
    "JudgeItem",
    "JudgeOptions",
    "JudgeRun",
    "check_judge_available",
    "compute_judge_metrics",
    "summarize_details",
]


def compute_judge_metrics(
    items: Sequence[JudgeItem],
    specs: Sequence[MetricSpec],
    settings: JudgeSettings,
    *,
    progress: Callable[[int, int], None] | None = None,
    retry_policy: RetryPolicy | None = None,
    sleep: Callable[[float], Awaitable[None]] | None = None,
    alpha: float = 0.5,
) -> JudgeRun:
    """Judge metric values for ``items`` (see :func:`pytest_ragcheck.judge.engine.compute_judge_metrics`).

    Synchronous; safe to call from inside a running event loop. Raises
    :class:`~pytest_ragcheck.common.errors.ConfigError` when verdicts must be requested but no judge
    model is configured or litellm is not installed; every other failure is reported in the
    returned :class:`JudgeRun`.
    """
    from pytest_ragcheck.judge import engine

    options = JudgeOptions(progress=progress, retry_policy=retry_policy, sleep=sleep, alpha=alpha)
    return engine.compute_judge_metrics(items, specs, settings, options)


def check_judge_available(settings: JudgeSettings) -> None:
    """Raise :class:`~pytest_ragcheck.common.errors.ConfigError` when judge metrics cannot work.

    Checks the model is set, and that litellm is installed when every verdict would need a
    call (cache off, not offline). Never imports litellm.
    """
    from pytest_ragcheck.judge import engine

    engine.check_judge_available(settings)
