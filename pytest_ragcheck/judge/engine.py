"""Judge metrics for a batch of cases: plan the calls, serve what the cache has, judge the rest.

The planner (:mod:`.planner`) turns (case, metric) pairs into distinct judge calls; this module
serves them from the verdict cache, asks the judge for the rest (:mod:`.client`) and hands the
answers to the scorer (:mod:`.scorer`). After a retriever change only the new (query, chunk)
pairs miss the cache. A fully cached run never imports litellm and never starts an event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from pytest_ragcheck.aio import run_blocking
from pytest_ragcheck.config import JudgeSettings
from pytest_ragcheck.errors import ConfigError
from pytest_ragcheck.judge import client as judge_client
from pytest_ragcheck.judge.cache import VerdictCache
from pytest_ragcheck.judge.client import INSTALL_HINT, Budget, CallError, JudgeClient, quiet_litellm
from pytest_ragcheck.judge.embeddings import fetch_embeddings, texts_to_embed
from pytest_ragcheck.judge.planner import Job, Planner
from pytest_ragcheck.judge.run import JudgeItem, JudgeOptions, JudgeRun
from pytest_ragcheck.judge.scorer import Scorer
from pytest_ragcheck.names import MetricSpec

__all__ = ["check_judge_available", "compute_judge_metrics"]


def _no_model_message() -> str:
    return (
        "LLM-judge metrics need a judge model: pass --ragcheck-judge-model=MODEL (or the ini "
        "key ragcheck_judge_model, or judge_model=... in the marker), any model name litellm "
        "accepts, e.g. openai/gpt-4o-mini; add --ragcheck-judge-api-base=URL for a self-hosted "
        "OpenAI-compatible server. In CI, use the same model with --ragcheck-judge-offline to "
        "read the committed verdict cache."
    )


_NO_EMBEDDING_MODEL = (
    "answer_relevancy compares the query with questions generated from the answer through "
    "embeddings: set an embedding model with --ragcheck-judge-embedding-model=MODEL (or the "
    "ini key ragcheck_judge_embedding_model, or judge_embedding_model=... in the marker), any "
    "embedding model litellm accepts, e.g. openai/text-embedding-3-small"
)


def check_judge_available(settings: JudgeSettings) -> None:
    """Raise :class:`ConfigError` early when judge metrics cannot work at all.

    A model is always needed (it is part of every cache key). litellm is needed only when
    verdicts may have to be requested: not in offline mode, and with the cache on, only if
    an entry is missing (``compute_judge_metrics`` raises then). Never imports litellm.
    """
    if not settings.model:
        raise ConfigError(_no_model_message())
    if not settings.offline and settings.cache_dir is None and not judge_client.litellm_installed():
        raise ConfigError(
            f"LLM-judge metrics need litellm, which is not installed: {INSTALL_HINT} "
            "(or record verdicts where it is installed and run with --ragcheck-judge-offline)"
        )


def compute_judge_metrics(
    items: Sequence[JudgeItem],
    specs: Sequence[MetricSpec],
    settings: JudgeSettings,
    options: JudgeOptions,
) -> JudgeRun:
    """Judge metric values for every item and judge spec (other specs are ignored).

    Raises :class:`ConfigError` when verdicts must be requested but no model is configured
    or litellm is not installed; every other failure ends up in the returned run.
    """
    specs = [s for s in specs if s.metric.prompt is not None]  # judge_kappa & co.: no calls
    if any("embeddings" in s.metric.needs for s in specs) and not settings.embedding_model:
        raise ConfigError(_NO_EMBEDDING_MODEL)
    run = JudgeRun(
        budget_limit=settings.max_calls,
        cache_dir=str(settings.cache_dir) if settings.cache_dir is not None else None,
    )
    planner = Planner(settings)
    needs_model = bool(specs) and any(
        item.answer is not None or any(chunk.strip() for chunk in item.chunks) for item in items
    )
    if needs_model and not settings.model:
        raise ConfigError(_no_model_message())
    plans = {item.case_id: [planner.plan(item, spec) for spec in specs] for item in items}

    jobs = list(planner.jobs.values())
    progress = _Progress(options.progress, total=len(jobs))
    cache = VerdictCache(settings.cache_dir) if settings.cache_dir is not None else None
    _execute(jobs, settings, options, cache=cache, run=run, progress=progress)
    aspect_plans = [p for case_plans in plans.values() for p in case_plans if p.aspects]
    if aspect_plans:  # the aspects are known: ask which of them each chunk covers
        for plan in aspect_plans:
            planner.plan_covers(plan)
        done = {id(job) for job in jobs}
        more = [job for job in planner.jobs.values() if id(job) not in done]
        progress.total += len(more)
        _execute(more, settings, options, cache=cache, run=run, progress=progress)
        jobs += more

    run.missing = sum(1 for job in jobs if job.answer is None)
    run.budget_missing = sum(1 for job in jobs if job.error_kind == "budget")
    answered = [plan for case_plans in plans.values() for plan in case_plans if plan.answer]
    embeddings = fetch_embeddings(texts_to_embed(answered, settings), settings, spent=run.calls)
    run.calls += embeddings.calls
    run.warnings.extend(embeddings.warnings)
    scorer = Scorer(
        run,
        samples=settings.samples,
        abstain=settings.disagreement == "abstain",
        embeddings=embeddings,
        blend=settings.embedding_model is not None,
        alpha=options.alpha,
    )
    for item in items:
        for plan in plans[item.case_id]:
            scorer.score(item.case_id, plan)
    return run


def _execute(
    jobs: list[Job],
    settings: JudgeSettings,
    options: JudgeOptions,
    *,
    cache: VerdictCache | None,
    run: JudgeRun,
    progress: _Progress,
) -> None:
    """Answer ``jobs`` from the cache, then from the judge (never offline); the counts go to
    ``run`` (a second batch of a run continues the first one's budget)."""
    misses = _serve_from_cache(jobs, cache, run) if cache is not None else jobs
    run.cached += len(jobs) - len(misses)
    progress.add(len(jobs) - len(misses))
    if misses and settings.offline:
        for job in misses:
            job.error_kind = "offline"
            job.error = (
                "not in the verdict cache, and offline mode (--ragcheck-judge-offline) "
                "forbids calling the judge"
            )
    elif misses:
        if not settings.model:  # pragma: no cover - caught above
            raise ConfigError(_no_model_message())
        save = None if cache is None else partial(_save, cache=cache, settings=settings, run=run)
        calls, retries = _judge(
            misses, settings, options, save=save, progress=progress, spent=run.calls
        )
        run.calls += calls
        run.retries += retries


class _Progress:
    """Verdicts obtained so far (cached or judged), reported as ``progress(done, total)``."""

    def __init__(self, report: Callable[[int, int], None] | None, *, total: int) -> None:
        self.report = report
        self.total = total
        self.done = 0

    def add(self, count: int = 1) -> None:
        self.done += count
        if self.report is not None:
            self.report(self.done, self.total)


def _serve_from_cache(jobs: list[Job], cache: VerdictCache, run: JudgeRun) -> list[Job]:
    """Fill the jobs the cache answers; return the others (the misses)."""
    misses: list[Job] = []
    for job in jobs:
        read = cache.get(job.prompt, job.key)
        if read.problem:
            run.warnings.append(read.problem)
        if read.answer is not None:
            job.answer = read.answer
            job.cached = True
            continue
        misses.append(job)
    return misses


def _save(
    job: Job, answer: dict[str, Any], *, cache: VerdictCache, settings: JudgeSettings, run: JudgeRun
) -> None:
    """Store a fresh answer in the cache at once (an interrupted run keeps what it paid for)."""
    problem = cache.put(
        job.prompt,
        job.key,
        model=settings.model or "",
        api_base=settings.api_base,
        sampling=job.sampling,
        inputs=job.inputs,
        answer=answer,
    )
    if problem and problem not in run.warnings:
        run.warnings.append(problem)


def _judge(
    misses: list[Job],
    settings: JudgeSettings,
    options: JudgeOptions,
    *,
    save: Callable[[Job, dict[str, Any]], None] | None,
    progress: _Progress,
    spent: int = 0,
) -> tuple[int, int]:
    """Ask the judge for every missing verdict, concurrently; return (calls, retries)."""
    litellm = judge_client.import_litellm()

    async def judge_all() -> tuple[int, int]:
        client = JudgeClient(
            model=settings.model or "",
            api_base=settings.api_base,
            timeout=settings.timeout,
            concurrency=settings.concurrency,
            budget=Budget(settings.max_calls, used=spent),
            policy=options.retry_policy,
            litellm=litellm,
            **({"sleep": options.sleep} if options.sleep is not None else {}),
        )
        async with client:

            async def one(job: Job) -> None:
                temperature = float(job.sampling["temperature"])
                try:
                    answer = await client.ask(job.prompt, job.messages, temperature=temperature)
                except CallError as exc:
                    job.error, job.error_kind = exc.message, exc.kind
                else:
                    job.answer = answer
                    if save is not None:
                        save(job, answer)
                progress.add()

            await asyncio.gather(*(one(job) for job in misses))
        return client.calls, client.retries

    with quiet_litellm():  # once around the whole run: catch_warnings is process-wide
        return run_blocking(judge_all)
