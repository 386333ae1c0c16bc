"""Rank metrics: plain-Python reference functions and the vectorised ``evaluate_run`` engine.

Conventions are trec_eval's. A document is *relevant* when its grade is >= 1 (0 and negative
grades are "judged, not relevant"); ``R`` is the number of relevant documents of a query; a query
with ``R == 0`` scores 0 on every metric. ``k=None`` means the whole ranking.

The pure functions (``hit_rate`` ... ``r_precision``) are written as simple loops with no numpy,
so that they stay an independent reference for the engine. ``evaluate_run`` /
``evaluate_rankings`` compute the same numbers for many queries at once and are bit-for-bit
equal to the pure functions: both sides add the same float64 terms in the same order (numpy's
``cumsum`` is a sequential accumulate, never a pairwise sum) and take the log2 discounts from the
same ``math.log2`` table.

Engine: queries are processed in blocks (``CHUNK_QUERIES``) so that memory stays flat. For each
block one Python-level pass maps every query to graded ranks: for ranked lists, a
``{doc: first rank}`` dict built in C (it also reveals repeated ids) in which the judged docs are
looked up; for ``{doc: score}`` runs, each retrieved doc is looked up in the query's judgments
and numpy sorts the rows by score. Grades are gathered into bytearrays when they fit in 0..255.
Everything else - the graded matrix (queries x depth), cumulative hit counts, reciprocal
ranks, average precision, DCG and ideal DCG - is a handful of numpy operations shared by all
requested metrics and cutoffs. See ``docs/metrics.md`` for measured figures.

Duplicates: callers should pass deduplicated rankings, but a repeated id is handled like
everywhere else in pytest-ragcheck: its first (best) position is kept and the later copies are
dropped, so the ranks after them move up (exactly as if the caller had deduplicated).
"""

from __future__ import annotations

import builtins
import math
import operator
import struct
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from itertools import count, repeat
from numbers import Real
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from pytest_ragcheck.names import RANK_METRICS, MetricSpec, parse_metric

__all__ = [
    "evaluate_rankings",
    "evaluate_run",
    "f1",
    "hit_rate",
    "hit_rate_granular",
    "latency_percentiles",
    "map",
    "mrr",
    "mrr_granular",
    "ndcg",
    "ndcg_exp",
    "precision",
    "r_precision",
    "rank_scores",
    "recall",
]

Relevance: TypeAlias = Mapping[str, int] | Iterable[str]
FloatArray: TypeAlias = npt.NDArray[np.float64]
IntArray: TypeAlias = npt.NDArray[np.int64]

_builtin_map = builtins.map  # ``map`` below is the metric (average precision)

#: Largest grade that ``ndcg_exp`` accepts: 2**1024 does not fit in a float64.
MAX_EXP_GRADE = 1023


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
        return operator.index(grade)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"{where}: relevance grades must be integers, got {type(grade).__name__} "
            f"{grade!r} for document {doc!r}"
        ) from None


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


@lru_cache(maxsize=64)
def _discounts(n: int) -> tuple[float, ...]:
    """``log2(i + 1)`` for ranks ``i = 1..n``; one table for both implementations."""
    return tuple(math.log2(i + 1) for i in range(1, n + 1))


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


_PURE: dict[str, Callable[[Sequence[str], Relevance, int | None], float]] = {
    "hit_rate": hit_rate,
    "hit_rate_granular": hit_rate_granular,
    "mrr": mrr,
    "mrr_granular": mrr_granular,
    "precision": precision,
    "recall": recall,
    "f1": f1,
    "map": map,
    "ndcg": ndcg,
    "ndcg_exp": ndcg_exp,
    "r_precision": r_precision,
}
assert tuple(_PURE) == RANK_METRICS


def metric_function(base: str) -> Callable[[Sequence[str], Relevance, int | None], float]:
    """The pure function for a rank metric's base name (``"mrr"`` -> :func:`mrr`)."""
    return _PURE[base]


# --------------------------------------------------------------------------------------------
# latency


