"""A judge prompt rendered into chat messages: the system text, then the question with the
retrieved (or generated) text fenced as data."""

from __future__ import annotations

from collections.abc import Sequence

from pytest_ragcheck.judge.prompts import SYSTEM, Prompt, escape, fence

__all__ = ["render_answer", "render_aspects", "render_claims", "render_covers", "render_pair"]


def _messages(user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def render_pair(
    prompt: Prompt, *, query: str, chunk: str, reference: str | None = None
) -> list[dict[str, str]]:
    """The chat messages for one (query, chunk) judgment."""
    return _messages(
        prompt.template.format(query=query, chunk=fence(chunk), reference=reference or "")
    )


def render_answer(
    prompt: Prompt, *, query: str, answer: str, reference: str = "", chunks: Sequence[str] = ()
) -> list[dict[str, str]]:
    """The chat messages for one question about a generated answer (with its contexts, for
    faithfulness); the answer is fenced like retrieved text: it is generated, so untrusted."""
    context = "\n\n".join(f"Passage {i}:\n{fence(text)}" for i, text in enumerate(chunks, 1))
    safe = escape(answer)
    return _messages(
        prompt.template.format(query=query, answer=safe, reference=reference, chunk=context)
    )


def render_claims(
    prompt: Prompt, *, query: str, reference: str, chunks: Sequence[str]
) -> list[dict[str, str]]:
    """The chat messages for one (reference answer, top-k context) judgment."""
    context = "\n\n".join(f"Passage {i}:\n{fence(text)}" for i, text in enumerate(chunks, 1))
    return _messages(prompt.template.format(query=query, chunk=context, reference=reference))


def render_aspects(prompt: Prompt, *, query: str) -> list[dict[str, str]]:
    """The chat messages asking for the aspects of one query (once per query)."""
    return _messages(prompt.template.format(query=query))


def render_covers(
    prompt: Prompt, *, query: str, aspects: Sequence[tuple[str, str]], chunk: str
) -> list[dict[str, str]]:
    """The chat messages asking which of the judge's ``aspects`` (id, description) one
    retrieved chunk covers; the aspects were generated, so they are made inert too."""
    listed = "\n".join(f"- {escape(ident)}: {escape(text)}" for ident, text in aspects)
    return _messages(prompt.template.format(query=query, aspects=listed, chunk=fence(chunk)))
