"""The library API: evaluate a retriever from a script or notebook, no pytest needed."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_ragcheck.config import Defaults, JudgeSettings, build_settings

if TYPE_CHECKING:
    from pytest_ragcheck.result import Result

__all__ = ["evaluate"]


def evaluate(
    retriever: Any,
    cases: str | os.PathLike[str] | Sequence[Any],
    *,
    k: int | None = 10,
    metrics: Sequence[str] | None = None,
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
    from pytest_ragcheck.evaluation import evaluate_golden
    from pytest_ragcheck.golden import load_golden

    judge_settings = _judge(judge)
    kw: dict[str, Any] = {"k": k, **options}
    if metrics is not None:
        kw["metrics"] = list(metrics)
    settings = build_settings(kw, defaults=Defaults(judge=judge_settings), where="evaluate()")
    golden = load_golden(
        cases if not isinstance(cases, os.PathLike) else os.fspath(cases),
        base_dirs=[Path.cwd()],
        split=settings.split,
    )
    return evaluate_golden(retriever, golden, settings)


def _judge(judge: str | Mapping[str, Any] | JudgeSettings | None) -> JudgeSettings:
    default_cache = Path.cwd() / ".ragcheck" / "judge"
    if judge is None:
        return JudgeSettings(cache_dir=default_cache)
    if isinstance(judge, JudgeSettings):
        return judge
    if isinstance(judge, str):
        return JudgeSettings(model=judge, cache_dir=default_cache)
    fields = dict(judge)
    cache = fields.pop("cache_dir", default_cache)
    return JudgeSettings(cache_dir=None if cache in (None, "off") else Path(cache), **fields)