def latency_percentiles(latencies_ms: Sequence[float]) -> dict[str, float]:
    """``latency_p50_ms``, ``latency_p95_ms`` and ``latency_max_ms`` of per-case latencies.

    Percentiles use linear interpolation between the two closest ranks (numpy's default
    ``method="linear"``: position ``p * (n - 1)`` in the sorted values). With no latencies
    every value is 0.0, so that a run with no successful call still has finite numbers.
    """
    values = sorted(float(x) for x in latencies_ms)
    if any(math.isnan(v) for v in values):
        raise ValueError("latencies must be numbers, got NaN")
    if not values:
        return {"latency_p50_ms": 0.0, "latency_p95_ms": 0.0, "latency_max_ms": 0.0}

    def pct(p: float) -> float:
        pos = p * (len(values) - 1)
        lo = math.floor(pos)
        hi = min(lo + 1, len(values) - 1)
        frac = pos - lo
        return values[lo] + (values[hi] - values[lo]) * frac

    return {
        "latency_p50_ms": pct(0.50),
        "latency_p95_ms": pct(0.95),
        "latency_max_ms": values[-1],
    }


def rank_scores(scores: Mapping[str, float]) -> list[str]:
    """The ids of a ``{doc_id: score}`` mapping in trec_eval's rank order.

    Score descending, ties broken by doc id descending (code-point order, which is UTF-8 byte
    order, i.e. trec_eval's ``strcmp``). Like trec_eval, scores are compared as single-precision
    floats: two scores that round to the same float32 are a tie. This is the order
    :func:`evaluate_run` uses for runs of score mappings.
    """
    if not isinstance(scores, Mapping):
        raise TypeError(f"scores must be a mapping {{doc_id: score}}, got {type(scores).__name__}")
    docs = list(scores)
    for doc in docs:
        if not isinstance(doc, str):
            raise TypeError(f"document ids must be str, got {type(doc).__name__} {doc!r}")
    try:
        rounded = array("f", scores.values()).tolist()  # C float cast, exactly like trec_eval
    except TypeError as exc:
        raise TypeError(f"scores must be numbers ({exc})") from None
    if any(x != x for x in rounded):
        raise ValueError("scores must not be NaN")
    order = sorted(range(len(docs)), key=lambda i: (rounded[i], docs[i]), reverse=True)
    return [docs[i] for i in order]


# --------------------------------------------------------------------------------------------
# the batch engine

#: Queries per block: keeps peak memory flat (~50 MB at 100 hits per query) on runs of any size.
CHUNK_QUERIES = 16384

_EMPTY: Mapping[str, int] = {}
_MINUS_ONE = repeat(-1)
_ZERO = repeat(0)


def _resolve_specs(metrics: Iterable[str | MetricSpec], default_k: int | None) -> list[MetricSpec]:
    if isinstance(metrics, str | MetricSpec):
        metrics = [metrics]
    specs: dict[str, MetricSpec] = {}
    for m in metrics:
        spec = m if isinstance(m, MetricSpec) else parse_metric(m, _check_k(default_k))
        if spec.base not in RANK_METRICS:
            raise ValueError(
                f"{spec.name!r} is not a rank metric; evaluate_run computes "
                + ", ".join(RANK_METRICS)
            )
        _check_k(spec.k)
        specs.setdefault(spec.name, spec)
    return list(specs.values())


def evaluate_run(
    run: Mapping[str, Sequence[str]] | Mapping[str, Mapping[str, float]],
    qrels: Mapping[str, Mapping[str, int]],
    metrics: Iterable[str | MetricSpec],
    *,
    k: int | None = None,
) -> dict[str, FloatArray]:
    """Compute rank metrics for every query of a run at once.

    ``run`` maps each query id to its ids in rank order, or to ``{doc_id: score}`` (ranked as
    trec_eval does, see :func:`rank_scores`; the values of one run must all be of one kind).
    ``qrels`` maps query ids to ``{doc_id: grade}``; a query missing from ``qrels`` has no
    relevant document and scores 0. ``metrics`` are names (``"mrr@10"``; a bare name takes
    ``k``, default the whole ranking) or :class:`MetricSpec` objects. Returns
    ``{canonical name: array}`` with one float64 per query, in ``run`` order, equal to the
    pure functions.

    Type checks are sampled to stay cheap on large runs: every query id and grade is checked,
    but for doc ids and scores only the first one of each query.
    """
    if not isinstance(run, Mapping):
        raise TypeError(f"run must be a mapping {{qid: ranking}}, got {type(run).__name__}")
    if not isinstance(qrels, Mapping):
        raise TypeError(
            f"qrels must be a mapping {{qid: {{doc_id: grade}}}}, got {type(qrels).__name__}"
        )
    specs = _resolve_specs(metrics, k)
    labels = list(run)
    for qid in labels:
        if not isinstance(qid, str):
            raise TypeError(f"run: query ids must be str, got {type(qid).__name__} {qid!r}")
    values = list(run.values())
    rels = list(_builtin_map(qrels.get, labels, repeat(_EMPTY)))
    return _evaluate(values, rels, specs, labels)


