"""The pure reference functions of the rank metrics, and the input checks both sides share.

Written as simple loops with no numpy, so that they stay an independent reference for the
vectorised engine (:mod:`pytest_ragcheck.metrics.engine`), which must equal them bit for bit.
Conventions are trec_eval's; see :mod:`pytest_ragcheck.metrics`.
"""

from __future__ import annotations

import math
import operator
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeAlias, cast

from pytest_ragcheck.metrics.registry import METRICS

Relevance: TypeAlias = Mapping[str, int] | Iterable[str]
MetricFunction: TypeAlias = Callable[[Sequence[str], Relevance, int | None], float]

#: Largest grade that ``ndcg_exp`` accepts: 2**1024 does not fit in a float64.
MAX_EXP_GRADE = 1023
#: Largest relevance grade: the engine holds grades as 64-bit integers.
MAX_GRADE = 2**63 - 1


# --------------------------------------------------------------------------------------------
# validation shared by both implementations


def _check_k(k: object) -> int | None:
    """``k`` as an int >= 1, or None; numpy integers are accepted, bools and floats are not."""
    if k is None:
        return None
    try:
        if isinstance(k, bool):
            raise TypeError
        value = operator.index(k)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"k must be an int >= 1 or None (whole ranking), got {k!r}") from None
    if value < 1:
        raise ValueError(f"k must be an int >= 1 or None (whole ranking), got {value}")
    return value


def _grade(doc: object, grade: object, where: str) -> int:
    if not isinstance(doc, str):
        raise TypeError(
            f"{where}: document ids must be str, got {type(doc).__name__} {doc!r} "
            "(convert ids with str() on both the ranking and the judgments)"
        )
    if isinstance(grade, bool):
        return int(grade)
    try:
        value = operator.index(grade)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"{where}: relevance grades must be integers, got {type(grade).__name__} "
            f"{grade!r} for document {doc!r}"
        ) from None
    if not -MAX_GRADE - 1 <= value <= MAX_GRADE:  # the engine holds grades as int64
        raise ValueError(
            f"{where}: the relevance grade of document {doc!r} does not fit in 64 bits "
            f"({value.bit_length()} bits); grades are small integers such as 0-3"
        )
    return value


def _grades(relevance: Relevance, where: str = "relevance") -> dict[str, int]:
    """Normalise a ``{id: grade}`` mapping or an iterable of relevant ids (grade 1 each)."""
    if isinstance(relevance, Mapping):
        return {doc: _grade(doc, g, where) for doc, g in relevance.items()}
    if isinstance(relevance, str | bytes) or not isinstance(relevance, Iterable):
        raise TypeError(
            f"{where} must be a mapping {{id: grade}} or an iterable of relevant ids, "
            f"got {type(relevance).__name__} {relevance!r}"
        )
    return {doc: _grade(doc, 1, where) for doc in relevance}


def _ranking(retrieved: Iterable[str], where: str = "retrieved") -> list[str]:
    """Deduplicate (first position wins) and check that every id is a str."""
    if isinstance(retrieved, str | bytes | Mapping) or not isinstance(retrieved, Iterable):
        hint = (
            " (a {id: score} mapping is ranked by evaluate_run; pass ids in rank order here)"
            if isinstance(retrieved, Mapping)
            else ""
        )
        raise TypeError(
            f"{where} must be a sequence of document ids in rank order, "
            f"got {type(retrieved).__name__} {retrieved!r}"[:300]
            + hint
        )
    docs = list(dict.fromkeys(retrieved))
    for doc in docs:
        if not isinstance(doc, str):
            raise TypeError(
                f"{where}: document ids must be str, got {type(doc).__name__} {doc!r} "
                "(convert ids with str() on both the ranking and the judgments)"
            )
    return docs


def _discount(i: int) -> float:
    return math.log2(i + 1)


def _linear_gain(grade: int) -> float:
    return float(grade)


def _exp_gain(grade: int) -> float:
    if grade > MAX_EXP_GRADE:
        raise ValueError(
            f"ndcg_exp: grade {grade} is too large for the gain 2**grade - 1 "
            f"(at most {MAX_EXP_GRADE}); use ndcg (gain = grade) instead"
        )
    return 2.0**grade - 1.0


