"""The judge metrics' formulas (SPEC §6) and the aggregation of repeated samples.

Pure functions over per-chunk values in rank order (a yes/no verdict is 1.0 or 0.0); each judge
metric names its formula in the registry (``Metric.formula``). With no chunk at all every score
is 0.0 (nothing relevant was retrieved), matching the rank metrics' convention.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeAlias, cast

__all__ = [
    "Formula",
    "average_precision",
    "base_name",
    "formula",
    "fraction_yes",
    "graded_ndcg",
    "majority",
    "maximum",
    "mean",
    "recall_of_claims",
    "spread",
]

Formula: TypeAlias = Callable[[Sequence[float]], float]


def formula(name: str | None) -> Formula:
    """The formula a judge metric's registry entry names (``"mean"`` -> :func:`mean`)."""
    if name is None:
        raise ValueError("not a judge metric: it declares no formula")
    return cast(Formula, globals()[name])


def fraction_yes(verdicts: Sequence[float]) -> float:
    """``llm_relevancy``: the share of chunks judged relevant."""
    return sum(verdicts) / len(verdicts) if verdicts else 0.0


def average_precision(verdicts: Sequence[float]) -> float:
    """``llm_precision`` / ``context_precision``: Σ_i P@i·v_i / Σ v_i (0 when no yes).

    P@i is the share of yes among the first i chunks. The denominator is the number of yes
    verdicts in the judged list (the judge only sees retrieved chunks, so it cannot know how
    many relevant chunks exist elsewhere).
    """
    hits = 0
    total = 0.0
    for i, relevant in enumerate(verdicts, 1):
        if relevant:
            hits += 1
            total += hits / i
    return total / hits if hits else 0.0


def _dcg(grades: Sequence[float]) -> float:
    return sum(g / math.log2(i + 1) for i, g in enumerate(grades, 1))


def graded_ndcg(grades: Sequence[float]) -> float:
    """``llm_ndcg``: DCG of the grades in rank order / DCG of the same grades sorted.

    Gain = grade, discount log2(i + 1); 0 when every grade is 0 (or no chunk).
    """
    ideal = _dcg(sorted(grades, reverse=True))
    return _dcg(grades) / ideal if ideal > 0 else 0.0


def mean(values: Sequence[float]) -> float:
    """``rerank_relevancy``: the mean score (0 with no chunk)."""
    return sum(values) / len(values) if values else 0.0


def mean_grade(grades: Sequence[float]) -> float:
    """``llm_source_quality``: the mean 0-3 grade / 3 (0 with no chunk)."""
    return mean(grades) / 3


def maximum(values: Sequence[float]) -> float:
    """``rerank_relevancy_max``: the best score (0 with no chunk)."""
    return max(values) if values else 0.0


def aspect_recall(aspects: Sequence[str], covered: Sequence[Sequence[int]], alpha: float) -> float:
    """``llm_aspect_recall``: the judge's aspects covered by a chunk of the top k / aspects."""
    seen = {j for found in covered for j in found}
    return len(seen) / len(aspects) if aspects else 0.0


def aspect_alpha_ndcg(
    aspects: Sequence[str], covered: Sequence[Sequence[int]], alpha: float
) -> float:
    """``llm_alpha_ndcg``: α-nDCG (ndeval's arithmetic) over the judge's aspects, the ideal
    ranking built greedily from the judged retrieved chunks themselves."""
    from pytest_ragcheck.metrics.ndeval import DiversityColumns, Judgments

    ranked = [tuple(sorted(set(found))) for found in covered]
    docs = {f"{rank:09d}": found for rank, found in enumerate(ranked) if found}
    relevant = tuple(sum(1 for found in ranked if j in found) for j in range(len(aspects)))
    judged = Judgments(tuple(aspects), docs, relevant)
    return DiversityColumns(ranked, judged, alpha, 0.5, None).alpha_ndcg(len(ranked))


def recall_of_claims(attributed: Sequence[float]) -> float:
    """``context_recall``: attributed claims / claims."""
    if not attributed:
        raise ValueError("no claims to compute a recall over")
    return sum(attributed) / len(attributed)


def base_name(name: str) -> str:
    """``faithfulness@10`` -> ``faithfulness``."""
    return name.partition("@")[0]


def majority(votes: Sequence[bool]) -> bool:
    """Majority vote over repeated yes/no samples; a tie counts as "no" (needs a majority)."""
    return sum(votes) * 2 > len(votes)


def spread(values: Sequence[float]) -> float:
    """How much repeated samples disagree: max − min (yes = 1, no = 0)."""
    return max(values) - min(values) if values else 0.0