def evaluate_rankings(
    rankings: Sequence[Sequence[str]],
    relevances: Sequence[Relevance],
    specs: Iterable[MetricSpec | str],
) -> dict[str, FloatArray]:
    """Positional variant of :func:`evaluate_run`: ``rankings[i]`` is judged by ``relevances[i]``.

    A relevance is ``{id: grade}`` or an iterable of relevant ids (grade 1 each); bare metric
    names mean the whole ranking.
    """
    if len(rankings) != len(relevances):
        raise ValueError(
            f"evaluate_rankings: {len(rankings)} rankings but {len(relevances)} relevances"
        )
    resolved = _resolve_specs(specs, None)
    rels: list[Mapping[str, int]] = [
        r if isinstance(r, Mapping) else _grades(r, f"relevances[{i}]")
        for i, r in enumerate(relevances)
    ]
    return _evaluate(list(rankings), rels, resolved, None)


def _label(labels: Sequence[str] | None, i: int) -> str:
    """How an error message names query ``i``: its query id, or its index."""
    return f"query {labels[i]!r}" if labels is not None else f"ranking #{i}"


def _evaluate(
    values: list[Any],
    rels: list[Mapping[str, int]],
    specs: list[MetricSpec],
    labels: list[str] | None,
) -> dict[str, FloatArray]:
    n_queries = len(values)
    out = {spec.name: np.zeros(n_queries, dtype=np.float64) for spec in specs}
    if n_queries == 0 or not specs:
        return out
    by_score = isinstance(values[0], Mapping)
    # how deep the graded matrix must go: the largest cutoff, or everything
    whole = any(s.k is None or s.base == "r_precision" for s in specs)
    depth_cap = None if whole else max(s.k for s in specs if s.k is not None)
    ndcg_specs = [s for s in specs if s.base in ("ndcg", "ndcg_exp")]
    ideal_cap: int | None = 0
    if ndcg_specs:
        cuts = [s.k for s in ndcg_specs]
        ideal_cap = None if None in cuts else max(c for c in cuts if c is not None)
    for start in range(0, n_queries, CHUNK_QUERIES):
        stop = min(start + CHUNK_QUERIES, n_queries)
        block = _Block.build(
            values[start:stop],
            rels[start:stop],
            by_score=by_score,
            labels=labels,
            offset=start,
            depth_cap=depth_cap,
            ideal_cap=ideal_cap,
        )
        for name, arr in block.compute(specs).items():
            out[name][start:stop] = arr
    return out


def _check_pair(
    labels: Sequence[str] | None, i: int, ranking: object, rel: object, by_score: bool
) -> None:
    """Slow path of the gather loops: accept any Mapping/Sequence, reject the rest clearly."""
    if not isinstance(rel, Mapping):
        raise TypeError(
            f"qrels: the judgments of {_label(labels, i)} must be a mapping "
            f"{{doc_id: grade}}, got {type(rel).__name__} {rel!r}"[:300]
        )
    is_mapping = isinstance(ranking, Mapping)
    is_list = isinstance(ranking, Sequence) and not isinstance(ranking, str | bytes)
    if (by_score and is_mapping) or (not by_score and is_list):
        return
    if is_mapping or is_list:
        first = "{doc_id: score} mappings" if by_score else "lists of ids"
        raise TypeError(
            f"run: the ranking of {_label(labels, i)} is a {type(ranking).__name__} but the "
            f"first ranking of the run makes it a run of {first}; use one kind for the whole run"
        )
    raise TypeError(
        f"run: the ranking of {_label(labels, i)} must be a list of ids in rank order or a "
        f"{{doc_id: score}} mapping, got {type(ranking).__name__} {ranking!r}"[:300]
    )