def _prepare(
    retrieved: Iterable[str], relevance: Relevance, k: int | None
) -> tuple[list[str], dict[str, int], list[int], int]:
    """Return the deduplicated ranking, the grades, the grades of the top k and ``R``."""
    kk = _check_k(k)
    docs = _ranking(retrieved)
    grades = _grades(relevance)
    top = docs if kk is None else docs[:kk]
    top_grades = [grades.get(doc, 0) for doc in top]
    n_rel = sum(1 for g in grades.values() if g >= 1)
    return docs, grades, top_grades, n_rel


# --------------------------------------------------------------------------------------------
# pure reference functions


def hit_rate(retrieved: Sequence[str], relevance: Relevance, k: int | None = None) -> float:
    """1.0 if any relevant document is in the top k, else 0.0 (``success@k``)."""
    _, _, top, _ = _prepare(retrieved, relevance, k)
    return 1.0 if any(g >= 1 for g in top) else 0.0


def hit_rate_granular(
    retrieved: Sequence[str], relevance: Relevance, k: int | None = None
) -> float:
    """Relevant documents in the top k / R (LlamaIndex's granular hit rate; equals recall)."""
    _, _, top, n_rel = _prepare(retrieved, relevance, k)
    if n_rel == 0:
        return 0.0
    return sum(1 for g in top if g >= 1) / n_rel


def mrr(retrieved: Sequence[str], relevance: Relevance, k: int | None = None) -> float:
    """1 / rank of the first relevant document in the top k, else 0.0 (trec_eval's RR)."""
    _, _, top, _ = _prepare(retrieved, relevance, k)
    for i, g in enumerate(top, 1):
        if g >= 1:
            return 1.0 / i
    return 0.0


def mrr_granular(retrieved: Sequence[str], relevance: Relevance, k: int | None = None) -> float:
    """Mean of 1/rank over the relevant documents found in the top k (LlamaIndex's granular MRR).

    The mean is over the relevant documents *retrieved*, not over R.
    """
    _, _, top, _ = _prepare(retrieved, relevance, k)
    total = 0.0
    found = 0
    for i, g in enumerate(top, 1):
        if g >= 1:
            total += 1.0 / i
            found += 1
    return total / found if found else 0.0


def precision(retrieved: Sequence[str], relevance: Relevance, k: int | None = None) -> float:
    """Relevant in the top k / k, even when fewer than k were retrieved (trec_eval's P_k).

    With ``k=None`` the denominator is the number of (deduplicated) retrieved ids; 0 if none.
    """
    docs, _, top, _ = _prepare(retrieved, relevance, k)
    denominator = len(docs) if k is None else k
    if denominator == 0:
        return 0.0
    return sum(1 for g in top if g >= 1) / denominator


def recall(retrieved: Sequence[str], relevance: Relevance, k: int | None = None) -> float:
    """Relevant in the top k / R."""
    _, _, top, n_rel = _prepare(retrieved, relevance, k)
    if n_rel == 0:
        return 0.0
    return sum(1 for g in top if g >= 1) / n_rel


def f1(retrieved: Sequence[str], relevance: Relevance, k: int | None = None) -> float:
    """Harmonic mean of :func:`precision` and :func:`recall` at the same k (0.0 if both are 0)."""
    p = precision(retrieved, relevance, k)
    r = recall(retrieved, relevance, k)
    if p + r == 0.0:
        return 0.0
    return 2 * p * r / (p + r)


def map(retrieved: Sequence[str], relevance: Relevance, k: int | None = None) -> float:
    """Average precision: the sum of precision@i at each relevant rank i <= k, / R.

    trec_eval's ``map_cut_k`` (``map`` for ``k=None``); relevant documents that are not
    retrieved in the top k contribute 0. Named ``map`` after the metric; it shadows the builtin
    only inside this module's namespace.
    """
    _, _, top, n_rel = _prepare(retrieved, relevance, k)
    if n_rel == 0:
        return 0.0
    total = 0.0
    hits = 0
    for i, g in enumerate(top, 1):
        if g >= 1:
            hits += 1
            total += hits / i
    return total / n_rel


