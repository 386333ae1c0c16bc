"""Judge metrics for a batch of cases: plan the calls, serve what the cache has, judge the rest.

Every distinct judge call (one cache entry) is planned once, however many cases and metrics
need it: ``llm_relevancy`` and ``llm_precision`` share their yes/no verdicts, and a chunk that
two cases retrieved for the same query is judged once. After a retriever change only the new
(query, chunk) pairs miss the cache. A fully cached run never imports litellm and never
starts an event loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from pytest_ragcheck.aio import run_blocking
from pytest_ragcheck.config import JudgeSettings
from pytest_ragcheck.errors import ConfigError
from pytest_ragcheck.judge import client as judge_client
from pytest_ragcheck.judge import scoring
from pytest_ragcheck.judge.cache import KeySpace, VerdictCache
from pytest_ragcheck.judge.client import (
    INSTALL_HINT,
    Budget,
    CallError,
    JudgeClient,
    RetryPolicy,
    quiet_litellm,
)
from pytest_ragcheck.judge.prompts import (
    CLAIMS,
    GRADE,
    RELEVANCE,
    SCORE,
    USEFULNESS,
    Prompt,
    render_claims,
    render_pair,
)
from pytest_ragcheck.judge.run import JudgeItem, JudgeRun
from pytest_ragcheck.names import MetricSpec

__all__ = ["METRIC_PROMPTS", "check_judge_available", "compute_judge_metrics"]

#: The question each judge metric asks.
METRIC_PROMPTS: dict[str, Prompt] = {
    "llm_relevancy": RELEVANCE,
    "llm_precision": RELEVANCE,
    "llm_ndcg": GRADE,
    "context_precision": USEFULNESS,
    "context_recall": CLAIMS,
    "rerank_relevancy": SCORE,
    "rerank_relevancy_max": SCORE,
}

#: Temperature of a single judgment, and of each of several samples (``judge_samples`` > 1
#: needs some randomness for the vote to mean anything).
SINGLE_TEMPERATURE = 0.0
SAMPLE_TEMPERATURE = 0.7

T = TypeVar("T")


def _no_model_message() -> str:
    return (
        "LLM-judge metrics need a judge model: pass --ragcheck-judge-model=MODEL (or the ini "
        "key ragcheck_judge_model, or judge_model=... in the marker), any model name litellm "
        "accepts, e.g. openai/gpt-4o-mini; add --ragcheck-judge-api-base=URL for a self-hosted "
        "OpenAI-compatible server. In CI, use the same model with --ragcheck-judge-offline to "
        "read the committed verdict cache."
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


@dataclass
class _Job:
    """One judge call: one cache entry."""

    key: str
    prompt: Prompt
    messages: list[dict[str, str]]
    sampling: dict[str, Any]
    inputs: dict[str, Any]
    answer: dict[str, Any] | None = None
    cached: bool = False
    error: str | None = None
    error_kind: str | None = None


@dataclass
class _Judgment:
    """One question about one (query, chunk) pair — or (reference, context) — over samples."""

    prompt: Prompt
    jobs: list[_Job]

    @property
    def failed(self) -> _Job | None:
        return next((j for j in self.jobs if j.answer is None), None)

    @property
    def cached(self) -> bool:
        return all(j.cached for j in self.jobs)

    @property
    def answers(self) -> list[dict[str, Any]]:
        return [j.answer for j in self.jobs if j.answer is not None]


@dataclass
class _Plan:
    """What one (case, metric) needs."""

    spec: MetricSpec
    #: Per chunk, in rank order: a judgment, or a reason why the chunk cannot be judged.
    chunks: list[_Judgment | str] = field(default_factory=list)
    claims: _Judgment | None = None
    #: A problem that makes the metric uncomputable whatever the verdicts.
    problem: str | None = None


class _Planner:
    def __init__(self, settings: JudgeSettings) -> None:
        self.settings = settings
        self.model = settings.model or ""
        self.jobs: dict[str, _Job] = {}
        self._judgments: dict[tuple[Any, ...], _Judgment] = {}
        self._spaces: dict[str, list[tuple[KeySpace, dict[str, Any]]]] = {}

    def _samplings(self) -> list[dict[str, Any]]:
        n = self.settings.samples
        if n == 1:
            return [{"temperature": SINGLE_TEMPERATURE}]
        return [{"temperature": SAMPLE_TEMPERATURE, "sample": i} for i in range(n)]

    def _key_spaces(self, prompt: Prompt) -> list[tuple[KeySpace, dict[str, Any]]]:
        spaces = self._spaces.get(prompt.id)
        if spaces is None:
            spaces = [
                (
                    KeySpace(
                        model=self.model,
                        api_base=self.settings.api_base,
                        prompt=prompt,
                        sampling=sampling,
                    ),
                    sampling,
                )
                for sampling in self._samplings()
            ]
            self._spaces[prompt.id] = spaces
        return spaces

    def judgment(
        self,
        prompt: Prompt,
        ident: tuple[Any, ...],
        inputs: Callable[[], dict[str, Any]],
        render: Callable[[], list[dict[str, str]]],
    ) -> _Judgment:
        """The judgment for ``ident`` (planned once, however many cases/metrics need it)."""
        found = self._judgments.get(ident)
        if found is not None:
            return found
        messages = render()
        data = inputs()
        jobs = []
        for space, sampling in self._key_spaces(prompt):
            key = space.key(messages)
            job = self.jobs.get(key)
            if job is None:
                job = _Job(key, prompt, messages, sampling, data)
                self.jobs[key] = job
            jobs.append(job)
        found = _Judgment(prompt, jobs)
        self._judgments[ident] = found
        return found

    def plan(self, item: JudgeItem, spec: MetricSpec) -> _Plan:
        prompt = METRIC_PROMPTS[spec.base]
        plan = _Plan(spec)
        query = item.query
        reference = (item.reference_answer or "").strip()
        if prompt.needs_reference and not reference:
            plan.problem = (
                f"the case has no reference_answer, which {spec.base} needs "
                "(add reference_answer to the golden case)"
            )
            return plan
        chunks = item.chunks if spec.k is None else item.chunks[: spec.k]
        if prompt is CLAIMS:
            if not chunks:
                return plan
            empty = [i for i, text in enumerate(chunks, 1) if not text.strip()]
            if empty:
                plan.problem = _no_text(empty)
                return plan
            plan.claims = self.judgment(
                prompt,
                (prompt.id, query, reference, tuple(chunks)),
                lambda: {"query": query, "reference_answer": reference, "context": list(chunks)},
                partial(render_claims, prompt, query=query, reference=reference, chunks=chunks),
            )
            return plan
        ref = reference if prompt.needs_reference else None
        for text in chunks:
            if not text.strip():
                plan.chunks.append("the hit has no text to judge")
                continue
            inputs = partial(_pair_inputs, query, text, ref)
            render = partial(render_pair, prompt, query=query, chunk=text, reference=ref)
            plan.chunks.append(self.judgment(prompt, (prompt.id, query, text, ref), inputs, render))
        return plan


def _pair_inputs(query: str, chunk: str, reference: str | None) -> dict[str, Any]:
    """What a cache entry shows of a (query, chunk) judgment."""
    inputs: dict[str, Any] = {"query": query, "chunk": chunk}
    if reference is not None:
        inputs["reference_answer"] = reference
    return inputs


def _no_text(ranks: Sequence[int]) -> str:
    which = ", ".join(str(r) for r in ranks)
    return (
        f"hit(s) at rank {which} have no text to judge (judge metrics need the retriever to "
        "return hit texts: dicts with 'text', or Document objects)"
    )


def compute_judge_metrics(
    items: Sequence[JudgeItem],
    specs: Sequence[MetricSpec],
    settings: JudgeSettings,
    *,
    progress: Callable[[int, int], None] | None = None,
    retry_policy: RetryPolicy | None = None,
    sleep: Callable[[float], Awaitable[None]] | None = None,
) -> JudgeRun:
    """Judge metric values for every item and judge spec (other specs are ignored).

    Raises :class:`ConfigError` when verdicts must be requested but no model is configured
    or litellm is not installed; every other failure ends up in the returned run.
    """
    specs = [s for s in specs if s.kind == "judge"]
    run = JudgeRun(
        budget_limit=settings.max_calls,
        cache_dir=str(settings.cache_dir) if settings.cache_dir is not None else None,
    )
    planner = _Planner(settings)
    plans: dict[str, list[_Plan]] = {}
    needs_model = any(chunk.strip() for item in items for chunk in item.chunks) and bool(specs)
    if needs_model and not settings.model:
        raise ConfigError(_no_model_message())
    for item in items:
        plans[item.case_id] = [planner.plan(item, spec) for spec in specs]

    jobs = list(planner.jobs.values())
    total = len(jobs)
    cache = VerdictCache(settings.cache_dir) if settings.cache_dir is not None else None
    misses: list[_Job] = []
    for job in jobs:
        if cache is not None:
            read = cache.get(job.prompt, job.key)
            if read.problem:
                run.warnings.append(read.problem)
            if read.answer is not None:
                job.answer = read.answer
                job.cached = True
                continue
        misses.append(job)
    run.cached = total - len(misses)
    if progress is not None:
        progress(run.cached, total)

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
        litellm = judge_client.import_litellm()
        _judge(misses, settings, run, cache, litellm, progress, total, retry_policy, sleep)

    run.missing = sum(1 for job in jobs if job.answer is None)
    run.budget_missing = sum(1 for job in jobs if job.error_kind == "budget")
    scorer = _Scorer(run, samples=settings.samples)
    for item in items:
        for plan in plans[item.case_id]:
            scorer.score(item.case_id, plan)
    return run


def _judge(
    misses: list[_Job],
    settings: JudgeSettings,
    run: JudgeRun,
    cache: VerdictCache | None,
    litellm: Any,
    progress: Callable[[int, int], None] | None,
    total: int,
    retry_policy: RetryPolicy | None,
    sleep: Callable[[float], Awaitable[None]] | None,
) -> None:
    model = settings.model or ""
    budget = Budget(settings.max_calls)
    done = run.cached

    async def judge_all() -> tuple[int, int]:
        nonlocal done
        client = JudgeClient(
            model=model,
            api_base=settings.api_base,
            timeout=settings.timeout,
            concurrency=settings.concurrency,
            budget=budget,
            policy=retry_policy,
            litellm=litellm,
            **({"sleep": sleep} if sleep is not None else {}),
        )
        async with client:

            async def one(job: _Job) -> None:
                nonlocal done
                temperature = float(job.sampling["temperature"])
                try:
                    job.answer = await client.ask(job.prompt, job.messages, temperature=temperature)
                except CallError as exc:
                    job.error, job.error_kind = exc.message, exc.kind
                else:
                    if cache is not None:
                        problem = cache.put(
                            job.prompt,
                            job.key,
                            model=model,
                            api_base=settings.api_base,
                            sampling=job.sampling,
                            inputs=job.inputs,
                            answer=job.answer,
                        )
                        if problem and problem not in run.warnings:
                            run.warnings.append(problem)
                done += 1
                if progress is not None:
                    progress(done, total)

            await asyncio.gather(*(one(job) for job in misses))
        return client.calls, client.retries

    with quiet_litellm():  # once around the whole run: catch_warnings is process-wide
        run.calls, run.retries = run_blocking(judge_all)


class _Scorer:
    """Turns planned judgments into values, details and error lines for one run."""

    def __init__(self, run: JudgeRun, *, samples: int) -> None:
        self.run = run
        self.samples = samples
        self._reported: set[tuple[str, str]] = set()
        self._summaries: dict[int, tuple[dict[str, Any], float]] = {}

    def _fail(self, case_id: str, metric: str, where: str, job: _Job) -> None:
        line = f"{metric}: {where}: {job.error}"
        self.run.add_error(case_id, line)
        if (case_id, job.key) in self._reported:
            return  # one verdict shared by several metrics is reported once in the summary
        self._reported.add((case_id, job.key))
        if job.error_kind == "offline":
            self.run.offline_misses.append((case_id, f"{where} ({job.prompt.id})"))
        elif job.error_kind != "budget":
            self.run.other_errors.append((case_id, line))

    def _problem(self, case_id: str, line: str) -> None:
        self.run.add_error(case_id, line)
        if (case_id, line) not in self._reported:
            self._reported.add((case_id, line))
            self.run.other_errors.append((case_id, line))

    def score(self, case_id: str, plan: _Plan) -> None:
        name = plan.spec.name
        details = self.run.details.setdefault(case_id, {})
        if plan.problem is not None:
            self._problem(case_id, f"{name}: {plan.problem}")
            details[name] = []
            return
        if METRIC_PROMPTS[plan.spec.base] is CLAIMS:
            self._score_claims(case_id, plan)
            return
        entries: list[dict[str, Any]] = []
        values: list[float] = []
        ok = True
        for rank, judgment in enumerate(plan.chunks, 1):
            if isinstance(judgment, str):
                ok = False
                entries.append({"rank": rank, "error": judgment, "cached": False})
                self._problem(case_id, f"{name}: chunk {rank}: {judgment}")
                continue
            failed = judgment.failed
            if failed is not None:
                ok = False
                entries.append({"rank": rank, "error": failed.error, "cached": False})
                self._fail(case_id, name, f"chunk {rank}", failed)
                continue
            summary, value = self._summary(judgment)
            entry = {"rank": rank, **summary}
            entries.append(entry)
            values.append(value)
        details[name] = entries
        if ok:
            self.run.values.setdefault(case_id, {})[name] = _formula(plan.spec.base, values)

    def _summary(self, judgment: _Judgment) -> tuple[dict[str, Any], float]:
        """One chunk's details (without its rank) and its value (1/0 for yes/no), memoised:
        a verdict is shared by metrics and cases."""
        found = self._summaries.get(id(judgment))
        if found is None:
            found = self._aggregate(judgment)
            self._summaries[id(judgment)] = found
        return found

    def _aggregate(self, judgment: _Judgment) -> tuple[dict[str, Any], float]:
        answers = judgment.answers
        kind = judgment.prompt.kind
        entry: dict[str, Any] = {}
        if kind == "verdict":
            votes = [a["verdict"] == "yes" for a in answers]
            verdict = scoring.majority(votes)
            chosen = next((a for a in answers if (a["verdict"] == "yes") == verdict), answers[0])
            entry["verdict"] = "yes" if verdict else "no"
            entry["reason"] = chosen["reason"]
            numbers = [1.0 if v else 0.0 for v in votes]
            value = 1.0 if verdict else 0.0
            if self.samples > 1:
                entry["votes"] = [a["verdict"] for a in answers]
        else:
            numbers = [float(a[kind]) for a in answers]
            value = scoring.mean(numbers)
            entry[kind] = answers[0][kind] if self.samples == 1 else value
            entry["reason"] = answers[0]["reason"]
            if self.samples > 1:
                entry["samples"] = [a[kind] for a in answers]
        entry["cached"] = judgment.cached
        if self.samples > 1:
            entry["spread"] = scoring.spread(numbers)
        return entry, value

    def _score_claims(self, case_id: str, plan: _Plan) -> None:
        name = plan.spec.name
        details = self.run.details.setdefault(case_id, {})
        judgment = plan.claims
        if judgment is None:  # nothing retrieved: no claim can be attributed
            details[name] = []
            self.run.values.setdefault(case_id, {})[name] = 0.0
            return
        failed = judgment.failed
        if failed is not None:
            details[name] = []
            self._fail(case_id, name, "claims of the reference answer", failed)
            return
        recalls = [
            scoring.recall_of_claims([c["attributed"] for c in a["claims"]])
            for a in judgment.answers
        ]
        entries: list[dict[str, Any]] = []
        for index, claim in enumerate(judgment.answers[0]["claims"], 1):
            entry: dict[str, Any] = {
                "index": index,
                "claim": claim["claim"],
                "attributed": claim["attributed"],
                "reason": "",
                "cached": judgment.cached,
            }
            if self.samples > 1:
                entry["samples"] = recalls
                entry["spread"] = scoring.spread(recalls)
            entries.append(entry)
        details[name] = entries
        self.run.values.setdefault(case_id, {})[name] = scoring.mean(recalls)


def _formula(base: str, values: list[float]) -> float:
    if base == "llm_relevancy":
        return scoring.fraction_yes([v >= 0.5 for v in values])
    if base in ("llm_precision", "context_precision"):
        return scoring.average_precision([v >= 0.5 for v in values])
    if base == "llm_ndcg":
        return scoring.graded_ndcg(values)
    if base == "rerank_relevancy":
        return scoring.mean(values)
    if base == "rerank_relevancy_max":
        return max(values) if values else 0.0
    raise AssertionError(f"no formula for {base}")  # pragma: no cover