def _id_error(labels: Sequence[str] | None, i: int, doc: object, what: str) -> TypeError:
    return TypeError(
        f"{what}: document ids must be str, got {type(doc).__name__} {doc!r} in "
        f"{_label(labels, i)} (convert ids with str() on both the run and the qrels)"
    )


def _gather_lists(
    values: list[Any],
    rels: list[Mapping[str, int]],
    labels: Sequence[str] | None,
    offset: int,
    judged: list[Any] | bytearray,
    n_judged: list[int],
    lengths: list[int],
    positions: list[int],
) -> None:
    """The one Python-level pass over a block of list rankings (the hot loop of the engine).

    Per query: one dict {doc: first rank} built in C (which also reveals duplicates), then the
    judged docs are looked up in it, so only judged docs produce Python-level output.
    """
    judged_ext, n_judged_add = judged.extend, n_judged.append
    lengths_add, positions_ext = lengths.append, positions.extend
    minus_one, bmap = _MINUS_ONE, _builtin_map
    for i, ranking, rel in zip(count(offset), values, rels, strict=False):
        if type(ranking) is not list or type(rel) is not dict:
            _check_pair(labels, i, ranking, rel, False)
        n = len(ranking)
        if n and type(ranking[0]) is not str and not isinstance(ranking[0], str):
            raise _id_error(labels, i, ranking[0], "run")
        pos = dict(zip(ranking, range(n), strict=True))
        if len(pos) != n:  # duplicates: keep the first position of each id
            pos = dict(zip(dict.fromkeys(ranking), range(n), strict=False))
            n = len(pos)
        if rel:
            first = next(iter(rel))
            if type(first) is not str and not isinstance(first, str):
                raise _id_error(labels, i, first, "qrels")
        lengths_add(n)
        n_judged_add(len(rel))
        judged_ext(rel.values())
        positions_ext(bmap(pos.get, rel, minus_one))


def _gather_scores(
    values: list[Any],
    rels: list[Mapping[str, int]],
    labels: Sequence[str] | None,
    offset: int,
    judged: list[Any] | bytearray,
    n_judged: list[int],
    lengths: list[int],
    dense: list[int] | bytearray,
) -> None:
    """The one Python-level pass over a block of {doc: score} rankings.

    Each retrieved doc is looked up in the query's (small) judgments; numpy then sorts by score.
    """
    judged_ext, n_judged_add = judged.extend, n_judged.append
    lengths_add, dense_ext = lengths.append, dense.extend
    zero, bmap = _ZERO, _builtin_map
    for i, ranking, rel in zip(count(offset), values, rels, strict=False):
        if type(ranking) is not dict or type(rel) is not dict:
            _check_pair(labels, i, ranking, rel, True)
        if ranking:
            first = next(iter(ranking))
            if type(first) is not str and not isinstance(first, str):
                raise _id_error(labels, i, first, "run")
            score = ranking[first]
            if type(score) is not float and (
                isinstance(score, bool) or not isinstance(score, Real)
            ):
                raise TypeError(
                    f"run: scores must be numbers, got {type(score).__name__} {score!r} "
                    f"in {_label(labels, i)}"
                )
        if rel:
            first = next(iter(rel))
            if type(first) is not str and not isinstance(first, str):
                raise _id_error(labels, i, first, "qrels")
        lengths_add(len(ranking))
        n_judged_add(len(rel))
        judged_ext(rel.values())
        dense_ext(bmap(rel.get, ranking, zero))


def _pad_index(lens: IntArray) -> tuple[IntArray, IntArray]:
    """(row, column) of each element when rows of these lengths are laid in a matrix."""
    starts = np.cumsum(lens) - lens
    row_idx = np.repeat(np.arange(len(lens)), lens)
    col_idx = np.arange(int(lens.sum())) - np.repeat(starts, lens)
    return row_idx, col_idx


