"""Embeddings for ``answer_relevancy`` and ``answer_correctness``, cached like verdicts.

After the judge answered, the texts to compare (the query and the questions generated from
the answer; the answer and its reference) are looked up in the cache (one entry per model and
text) and the rest fetched in batches through litellm ``embedding``, under the same budget,
retries and offline rule as verdicts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field

from pytest_ragcheck.evaluation.settings import JudgeSettings
from pytest_ragcheck.judge.cache import VerdictCache, embedding_key
from pytest_ragcheck.judge.planner import Plan
from pytest_ragcheck.run.aio import run_blocking

__all__ = ["BATCH", "Embeddings", "blank", "fetch_embeddings", "texts_to_embed"]

#: Texts per embedding request.
BATCH = 64


@dataclass
class Embeddings:
    """Text -> vector, and text -> why it has none."""

    vectors: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    offline: bool = False
    calls: int = 0
    cached: int = 0
    warnings: list[str] = field(default_factory=list)
    #: Failed requests by kind (see :mod:`.failures`).
    failures: dict[str, int] = field(default_factory=dict)

    def problem(self, texts: Iterable[str]) -> str | None:
        """Why one of ``texts`` has no embedding, or ``None``."""
        return next((self.errors[t] for t in texts if t in self.errors), None)


def texts_to_embed(plans: Iterable[Plan], settings: JudgeSettings) -> list[str]:
    """Every text the answered plans compare, once, in first-use order; blank ones are left
    out (a zero vector, see :func:`blank`): providers reject an empty input, and the whole
    batch of 64 texts with it."""
    wanted: dict[str, None] = {}
    for plan in plans:
        judgment = plan.answer
        if judgment is None or judgment.failed is not None:
            continue
        if plan.prompt.id == "questions":
            for answer in judgment.answers:
                if not answer["noncommittal"] and answer["questions"]:
                    wanted.update(dict.fromkeys([plan.query, *answer["questions"]]))
        elif plan.prompt.id == "correctness" and settings.embedding_model:
            wanted.update(dict.fromkeys([plan.answer_text, plan.reference]))
    return [text for text in wanted if not blank(text)]


def blank(text: str) -> bool:
    """An empty or white-space text: never embedded, it has no meaning to compare."""
    return not text.strip()


def fetch_embeddings(texts: list[str], settings: JudgeSettings, *, spent: int = 0) -> Embeddings:
    """Embeddings of ``texts``: cached ones read, the rest requested (unless offline).

    ``spent`` is the number of judge calls the run already made: ``judge_max_calls`` covers
    verdicts and embeddings together.
    """
    from pytest_ragcheck.judge.client import (
        Budget,
        CallError,
        JudgeClient,
        import_litellm,
        quiet_litellm,
    )

    found = Embeddings()
    model = settings.embedding_model
    if not texts or not model:
        return found
    cache = VerdictCache(settings.cache_dir) if settings.cache_dir is not None else None
    keys = {t: embedding_key(model=model, api_base=settings.api_base, text=t) for t in texts}
    misses = []
    for text in texts:
        vector = cache.get_embedding(keys[text]) if cache is not None else None
        if vector is None:
            misses.append(text)
        else:
            found.vectors[text] = vector
    found.cached = len(texts) - len(misses)
    if misses and settings.offline:
        found.offline = True
        for text in misses:
            found.errors[text] = (
                f"the embedding of {text[:40]!r} by {model} is not in the cache, and offline "
                "mode (--ragcheck-judge-offline) forbids calling the embedding model"
            )
        return found
    if not misses:
        return found
    litellm = import_litellm()

    async def fetch_all() -> int:
        client = JudgeClient(
            model=settings.model or model,
            api_base=settings.api_base,
            timeout=settings.timeout,
            concurrency=settings.concurrency,
            budget=Budget(settings.max_calls, used=spent),  # messages name the user's limit
            litellm=litellm,
        )
        async with client:

            async def one(batch: list[str]) -> None:
                try:
                    vectors = await client.embed(model, batch)
                except CallError as exc:
                    found.errors.update(dict.fromkeys(batch, exc.message))
                    return
                for text, vector in zip(batch, vectors, strict=True):
                    found.vectors[text] = vector
                    if cache is not None:
                        problem = cache.put_embedding(
                            keys[text], model=model, api_base=settings.api_base, text=text,
                            vector=vector,
                        )  # fmt: skip
                        if problem and problem not in found.warnings:
                            found.warnings.append(problem)

            batches = [misses[i : i + BATCH] for i in range(0, len(misses), BATCH)]
            await asyncio.gather(*(one(b) for b in batches))
        found.failures = client.failures.counts
        return client.calls

    with quiet_litellm():
        found.calls = run_blocking(fetch_all)
    return found
