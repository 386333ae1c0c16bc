"""Judge metrics for a batch of cases: plan the calls, serve what the cache has, judge the rest.

The planner (:mod:`.planner`) turns (case, metric) pairs into distinct judge calls; this module
serves them from the verdict cache, asks the judge for the rest (:mod:`.client`) and hands the
answers to the scorer (:mod:`.scorer`). After a retriever change only the new (query, chunk)
pairs miss the cache. A fully cached run never imports litellm and never starts an event loop.
With the cache on, each call is made under the lock of its entry (:mod:`.locks`), so that
pytest-xdist workers judging the same pairs pay for each verdict once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any

from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.evaluation.settings import JudgeSettings
from pytest_ragcheck.judge import client as judge_client
from pytest_ragcheck.judge.cache import VerdictCache
from pytest_ragcheck.judge.client import INSTALL_HINT, Budget, CallError, JudgeClient, quiet_litellm
from pytest_ragcheck.judge.embeddings import fetch_embeddings, texts_to_embed
from pytest_ragcheck.judge.locks import KeyLocks
from pytest_ragcheck.judge.planner import Job, Planner
from pytest_ragcheck.judge.run import JudgeItem, JudgeOptions, JudgeRun
from pytest_ragcheck.judge.scorer import Scorer
from pytest_ragcheck.metrics.names import MetricSpec
from pytest_ragcheck.run.aio import run_blocking

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
    plans = {
        item.case_id: [planner.plan(item, spec) for spec in specs if _scores(spec, item)]
        for item in items
    }

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
    for label, count in embeddings.failures.items():
        run.call_failures[label] = run.call_failures.get(label, 0) + count
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


def _scores(spec: MetricSpec, item: JudgeItem) -> bool:
    """Whether ``spec`` scores this case: unanswerable ones only where it says so."""
    cases = spec.metric.scores_cases
    return cases == "all" or (cases == "answerable") == item.answerable


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
        calls, retries, failures = _judge(
            misses, settings, options, save=save, progress=progress, cache=cache, spent=run.calls
        )
        run.calls += calls
        run.retries += retries
        run.call_failures.update(failures)
        # verdicts another process wrote while this one waited for their lock
        run.cached += sum(1 for job in misses if job.cached)


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


#: Rounds of waiting for other processes' locks before a call is made without one.
_ROUNDS = 10


async def _locked(
    job: Job, cache: VerdictCache, locks: KeyLocks, ask: Callable[[Job], Awaitable[None]]
) -> None:
    """``ask(job)`` under the lock of its cache entry, unless another process holds the lock
    and writes the entry meanwhile (then the entry is read: one verdict paid for, not two)."""
    entry = str(cache.path(job.prompt, job.key))
    for _ in range(_ROUNDS):
        if locks.acquire(entry):
            try:
                if not _read_again(job, cache):
                    await ask(job)
            finally:
                locks.release(entry)
            return
        await locks.wait(entry)
        if _read_again(job, cache):
            return
    await ask(job)  # the lock keeps changing hands without a verdict: call unlocked


def _read_again(job: Job, cache: VerdictCache) -> bool:
    """Fill ``job`` from an entry another process wrote since the run began."""
    answer = cache.get(job.prompt, job.key).answer  # a damaged entry was reported already
    if answer is None:
        return False
    job.answer, job.cached = answer, True
    return True


def _judge(
    misses: list[Job],
    settings: JudgeSettings,
    options: JudgeOptions,
    *,
    save: Callable[[Job, dict[str, Any]], None] | None,
    progress: _Progress,
    cache: VerdictCache | None,
    spent: int = 0,
) -> tuple[int, int, dict[str, int]]:
    """Ask the judge for every missing verdict, concurrently; return (calls, retries, failed
    calls by kind). ``spent``: calls an earlier batch of the run already made."""
    litellm = judge_client.import_litellm()

    async def judge_all() -> tuple[int, int, dict[str, int]]:
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
        locks = KeyLocks()

        async def ask(job: Job) -> None:
            temperature = float(job.sampling["temperature"])
            try:
                answer = await client.ask(job.prompt, job.messages, temperature=temperature)
            except CallError as exc:
                job.error, job.error_kind = exc.message, exc.kind
            else:
                job.answer = answer
                if save is not None:
                    save(job, answer)

        async def one(job: Job) -> None:
            if cache is None:
                await ask(job)
            else:
                await _locked(job, cache, locks, ask)
            progress.add()

        async with client:
            beat = asyncio.create_task(locks.keep_fresh())
            try:
                await asyncio.gather(*(one(job) for job in misses))
            finally:
                beat.cancel()
        return client.calls, client.retries, client.failures.counts

    with quiet_litellm():  # once around the whole run: catch_warnings is process-wide
        return run_blocking(judge_all)