class _Block:
    """One block of queries: the graded matrix (queries x depth) and what the metrics need."""

    __slots__ = ("grades", "ideal", "lengths", "n_rel")

    def __init__(
        self, grades: IntArray, lengths: IntArray, n_rel: IntArray, ideal: IntArray
    ) -> None:
        self.grades = grades  # grade at each rank (0 = not relevant), padded with 0
        self.lengths = lengths  # deduplicated ranking length
        self.n_rel = n_rel  # R
        self.ideal = ideal  # relevant grades of each query, best first, padded with 0

    @staticmethod
    def build(
        values: list[Any],
        rels: list[Mapping[str, int]],
        *,
        by_score: bool,
        labels: list[str] | None,
        offset: int,
        depth_cap: int | None,
        ideal_cap: int | None,
    ) -> _Block:
        """Gather one block; ``depth_cap``/``ideal_cap`` bound the columns (None = all)."""
        gather = _gather_scores if by_score else _gather_lists
        # Grades are usually small non-negative ints: gather them into bytearrays (no Python
        # int list, no conversion pass). A grade outside 0..255 (or not an int) makes
        # bytearray.extend raise; the block is then gathered again into plain lists, which
        # also produces the precise error message for a bad grade.
        try:
            judged: Any = bytearray()  # all judged grades, query after query
            # list runs: the 0-based rank of each judged doc (-1 if absent), always a list;
            # score runs: the grade of each retrieved doc in mapping order
            found: Any = bytearray() if by_score else []
            n_judged: list[int] = []
            lengths: list[int] = []
            gather(values, rels, labels, offset, judged, n_judged, lengths, found)
        except (TypeError, ValueError, OverflowError):
            judged, found, n_judged, lengths = [], [], [], []
            gather(values, rels, labels, offset, judged, n_judged, lengths, found)
        rows = len(lengths)
        grades_flat = _judged_array(judged, rels, labels, offset)
        judged_counts = np.array(n_judged, dtype=np.int64)
        query_of = np.repeat(np.arange(rows), judged_counts)
        relevant = grades_flat > 0
        rel_rows = query_of[relevant]
        rel_grades = grades_flat[relevant]
        n_rel = np.bincount(rel_rows, minlength=rows).astype(np.int64)
        lens = np.array(lengths, dtype=np.int64)
        width = max(int(lens.max()), 1)
        depth = width if depth_cap is None else min(width, depth_cap)

        if by_score:
            graded = _rank_by_score(values, rels, found, lens, width, depth, labels, offset)
        else:
            graded = np.zeros((rows, depth), dtype=np.int64)
            pos_flat = np.fromiter(found, dtype=np.int64, count=len(found))
            hit = relevant & (pos_flat >= 0) & (pos_flat < depth)
            graded[query_of[hit], pos_flat[hit]] = grades_flat[hit]

        # relevant grades of each query, best first, for the ideal DCG (only when nDCG is asked)
        ideal_width = max(int(n_rel.max()), 1) if ideal_cap != 0 else 1
        ideal = np.zeros((rows, ideal_width), dtype=np.int64)
        if ideal_cap != 0 and len(rel_grades):
            starts = np.cumsum(n_rel) - n_rel
            cols = np.arange(len(rel_grades)) - np.repeat(starts, n_rel)
            ideal[rel_rows, cols] = rel_grades
            ideal = -np.sort(-ideal, axis=1)
            if ideal_cap is not None:
                ideal = ideal[:, :ideal_cap]
        return _Block(graded, lens, n_rel, ideal)

    def compute(self, specs: list[MetricSpec]) -> dict[str, FloatArray]:
        """Every requested metric from the one graded matrix; each family of metrics only
        looks as deep as its largest cutoff."""
        grades, lens, n_rel = self.grades, self.lengths, self.n_rel
        rows, depth = int(grades.shape[0]), int(grades.shape[1])
        rel = grades > 0
        hits_cum = np.cumsum(rel, axis=1, dtype=np.int64)
        has_rel = n_rel > 0
        every_row = np.arange(rows)
        cache: dict[str, FloatArray] = {}

        def reach(bases: tuple[str, ...]) -> int:
            """Columns a family needs: its largest cutoff (or all) within the depth."""
            cuts = [s.k for s in specs if s.base in bases]
            return depth if None in cuts else min(depth, max(c for c in cuts if c is not None))

        def col(k: int | None) -> int:
            return depth - 1 if k is None else min(k, depth) - 1

        def ratio(num: npt.NDArray[Any], den: npt.NDArray[Any]) -> FloatArray:
            res = np.zeros(rows, dtype=np.float64)
            np.divide(num, den, out=res, where=den > 0)
            return res

        def precision_at(k: int | None) -> FloatArray:
            if k is None:
                return ratio(hits_cum[:, -1], lens)
            result: FloatArray = hits_cum[:, col(k)] / np.float64(k)
            return result

        def cumulative(name: str) -> FloatArray:
            """Running sums along the ranks, in the same order as the pure functions add."""
            if name in cache:
                return cache[name]
            if name == "rr":  # 1/i at each relevant rank i
                width = reach(("mrr_granular",))
                ranks = np.arange(1, width + 1, dtype=np.int64)
                terms = np.where(rel[:, :width], 1.0 / ranks, 0.0)
            elif name == "ap":  # precision@i at each relevant rank i
                width = reach(("map",))
                ranks = np.arange(1, width + 1, dtype=np.int64)
                terms = np.where(rel[:, :width], hits_cum[:, :width] / ranks, 0.0)
            else:  # "dcg" / "dcg_exp" and their ideal counterparts
                exp = name.startswith("dcg_exp")
                width = reach(("ndcg_exp",) if exp else ("ndcg",))
                ideal = self.ideal
                disc = np.array(_discounts(max(width, ideal.shape[1])), dtype=np.float64)
                if exp:  # a query's highest grade is always in ideal[:, 0]
                    table = _exp_gain_table(max(int(ideal.max()), 0))
                    gain, ideal_gain = table[grades[:, :width]], table[ideal]
                else:
                    gain = grades[:, :width].astype(np.float64)
                    ideal_gain = ideal.astype(np.float64)
                cache[name + "_ideal"] = np.cumsum(ideal_gain / disc[: ideal.shape[1]], axis=1)
                terms = gain / disc[:width]
            cache[name] = np.cumsum(terms, axis=1)
            return cache[name]

        results: dict[str, FloatArray] = {}
        for spec in specs:
            base, k = spec.base, spec.k
            if base in ("recall", "hit_rate_granular"):
                value = ratio(hits_cum[:, col(k)], n_rel)
            elif base == "precision":
                value = precision_at(k)
            elif base == "hit_rate":
                value = (hits_cum[:, col(k)] > 0).astype(np.float64)
            elif base == "f1":
                p, r = precision_at(k), ratio(hits_cum[:, col(k)], n_rel)
                total = p + r
                value = np.zeros(rows, dtype=np.float64)
                ok = total > 0
                value[ok] = 2 * p[ok] * r[ok] / total[ok]
            elif base == "mrr":
                window = rel[:, : col(k) + 1]
                first = np.argmax(window, axis=1)
                value = np.where(window[every_row, first], 1.0 / (first + 1), 0.0)
            elif base == "mrr_granular":
                value = ratio(cumulative("rr")[:, col(k)], hits_cum[:, col(k)])
            elif base == "map":
                value = ratio(cumulative("ap")[:, col(k)], n_rel)
            elif base in ("ndcg", "ndcg_exp"):
                name = "dcg_exp" if base == "ndcg_exp" else "dcg"
                dcg = cumulative(name)
                idcg = cache[name + "_ideal"]
                icol = idcg.shape[1] - 1 if k is None else min(k, idcg.shape[1]) - 1
                value = ratio(dcg[:, col(k)], idcg[:, icol])
            elif base == "r_precision":
                at = np.clip(np.minimum(n_rel, depth), 1, None) - 1
                value = ratio(hits_cum[every_row, at], n_rel)
            else:  # pragma: no cover - guarded by _resolve_specs
                raise AssertionError(base)
            results[spec.name] = np.where(has_rel, value, 0.0)
        return results


