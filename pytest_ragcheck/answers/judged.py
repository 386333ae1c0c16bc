"""The judged answer metrics' formulas (SPEC §10), from validated judge answers.

Each returns a :class:`Scored`: the value (``None`` with ``error`` when it cannot be computed,
never NaN), one detail entry per claim, question or statement for the reports, and facts the
reports count (rejected quotes, answers without claims).

Documented values: an answer in which the judge finds no claim (a refusal, an empty answer)
has ``faithfulness`` 1.0 (it asserts nothing the contexts do not support; counted as
``no_claims``); ``answer_relevancy`` is 0.0 for a noncommittal answer or one from which no
question can be generated; ``answer_correctness`` is 0.0 when neither side has a statement;
a zero embedding vector has cosine 0.0 with anything.

``truthfulness``, ``hallucination_rate`` and ``rejection_rate`` read one CRAG grade per answer
(SPEC §13): a refusal by the rules is ``missing`` without a judge call; on an unanswerable case
a refusal (``missing``) counts as ``perfect`` and any other grade as ``incorrect``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pytest_ragcheck.answers.quotes import QuoteChecker

__all__ = [
    "EmbeddingError",
    "Scored",
    "completeness",
    "correctness",
    "cosine",
    "crag_grade",
    "faithfulness",
    "hallucination",
    "rejection",
    "relevancy",
    "truthfulness",
]

#: answer_correctness with embeddings: weight of the factual F1 (RAGAS's default).
FACTUAL_WEIGHT = 0.75


class EmbeddingError(ValueError):
    """Embeddings that cannot be compared (different lengths, not finite numbers)."""


@dataclass(frozen=True, slots=True)
class Scored:
    value: float | None
    entries: list[dict[str, Any]] = field(default_factory=list)
    facts: dict[str, int] = field(default_factory=dict)
    error: str | None = None


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity; 0.0 when either vector is zero or empty (a blank text, never
    embedded). Raises :class:`EmbeddingError`."""
    if not a or not b:
        return 0.0
    if len(a) != len(b):
        raise EmbeddingError(f"embeddings of different lengths ({len(a)} and {len(b)})")
    if not all(math.isfinite(x) for x in (*a, *b)):
        raise EmbeddingError("an embedding holds a value that is not a finite number")
    norm = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    if norm == 0.0:
        return 0.0
    return max(-1.0, min(1.0, math.fsum(x * y for x, y in zip(a, b, strict=True)) / norm))


def faithfulness(answer: Mapping[str, Any], contexts: Sequence[str]) -> Scored:
    """Supported claims / claims; a claim counts as supported only with a verified quote."""
    checker = QuoteChecker(contexts)
    entries: list[dict[str, Any]] = []
    rejected = 0
    for index, claim in enumerate(answer["claims"], 1):
        judged = bool(claim["supported"])
        found = judged and checker.found(claim["quote"])
        rejected += judged and not found
        entries.append(
            {
                "index": index,
                "claim": claim["claim"],
                "supported": found,
                "judge_supported": judged,
                "quote": claim["quote"],
                "quote_found": found,
            }
        )
    if not entries:
        return Scored(1.0, [], {"no_claims": 1})
    value = sum(e["supported"] for e in entries) / len(entries)
    return Scored(value, entries, {"rejected_quotes": rejected})


def completeness(answer: Mapping[str, Any]) -> Scored:
    """Reference claims covered by the answer / reference claims (the list is never empty)."""
    claims = answer["claims"]
    entries = [
        {"index": i, "claim": c["claim"], "covered": bool(c["covered"])}
        for i, c in enumerate(claims, 1)
    ]
    return Scored(sum(e["covered"] for e in entries) / len(entries), entries)


def correctness(answer: Mapping[str, Any], similarity: float | None) -> Scored:
    """TP / (TP + ½(FP + FN)), blended 0.75 / 0.25 with ``similarity`` when it is given."""
    tp, fp, fn = (len(answer[key]) for key in ("TP", "FP", "FN"))
    entries = [
        {"statement": text, "class": key} for key in ("TP", "FP", "FN") for text in answer[key]
    ]
    facts = {} if tp + fp + fn else {"no_claims": 1}
    f1 = tp / (tp + 0.5 * (fp + fn)) if tp else 0.0
    if similarity is None:
        return Scored(f1, entries, facts)
    value = FACTUAL_WEIGHT * f1 + (1 - FACTUAL_WEIGHT) * similarity
    entries.append({"similarity": similarity})
    return Scored(value, entries, facts)


def relevancy(
    answer: Mapping[str, Any],
    query_vector: Sequence[float] | None,
    question_vectors: Sequence[Sequence[float]],
) -> Scored:
    """Mean cosine of the query and the generated questions; 0.0 when noncommittal."""
    questions = list(answer["questions"])
    if answer["noncommittal"] or not questions:
        entries = [{"question": q} for q in questions]
        return Scored(0.0, entries, {"noncommittal": 1})  # the count explains the 0
    if query_vector is None:
        return Scored(None, error="no embedding of the query")
    try:
        sims = [cosine(query_vector, vector) for vector in question_vectors]
    except EmbeddingError as exc:
        return Scored(None, error=str(exc))
    entries = [{"question": q, "similarity": s} for q, s in zip(questions, sims, strict=True)]
    return Scored(math.fsum(sims) / len(sims), entries)


#: CRAG's score of each grade.
CRAG_SCORES: dict[str, float] = {
    "perfect": 1.0,
    "acceptable": 0.5,
    "missing": 0.0,
    "incorrect": -1.0,
}


def crag_grade(grade: str, *, answerable: bool) -> str:
    """The grade that counts: the judge's on an answerable case; on an unanswerable one a
    refusal (``missing``) is ``perfect`` and any answer ``incorrect``."""
    if answerable:
        return grade
    return "perfect" if grade == "missing" else "incorrect"


def truthfulness(grade: str, *, answerable: bool) -> float:
    """CRAG's score: perfect 1, acceptable 0.5, missing 0, incorrect -1."""
    return CRAG_SCORES[crag_grade(grade, answerable=answerable)]


def hallucination(grade: str, *, answerable: bool) -> float:
    """1.0 for an answer that counts as incorrect, else 0.0."""
    return 1.0 if crag_grade(grade, answerable=answerable) == "incorrect" else 0.0


def rejection(grade: str, *, answerable: bool) -> float:
    """1.0 for a refusal (graded ``missing``), else 0.0."""
    return 1.0 if grade == "missing" else 0.0
