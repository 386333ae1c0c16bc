"""Planning a judge run: which distinct judge calls the (case, metric) pairs need.

Every distinct judge call (one cache entry) is planned once, however many cases and metrics
need it: ``llm_relevancy`` and ``llm_precision`` share their yes/no verdicts, and a chunk that
two cases retrieved for the same query is judged once. Each metric's question comes from its
registry entry (``Metric.prompt``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pytest_ragcheck.evaluation.settings import JudgeSettings
from pytest_ragcheck.judge.cache import KeySpace
from pytest_ragcheck.judge.prompts import ANSWER_KINDS, ASPECTS, PROMPTS, Prompt
from pytest_ragcheck.judge.render import (
    render_answer,
    render_aspects,
    render_claims,
    render_covers,
    render_pair,
)
from pytest_ragcheck.judge.run import JudgeItem
from pytest_ragcheck.metrics.names import MetricSpec

__all__ = ["Job", "Judgment", "Plan", "Planner", "metric_prompt"]

#: Temperature of a single judgment, and of each of several samples (``judge_samples`` > 1
#: needs some randomness for the vote to mean anything).
SINGLE_TEMPERATURE = 0.0
SAMPLE_TEMPERATURE = 0.7


def metric_prompt(spec: MetricSpec) -> Prompt:
    """The question a judge metric asks, as its registry entry declares."""
    prompt_id = spec.metric.prompt
    if prompt_id is None:
        raise ValueError(f"{spec.name} is not a judge metric")
    return PROMPTS[prompt_id]


@dataclass
class Job:
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
class Judgment:
    """One question about one (query, chunk) pair — or (reference, context) — over samples."""

    prompt: Prompt
    jobs: list[Job]

    @property
    def failed(self) -> Job | None:
        return next((j for j in self.jobs if j.answer is None), None)

    @property
    def cached(self) -> bool:
        return all(j.cached for j in self.jobs)

    @property
    def answers(self) -> list[dict[str, Any]]:
        return [j.answer for j in self.jobs if j.answer is not None]


@dataclass
class Plan:
    """What one (case, metric) needs."""

    spec: MetricSpec
    prompt: Prompt
    #: Per chunk, in rank order: a judgment, or a reason why the chunk cannot be judged.
    chunks: list[Judgment | str] = field(default_factory=list)
    claims: Judgment | None = None
    #: A problem that makes the metric uncomputable whatever the verdicts.
    problem: str | None = None
    #: Judged answer metrics: the one judgment about the case's answer, and what it judged.
    answer: Judgment | None = None
    query: str = ""
    answer_text: str = ""
    reference: str = ""
    contexts: tuple[str, ...] = ()
    #: ``truthfulness`` & co.: the case's answerability, and why its answer is a refusal by
    #: the rules (then there is no judgment: the grade is ``missing``).
    answerable: bool = True
    refusal: str | None = None
    #: Aspect metrics: the query's aspects (asked first), the chunks waiting for them, and
    #: the aspects as (id, description) once known.
    aspects: Judgment | None = None
    pending: tuple[str, ...] = ()
    aspect_list: tuple[tuple[str, str], ...] = ()


class Planner:
    """Collects the jobs of a run, sharing every judgment between cases and metrics."""

    def __init__(self, settings: JudgeSettings) -> None:
        self.settings = settings
        self.model = settings.model or ""
        self.jobs: dict[str, Job] = {}
        self._judgments: dict[tuple[Any, ...], Judgment] = {}
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
    ) -> Judgment:
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
                job = Job(key, prompt, messages, sampling, data)
                self.jobs[key] = job
            jobs.append(job)
        found = Judgment(prompt, jobs)
        self._judgments[ident] = found
        return found

    def plan(self, item: JudgeItem, spec: MetricSpec) -> Plan:
        prompt = metric_prompt(spec)
        plan = Plan(spec, prompt)
        query = item.query
        reference = (item.reference_answer or "").strip()
        needs_reference = "reference_answer" in spec.metric.needs and item.answerable
        if needs_reference and not reference:
            plan.problem = (
                f"the case has no reference_answer, which {spec.base} needs "
                "(add reference_answer to the golden case)"
            )
            return plan
        chunks = item.chunks if spec.k is None else item.chunks[: spec.k]
        if prompt.kind in ANSWER_KINDS:
            return self._plan_answer(item, plan, reference if needs_reference else "", chunks)
        if prompt.kind == "covers":
            if chunks:  # nothing retrieved: nothing to ask (the metric is 0)
                plan.query, plan.pending = query, tuple(chunks)
                plan.aspects = self.judgment(
                    ASPECTS,
                    (ASPECTS.id, query),
                    lambda: {"query": query},
                    partial(render_aspects, ASPECTS, query=query),
                )
            return plan
        if prompt.kind == "claims":
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
        ref = reference if needs_reference else None
        for rank, text in enumerate(chunks):
            if "sources" in spec.metric.needs:  # the source goes in front of the text
                source = item.sources[rank] if rank < len(item.sources) else None
                if source is None:
                    plan.chunks.append("the hit has no source (url, source or domain) to judge")
                    continue
                text = f"Source: {source}\n\n{text}"
            elif not text.strip():
                plan.chunks.append("the hit has no text to judge")
                continue
            inputs = partial(_pair_inputs, query, text, ref)
            render = partial(render_pair, prompt, query=query, chunk=text, reference=ref)
            plan.chunks.append(self.judgment(prompt, (prompt.id, query, text, ref), inputs, render))
        return plan

    def plan_covers(self, plan: Plan) -> None:
        """Once the aspects of ``plan``'s query are known: one question per chunk, which of
        them it covers (the first sample's aspects when there are several)."""
        judgment = plan.aspects
        if judgment is None or judgment.failed is not None:
            return
        listed = judgment.answers[0]["aspects"]
        aspects = tuple((str(a["id"]).strip(), str(a["aspect"])) for a in listed)
        plan.aspect_list = aspects
        query, prompt = plan.query, plan.prompt
        for text in plan.pending:
            if not text.strip():
                plan.chunks.append("the hit has no text to judge")
                continue
            render = partial(render_covers, prompt, query=query, aspects=aspects, chunk=text)
            inputs = partial(_covers_inputs, query, aspects, text)
            ident = (prompt.id, query, aspects, text)
            plan.chunks.append(self.judgment(prompt, ident, inputs, render))

    def _plan_answer(
        self, item: JudgeItem, plan: Plan, reference: str, chunks: tuple[str, ...]
    ) -> Plan:
        """One judgment per (case, answer), with the top-k contexts for faithfulness."""
        plan.answerable, plan.refusal = item.answerable, item.refusal
        if plan.prompt.kind == "truthfulness":
            if item.refusal is not None:
                return plan  # a refusal is graded missing without a call
            if not item.answerable:  # the prompt says the collection holds no answer
                plan.prompt = PROMPTS["unanswerable"]
        if item.answer is None:
            plan.problem = "the pipeline returned no answer to judge"
            return plan
        prompt = plan.prompt
        contexts = chunks if prompt.kind == "faithfulness" else ()
        empty = [i for i, text in enumerate(contexts, 1) if not text.strip()]
        if empty:
            plan.problem = _no_text(empty)
            return plan
        plan.query, plan.answer_text = item.query, item.answer
        plan.reference, plan.contexts = reference, contexts
        inputs: dict[str, Any] = {"query": item.query, "answer": item.answer}
        if reference:
            inputs["reference_answer"] = reference
        if prompt.kind == "faithfulness":
            inputs["context"] = list(contexts)
        plan.answer = self.judgment(
            prompt,
            (prompt.id, item.query, item.answer, reference, contexts),
            lambda: inputs,
            partial(
                render_answer,
                prompt,
                query=item.query,
                answer=item.answer,
                reference=reference,
                chunks=contexts,
            ),
        )
        return plan


def _pair_inputs(query: str, chunk: str, reference: str | None) -> dict[str, Any]:
    """What a cache entry shows of a (query, chunk) judgment."""
    inputs: dict[str, Any] = {"query": query, "chunk": chunk}
    if reference is not None:
        inputs["reference_answer"] = reference
    return inputs


def _covers_inputs(query: str, aspects: tuple[tuple[str, str], ...], chunk: str) -> dict[str, Any]:
    return {"query": query, "aspects": [list(a) for a in aspects], "chunk": chunk}


def _no_text(ranks: Sequence[int]) -> str:
    which = ", ".join(str(r) for r in ranks)
    return (
        f"hit(s) at rank {which} have no text to judge (judge metrics need the retriever to "
        "return hit texts: dicts with 'text', or Document objects; a plain string hit is a "
        "document id, not its text)"
    )