def _exp_gain_table(max_grade: int) -> FloatArray:
    """``2**g - 1`` for g = 0..max_grade, from the pure function's own arithmetic."""
    return np.array([0.0] + [_exp_gain(g) for g in range(1, max_grade + 1)], dtype=np.float64)


def _judged_array(
    judged: list[Any] | bytearray,
    rels: list[Mapping[str, int]],
    labels: list[str] | None,
    offset: int,
) -> IntArray:
    """All judged grades as int64, rejecting floats, strings and other non-integers."""
    if isinstance(judged, bytearray):  # only ints in 0..255 got in
        return np.frombuffer(judged, dtype=np.uint8).astype(np.int64)
    arr = np.array(judged) if judged else np.zeros(0, dtype=np.int64)
    if arr.dtype.kind in "iub" and arr.ndim == 1:
        return arr.astype(np.int64, copy=False)
    for i, rel in enumerate(rels, offset):  # slow path: find the offending grade for the message
        for doc, g in rel.items():
            _grade(doc, g, f"qrels: {_label(labels, i)}")
    raise TypeError("qrels: relevance grades must be integers")  # pragma: no cover


def _scores_float32(values: list[Any]) -> npt.NDArray[np.float32]:
    """All scores of a block, query after query, as float32 (trec_eval's precision).

    ``struct`` packs one query's scores in one C call, which is faster than any per-element
    iterator protocol; the bytes are then viewed by numpy without a copy.
    """
    packers: dict[int, Callable[..., bytes]] = {}
    parts: list[bytes] = []
    add = parts.append
    try:
        for ranking in values:
            n = len(ranking)
            pack = packers.get(n)
            if pack is None:
                pack = packers[n] = struct.Struct(f"{n}d").pack
            add(pack(*ranking.values()))
    except struct.error as exc:
        raise TypeError(f"run: scores must be numbers ({exc})") from None
    doubles = np.frombuffer(b"".join(parts), dtype=np.float64)
    with np.errstate(over="ignore"):  # like trec_eval: beyond float32 range -> inf
        return doubles.astype(np.float32)