def _ndcg(
    retrieved: Sequence[str], relevance: Relevance, k: int | None, gain: Callable[[int], float]
) -> float:
    _, grades, top, _ = _prepare(retrieved, relevance, k)
    ideal = sorted((g for g in grades.values() if g >= 1), reverse=True)
    if k is not None:
        ideal = ideal[:k]
    ideal_dcg = 0.0
    for i, g in enumerate(ideal, 1):
        ideal_dcg += gain(g) / _discount(i)
    if ideal_dcg == 0.0:
        return 0.0
    dcg = 0.0
    for i, g in enumerate(top, 1):
        if g >= 1:
            dcg += gain(g) / _discount(i)
    return dcg / ideal_dcg


def ndcg(retrieved: Sequence[str], relevance: Relevance, k: int | None = None) -> float:
    """nDCG with gain = grade and discount log2(rank + 1) (trec_eval's ``ndcg_cut_k``).

    The ideal DCG ranks *all judged* relevant grades (not only the retrieved ones) best first,
    cut at k.
    """
    return _ndcg(retrieved, relevance, k, _linear_gain)


def ndcg_exp(retrieved: Sequence[str], relevance: Relevance, k: int | None = None) -> float:
    """nDCG with the exponential gain 2**grade - 1 (Burges et al.; ranx's ``ndcg_burges``)."""
    return _ndcg(retrieved, relevance, k, _exp_gain)


def r_precision(retrieved: Sequence[str], relevance: Relevance, k: int | None = None) -> float:
    """Precision at rank R (relevant in the top R / R); ``k`` is validated but ignored."""
    _check_k(k)
    docs = _ranking(retrieved)
    grades = _grades(relevance)
    n_rel = sum(1 for g in grades.values() if g >= 1)
    if n_rel == 0:
        return 0.0
    return sum(1 for doc in docs[:n_rel] if grades.get(doc, 0) >= 1) / n_rel


def judged(retrieved: Sequence[str], relevance: Relevance, k: int | None = None) -> float:
    """Share of the top k that have a judgment of any grade, 0 and negative included.

    ir_measures' ``Judged@k``: the denominator is the number of documents in the top k
    (``min(k, retrieved)``), not k; 0.0 when nothing was retrieved. Unlike the other metrics
    it does not need a relevant document: a query judged all-0 still has judged documents.
    """
    docs, grades, _, _ = _prepare(retrieved, relevance, k)
    top = docs if k is None else docs[:k]
    return sum(1 for doc in top if doc in grades) / len(top) if top else 0.0


def metric_function(base: str) -> MetricFunction:
    """The pure function of a rank metric (``"mrr"`` -> :func:`mrr`), as the registry declares."""
    name = METRICS[base].reference
    if name is None:
        raise ValueError(f"{base!r} is not a rank metric")
    return cast(MetricFunction, globals()[name])


def rank_scores(scores: Mapping[str, float]) -> list[str]:
    """The ids of a ``{doc_id: score}`` mapping in trec_eval's rank order.

    Score descending, ties broken by doc id descending (code-point order, which is UTF-8 byte
    order, i.e. trec_eval's ``strcmp``). Scores are compared as single-precision floats, as
    pytrec_eval and trec_eval up to 9.0.8 do (trec_eval 10.0 compares doubles): two scores that
    round to the same float32 are a tie. This is the order :func:`evaluate_run` uses for runs
    of score mappings.
    """
    if not isinstance(scores, Mapping):
        raise TypeError(f"scores must be a mapping {{doc_id: score}}, got {type(scores).__name__}")
    docs = list(scores)
    for doc in docs:
        if not isinstance(doc, str):
            raise TypeError(f"document ids must be str, got {type(doc).__name__} {doc!r}")
    try:
        rounded = array("f", scores.values()).tolist()  # C float cast, as pytrec_eval's trec_eval
    except TypeError as exc:
        raise TypeError(f"scores must be numbers ({exc})") from None
    if any(x != x for x in rounded):
        raise ValueError("scores must not be NaN")
    order = sorted(range(len(docs)), key=lambda i: (rounded[i], docs[i]), reverse=True)
    return [docs[i] for i in order]
