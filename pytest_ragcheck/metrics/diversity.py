"""Diversity metrics (SPEC §12): TREC's ``ndeval`` measures as pure functions and in batch.

Each equals ndeval (in Python ``pyndeval``) on the same ranking for every cutoff from 1 to 20,
and follows the same definitions beyond; the arithmetic and ndeval's conventions are in
:mod:`pytest_ragcheck.metrics.ndeval`. ``subtopics`` is ``{subtopic: {doc id: grade}}`` or
``{subtopic: [doc ids]}``; ``k=None`` evaluates at the depth of the ranking.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_ragcheck.metrics.ndeval import (
    Covered,
    DiversityColumns,
    Judgments,
    Subtopics,
    judgments,
)
from pytest_ragcheck.metrics.reference import _check_k, _ranking

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_BETA",
    "DiversityColumns",
    "Judgments",
    "Subtopics",
    "alpha_ndcg",
    "check_novelty",
    "err_ia",
    "evaluate_diversity",
    "judgments",
    "map_ia",
    "nerr_ia",
    "nnrbp",
    "nrbp",
    "p_ia",
    "subtopic_recall",
]

DEFAULT_ALPHA = 0.5
DEFAULT_BETA = 0.5
#: The measures that read the whole ranking whatever the cutoffs.
_WHOLE = ("map_ia", "nrbp", "nnrbp")


def check_novelty(name: str, value: object) -> float:
    """``alpha`` / ``beta`` as a float in [0, 1], or a ``ValueError`` naming it."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a number from 0 to 1, got {value!r}")
    return float(value)


def evaluate_diversity(
    rankings: Sequence[Covered | Sequence[str]],
    subtopics: Sequence[Judgments | Subtopics],
    specs: Sequence[tuple[str, int | None]],
    *,
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
) -> dict[str, list[float]]:
    """Many queries at once: ``{"alpha_ndcg@10": [value per query], ...}``.

    ``rankings[i]`` is query i's ranked ids (deduplicated here) or, already resolved, the
    subtopic indices each rank covers; ``subtopics[i]`` its judgments. ``specs`` are
    ``(metric, k)`` pairs. Each query's gains and greedy ideal are computed once for all
    metrics and cutoffs.
    """
    if len(rankings) != len(subtopics):
        raise ValueError(f"{len(rankings)} rankings but {len(subtopics)} subtopic judgments")
    alpha = check_novelty("alpha", alpha)
    beta = check_novelty("beta", beta)
    names = [(f"{base}@{'all' if k is None else k}", base, _check_k(k)) for base, k in specs]
    columns: dict[str, list[float]] = {name: [] for name, _, _ in names}
    whole = any(k is None or base in _WHOLE for _, base, k in names)
    deep = None if whole else max((k or 0 for *_, k in names), default=0)
    for ranking, given in zip(rankings, subtopics, strict=True):
        judged = given if isinstance(given, Judgments) else judgments(given)
        query = DiversityColumns(_as_covered(ranking, judged), judged, alpha, beta, deep)
        for name, base, k in names:
            columns[name].append(getattr(query, base)(k))
    return columns


def _as_covered(ranking: Covered | Sequence[str], judged: Judgments) -> Covered:
    if ranking and isinstance(ranking[0], tuple):
        return ranking  # type: ignore[return-value]
    return judged.covered(_ranking(ranking))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- reference functions


def _one(
    base: str,
    retrieved: Sequence[str],
    subtopics: Subtopics,
    k: int | None,
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
) -> float:
    kk = _check_k(k)
    judged = judgments(subtopics)
    query = DiversityColumns(
        judged.covered(_ranking(retrieved)),
        judged,
        check_novelty("alpha", alpha),
        check_novelty("beta", beta),
        None,
    )
    value: float = getattr(query, base)(kk)
    return value


def alpha_ndcg(
    retrieved: Sequence[str], subtopics: Subtopics, k: int | None = None, *, alpha: float = 0.5
) -> float:
    """α-nDCG@k (Clarke et al., SIGIR 2008): novelty-discounted DCG over the greedy ideal."""
    return _one("alpha_ndcg", retrieved, subtopics, k, alpha)


def err_ia(
    retrieved: Sequence[str], subtopics: Subtopics, k: int | None = None, *, alpha: float = 0.5
) -> float:
    """ERR-IA@k as ndeval computes it: collection-independent ("ideal ideal") normalisation."""
    return _one("err_ia", retrieved, subtopics, k, alpha)


def nerr_ia(
    retrieved: Sequence[str], subtopics: Subtopics, k: int | None = None, *, alpha: float = 0.5
) -> float:
    """ERR-IA@k divided by the ERR-IA@k of the greedy ideal ranking."""
    return _one("nerr_ia", retrieved, subtopics, k, alpha)


def p_ia(retrieved: Sequence[str], subtopics: Subtopics, k: int | None = None) -> float:
    """Intent-aware precision@k: subtopic-relevant (document, subtopic) pairs / (k · A)."""
    return _one("p_ia", retrieved, subtopics, k)


def subtopic_recall(retrieved: Sequence[str], subtopics: Subtopics, k: int | None = None) -> float:
    """Subtopics covered by the top k / A (ndeval's ``strec``)."""
    return _one("subtopic_recall", retrieved, subtopics, k)


def map_ia(retrieved: Sequence[str], subtopics: Subtopics, k: int | None = None) -> float:
    """Intent-aware MAP: the mean over the A subtopics of each one's average precision."""
    return _one("map_ia", retrieved, subtopics, k)


def nrbp(
    retrieved: Sequence[str],
    subtopics: Subtopics,
    k: int | None = None,
    *,
    alpha: float = 0.5,
    beta: float = 0.5,
) -> float:
    """Novelty- and rank-biased precision (Clarke et al., ICTIR 2009)."""
    return _one("nrbp", retrieved, subtopics, k, alpha, beta)


def nnrbp(
    retrieved: Sequence[str],
    subtopics: Subtopics,
    k: int | None = None,
    *,
    alpha: float = 0.5,
    beta: float = 0.5,
) -> float:
    """NRBP divided by the NRBP of the greedy ideal ranking (0 when that is 0)."""
    return _one("nnrbp", retrieved, subtopics, k, alpha, beta)
