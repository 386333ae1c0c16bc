"""The vectorised engine: every requested rank metric for many queries at once.

Queries are processed in blocks so that memory stays flat (:mod:`.block` builds each block's
graded matrix). Everything else - cumulative hit counts, reciprocal ranks, average precision,
DCG and ideal DCG - is a handful of numpy operations in :class:`_Columns`, shared by all
requested metrics and cutoffs; each metric is the column method its registry entry names
(``Metric.engine``). See ``docs/metrics.md`` for measured figures.

The numbers equal the pure functions bit for bit: both sides add the same float64 terms in the
same order (a running sum adds rank after rank, never a pairwise sum) and divide by the same
``math.log2`` discounts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any, TypeAlias, cast

import numpy as np
import numpy.typing as npt

from pytest_ragcheck.metrics.block import GradedBlock, build_block
from pytest_ragcheck.metrics.gather import IntArray
from pytest_ragcheck.metrics.names import MetricSpec
from pytest_ragcheck.metrics.reference import _exp_gain

__all__ = ["FloatArray", "evaluate_blocks"]

FloatArray: TypeAlias = npt.NDArray[np.float64]

#: Column methods that need each query's ideal ranking (the relevant grades, best first).
_IDEAL_HOOKS = frozenset({"ndcg", "ndcg_exp"})
#: Below this many queries a block's running sums take one ``cumsum`` (see ``_running_sum``).
_FEW_QUERIES = 256


def evaluate_blocks(
    values: list[Any],
    rels: list[Mapping[str, int]],
    specs: list[MetricSpec],
    labels: list[str] | None,
    *,
    chunk: int,
    distinct: bool = False,
) -> dict[str, FloatArray]:
    """``{spec name: one float64 per query}``, ``chunk`` queries at a time (``distinct``: the
    caller guarantees that no ranking repeats an id)."""
    n_queries = len(values)
    if n_queries == 0 or not specs:
        return {spec.name: np.zeros(n_queries, dtype=np.float64) for spec in specs}
    by_score = isinstance(values[0], Mapping)
    # how deep the graded matrix must go: the largest cutoff, or everything
    whole = any(s.k is None or not s.metric.cutoff for s in specs)
    depth_cap = None if whole else max(s.k for s in specs if s.k is not None)
    ideal_cuts = [s.k for s in specs if s.metric.engine in _IDEAL_HOOKS]
    ideal_cap: int | None = 0
    if ideal_cuts:
        ideal_cap = None if None in ideal_cuts else max(c for c in ideal_cuts if c is not None)
    parts: list[dict[str, FloatArray]] = []
    for start in range(0, n_queries, chunk):
        block = build_block(
            values,
            rels,
            stop=min(start + chunk, n_queries),
            by_score=by_score,
            labels=labels,
            offset=start,
            depth_cap=depth_cap,
            ideal_cap=ideal_cap,
            want_judged=any(s.metric.engine == "judged" for s in specs),
            distinct=distinct,
        )
        parts.append(_compute(block, specs))
    if len(parts) == 1:
        return parts[0]
    return {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}


def _compute(block: GradedBlock, specs: Sequence[MetricSpec]) -> dict[str, FloatArray]:
    """Every requested metric from the one graded matrix.

    A query with R == 0 scores 0 on every hook but ``judged`` without a special case: no rank
    of it has a grade > 0, so no hit, no gain and no reciprocal rank enter its values.
    """
    columns = _Columns(block, specs)
    results: dict[str, FloatArray] = {}
    for spec in specs:
        hook = spec.metric.engine
        if hook is None:  # pragma: no cover - guarded by evaluate_run's spec check
            raise AssertionError(spec.base)
        method = cast(Callable[[int | None], FloatArray], getattr(columns, hook))
        results[spec.name] = method(spec.k)
    return results


class _Columns:
    """One block's per-query values of each metric family, sharing running sums.

    Each public method is an engine hook (``Metric.engine``): the metric at cutoff ``k``
    (``None`` = whole ranking) for every query of the block. The matrices are rank-major (one
    row per rank, one column per query), so that a running sum is one vector addition per
    rank; a running sum only looks as deep as the largest cutoff its metric is asked at.
    """

    def __init__(self, block: GradedBlock, specs: Sequence[MetricSpec]) -> None:
        self.block = block
        self.specs = specs
        self.depth, self.rows = int(block.grades.shape[0]), int(block.grades.shape[1])
        self.grades = block.grades
        self.rel = self.grades > 0
        self.every_row = np.arange(self.rows)
        self._running: dict[str, npt.NDArray[Any]] = {}

    @property
    def hits_cum(self) -> IntArray:
        """Relevant documents in the top i, for each rank i (computed once, when first asked)."""
        found = self._running.get("hits")
        if found is None:
            found = self._running["hits"] = _running_sum(self.rel.astype(np.int64))
        return found

    def _reach(self, hook: str) -> int:
        """Ranks a hook needs: its largest cutoff (or all) within the depth."""
        cuts = [s.k for s in self.specs if s.metric.engine == hook]
        if None in cuts:
            return self.depth
        return min(self.depth, max(c for c in cuts if c is not None))

    def _col(self, k: int | None) -> int:
        return self.depth - 1 if k is None else min(k, self.depth) - 1

    def _ratio(self, num: npt.NDArray[Any], den: npt.NDArray[Any]) -> FloatArray:
        res = np.zeros(self.rows, dtype=np.float64)
        np.divide(num, den, out=res, where=den > 0)
        return res

    def _cumulative(self, name: str, terms: Callable[[int], FloatArray], hook: str) -> FloatArray:
        """Running sums of ``terms(width)`` along the ranks, in the pure functions' order."""
        found = self._running.get(name)
        if found is None:
            found = self._running[name] = _running_sum(terms(self._reach(hook)))
        return found

    def _rr_terms(self, width: int) -> FloatArray:
        """1/i at each relevant rank i."""
        ranks = np.arange(1, width + 1, dtype=np.int64)
        return np.where(self.rel[:width], (1.0 / ranks)[:, None], 0.0)

    def _ap_terms(self, width: int) -> FloatArray:
        """precision@i at each relevant rank i."""
        ranks = np.arange(1, width + 1, dtype=np.int64)
        return np.where(self.rel[:width], self.hits_cum[:width] / ranks[:, None], 0.0)

    def _dcg(self, hook: str, exp: bool) -> tuple[FloatArray, FloatArray]:
        """Running DCG and running ideal DCG, with the linear or the exponential gain."""
        name = "dcg_exp" if exp else "dcg"
        if name not in self._running:
            grades, ideal = self.grades, self.block.ideal
            width = self._reach(hook)
            disc = np.array(_discounts(max(width, len(ideal))), dtype=np.float64)[:, None]
            if exp:  # a query's highest grade is always in its first ideal rank
                table = _exp_gain_table(max(int(ideal.max()), 0))
                gain, ideal_gain = table[grades[:width]], table[ideal]
            else:
                gain = grades[:width].astype(np.float64)
                ideal_gain = ideal.astype(np.float64)
            ideal_gain /= disc[: len(ideal)]
            gain /= disc[:width]
            self._running[name + "_ideal"] = _running_sum(ideal_gain)
            self._running[name] = _running_sum(gain)
        return self._running[name], self._running[name + "_ideal"]

    def _ndcg(self, k: int | None, hook: str, exp: bool) -> FloatArray:
        dcg, idcg = self._dcg(hook, exp)
        icol = len(idcg) - 1 if k is None else min(k, len(idcg)) - 1
        return self._ratio(dcg[self._col(k)], idcg[icol])

    # ---- engine hooks -----------------------------------------------------------------------

    def hit_rate(self, k: int | None) -> FloatArray:
        result: FloatArray = (self.hits_cum[self._col(k)] > 0).astype(np.float64)
        return result

    def recall(self, k: int | None) -> FloatArray:
        return self._ratio(self.hits_cum[self._col(k)], self.block.n_rel)

    def precision(self, k: int | None) -> FloatArray:
        if k is None:
            return self._ratio(self.hits_cum[-1], self.block.lengths)
        result: FloatArray = self.hits_cum[self._col(k)] / np.float64(k)
        return result

    def f1(self, k: int | None) -> FloatArray:
        p, r = self.precision(k), self.recall(k)
        total = p + r
        value = np.zeros(self.rows, dtype=np.float64)
        ok = total > 0
        value[ok] = 2 * p[ok] * r[ok] / total[ok]
        return value

    def mrr(self, k: int | None) -> FloatArray:
        window = self.rel[: self._col(k) + 1]
        first = np.argmax(window, axis=0)
        result: FloatArray = np.where(window[first, self.every_row], 1.0 / (first + 1), 0.0)
        return result

    def mrr_granular(self, k: int | None) -> FloatArray:
        rr = self._cumulative("rr", self._rr_terms, "mrr_granular")
        return self._ratio(rr[self._col(k)], self.hits_cum[self._col(k)])

    def map(self, k: int | None) -> FloatArray:
        ap = self._cumulative("ap", self._ap_terms, "map")
        return self._ratio(ap[self._col(k)], self.block.n_rel)

    def ndcg(self, k: int | None) -> FloatArray:
        return self._ndcg(k, "ndcg", exp=False)

    def ndcg_exp(self, k: int | None) -> FloatArray:
        return self._ndcg(k, "ndcg_exp", exp=True)

    def judged(self, k: int | None) -> FloatArray:
        """Documents with a judgment in the top k / documents in the top k (Judged@k)."""
        marks = self.block.judged
        if marks is None:  # pragma: no cover - build_block marks whenever judged is asked
            raise AssertionError("judged needs the block's judgment marks")
        counts = marks[: self._col(k) + 1].sum(axis=0)
        lengths = self.block.lengths
        return self._ratio(counts, lengths if k is None else np.minimum(lengths, k))

    def r_precision(self, k: int | None) -> FloatArray:
        """Precision at rank R; ``k`` is ignored (the metric has no cutoff)."""
        n_rel = self.block.n_rel
        at = np.clip(np.minimum(n_rel, self.depth), 1, None) - 1
        return self._ratio(self.hits_cum[at, self.every_row], n_rel)


def _running_sum(terms: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Running sums along the ranks of a rank-major matrix, in place, in the order of the pure
    functions' loops (rank 1 first): one vector addition per rank, or for a few queries one
    ``cumsum`` (a sequential accumulate too; it walks the ranks query by query, which only
    pays off below ~250 queries)."""
    if terms.shape[1] < _FEW_QUERIES:
        return np.cumsum(terms, axis=0, out=terms)
    for i in range(1, len(terms)):
        np.add(terms[i - 1], terms[i], out=terms[i])
    return terms


@lru_cache(maxsize=64)
def _discounts(n: int) -> tuple[float, ...]:
    """``log2(i + 1)`` for ranks ``i = 1..n``, from ``math.log2`` like the pure functions'
    ``_discount`` (numpy's own log2 may differ from it in the last bit)."""
    return tuple(math.log2(i + 1) for i in range(1, n + 1))


def _exp_gain_table(max_grade: int) -> FloatArray:
    """``2**g - 1`` for g = 0..max_grade, from the pure function's own arithmetic."""
    _exp_gain(max_grade)  # a grade too large is named in the error, not the first that fails
    return np.array([0.0] + [_exp_gain(g) for g in range(1, max_grade + 1)], dtype=np.float64)