def _rank_by_score(
    values: list[Any],
    rels: list[Mapping[str, int]],
    dense: list[int] | bytearray,
    lens: IntArray,
    width: int,
    depth: int,
    labels: list[str] | None,
    offset: int,
) -> IntArray:
    """Grades in rank order (first ``depth`` ranks) for ``{doc: score}`` rankings.

    numpy sorts every row by its float32 scores (see :func:`rank_scores`); it knows nothing of
    doc ids, so a row where tied scores could change the result (a tie between docs of
    different grades within the first ``depth`` ranks, or a tie across the cut) is re-ranked
    exactly by :func:`rank_scores`.
    """
    total = int(lens.sum())
    scores_flat = _scores_float32(values)
    nan = np.isnan(scores_flat)
    if nan.any():
        row = int(np.searchsorted(np.cumsum(lens), int(np.flatnonzero(nan)[0]), side="right"))
        raise ValueError(
            f"run: scores must not be NaN (found one in {_label(labels, offset + row)})"
        )
    if isinstance(dense, bytearray):  # grades known to be in 0..255
        grades_flat: npt.NDArray[np.integer[Any]] = np.frombuffer(dense, dtype=np.uint8)
    else:
        grades_flat = np.fromiter(dense, dtype=np.int64, count=total)
        np.maximum(grades_flat, 0, out=grades_flat)  # negative grades count as 0
    rows = len(lens)
    if rows * width == total:  # every ranking has the same length
        scores = scores_flat.reshape(rows, width)
        grades = grades_flat.reshape(rows, width)
    else:
        at = _pad_index(lens)
        scores = np.full((rows, width), np.nan, dtype=np.float32)  # sorts last, never ties
        scores[at] = scores_flat
        grades = np.zeros((rows, width), dtype=grades_flat.dtype)
        grades[at] = grades_flat
    # runs are often written best first: then the rows need no sorting at all
    in_order = scores[:, 1:] <= scores[:, :-1]
    in_order |= np.isnan(scores[:, 1:])  # padding after a shorter ranking
    if in_order.all():
        ranked_scores = scores[:, : depth + 1]
        graded: IntArray = grades[:, :depth].astype(np.int64)
    else:
        order = np.argsort(-scores, axis=1)[:, : depth + 1]
        ranked_scores = np.take_along_axis(scores, order, axis=1)
        graded = np.take_along_axis(grades, order[:, :depth], axis=1).astype(np.int64)
    # rows to redo: a tie between different grades inside the top ``depth``, or any tie across
    # the cut (a doc from below it may belong above it)
    tie = ranked_scores[:, 1:] == ranked_scores[:, :-1]
    risky = (tie[:, : depth - 1] & (graded[:, 1:] != graded[:, :-1])).any(axis=1)
    if tie.shape[1] >= depth:
        risky |= tie[:, depth - 1]
    for row in np.flatnonzero(risky).tolist():
        rel = rels[row]
        ordered = rank_scores(values[row])[:depth]
        graded[row, : len(ordered)] = [max(rel.get(doc, 0), 0) for doc in ordered]
    return graded
