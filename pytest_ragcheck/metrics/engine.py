"""The vectorised engine: every requested rank metric for many queries at once.

Queries are processed in blocks so that memory stays flat (:mod:`.gather` builds each block's
graded matrix). Everything else - cumulative hit counts, reciprocal ranks, average precision,
DCG and ideal DCG - is a handful of numpy operations in :class:`_Columns`, shared by all
requested metrics and cutoffs; each metric is the column method its registry entry names
(``Metric.engine``). See ``docs/metrics.md`` for measured figures.

The numbers equal the pure functions bit for bit: both sides add the same float64 terms in the
same order (numpy's ``cumsum`` is a sequential accumulate, never a pairwise sum) and divide by
the same ``math.log2`` discounts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any, TypeAlias, cast

import numpy as np
import numpy.typing as npt

from pytest_ragcheck.metrics.gather import GradedBlock, build_block
from pytest_ragcheck.metrics.names import MetricSpec
from pytest_ragcheck.metrics.reference import _exp_gain

__all__ = ["FloatArray", "evaluate_blocks"]

FloatArray: TypeAlias = npt.NDArray[np.float64]

#: Column methods that need each query's ideal ranking (the relevant grades, best first).
_IDEAL_HOOKS = frozenset({"ndcg", "ndcg_exp"})
#: Column methods defined for a query with nothing relevant (the others are 0 for it).
_ANY_QUERY_HOOKS = frozenset({"judged"})


def evaluate_blocks(
    values: list[Any],
    rels: list[Mapping[str, int]],
    specs: list[MetricSpec],
    labels: list[str] | None,
    *,
    chunk: int,
) -> dict[str, FloatArray]:
    """``{spec name: one float64 per query}``, ``chunk`` queries at a time."""
    n_queries = len(values)
    out = {spec.name: np.zeros(n_queries, dtype=np.float64) for spec in specs}
    if n_queries == 0 or not specs:
        return out
    by_score = isinstance(values[0], Mapping)
    # how deep the graded matrix must go: the largest cutoff, or everything
    whole = any(s.k is None or not s.metric.cutoff for s in specs)
    depth_cap = None if whole else max(s.k for s in specs if s.k is not None)
    ideal_cuts = [s.k for s in specs if s.metric.engine in _IDEAL_HOOKS]
    ideal_cap: int | None = 0
    if ideal_cuts:
        ideal_cap = None if None in ideal_cuts else max(c for c in ideal_cuts if c is not None)
    for start in range(0, n_queries, chunk):
        stop = min(start + chunk, n_queries)
        block = build_block(
            values[start:stop],
            rels[start:stop],
            by_score=by_score,
            labels=labels,
            offset=start,
            depth_cap=depth_cap,
            ideal_cap=ideal_cap,
            want_judged=any(s.metric.engine == "judged" for s in specs),
        )
        for name, arr in _compute(block, specs).items():
            out[name][start:stop] = arr
    return out


def _compute(block: GradedBlock, specs: Sequence[MetricSpec]) -> dict[str, FloatArray]:
    """Every requested metric from the one graded matrix (0 for a query with R == 0, but for
    the hooks that are defined without a relevant document)."""
    columns = _Columns(block, specs)
    has_rel = block.n_rel > 0
    results: dict[str, FloatArray] = {}
    for spec in specs:
        hook = spec.metric.engine
        if hook is None:  # pragma: no cover - guarded by evaluate_run's spec check
            raise AssertionError(spec.base)
        method = cast(Callable[[int | None], FloatArray], getattr(columns, hook))
        values = method(spec.k)
        results[spec.name] = values if hook in _ANY_QUERY_HOOKS else np.where(has_rel, values, 0.0)
    return results


class _Columns:
    """One block's per-query values of each metric family, sharing cumulative sums.

    Each public method is an engine hook (``Metric.engine``): the metric at cutoff ``k``
    (``None`` = whole ranking) for every query of the block. A running sum only looks as deep
    as the largest cutoff its metric is asked at.
    """

    def __init__(self, block: GradedBlock, specs: Sequence[MetricSpec]) -> None:
        self.block = block
        self.specs = specs
        self.rows, self.depth = int(block.grades.shape[0]), int(block.grades.shape[1])
        self.rel = block.grades > 0
        self.hits_cum = np.cumsum(self.rel, axis=1, dtype=np.int64)
        self.every_row = np.arange(self.rows)
        self._running: dict[str, FloatArray] = {}

    def _reach(self, hook: str) -> int:
        """Columns a hook needs: its largest cutoff (or all) within the depth."""
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
            found = self._running[name] = np.cumsum(terms(self._reach(hook)), axis=1)
        return found

    def _rr_terms(self, width: int) -> FloatArray:
        """1/i at each relevant rank i."""
        ranks = np.arange(1, width + 1, dtype=np.int64)
        return np.where(self.rel[:, :width], 1.0 / ranks, 0.0)

    def _ap_terms(self, width: int) -> FloatArray:
        """precision@i at each relevant rank i."""
        ranks = np.arange(1, width + 1, dtype=np.int64)
        return np.where(self.rel[:, :width], self.hits_cum[:, :width] / ranks, 0.0)

    def _dcg(self, hook: str, exp: bool) -> tuple[FloatArray, FloatArray]:
        """Running DCG and running ideal DCG, with the linear or the exponential gain."""
        name = "dcg_exp" if exp else "dcg"
        if name not in self._running:
            grades, ideal = self.block.grades, self.block.ideal
            width = self._reach(hook)
            disc = np.array(_discounts(max(width, ideal.shape[1])), dtype=np.float64)
            if exp:  # a query's highest grade is always in ideal[:, 0]
                table = _exp_gain_table(max(int(ideal.max()), 0))
                gain, ideal_gain = table[grades[:, :width]], table[ideal]
            else:
                gain = grades[:, :width].astype(np.float64)
                ideal_gain = ideal.astype(np.float64)
            self._running[name + "_ideal"] = np.cumsum(ideal_gain / disc[: ideal.shape[1]], axis=1)
            self._running[name] = np.cumsum(gain / disc[:width], axis=1)
        return self._running[name], self._running[name + "_ideal"]

    def _ndcg(self, k: int | None, hook: str, exp: bool) -> FloatArray:
        dcg, idcg = self._dcg(hook, exp)
        icol = idcg.shape[1] - 1 if k is None else min(k, idcg.shape[1]) - 1
        return self._ratio(dcg[:, self._col(k)], idcg[:, icol])

    # ---- engine hooks -----------------------------------------------------------------------

    def hit_rate(self, k: int | None) -> FloatArray:
        return (self.hits_cum[:, self._col(k)] > 0).astype(np.float64)

    def recall(self, k: int | None) -> FloatArray:
        return self._ratio(self.hits_cum[:, self._col(k)], self.block.n_rel)

    def precision(self, k: int | None) -> FloatArray:
        if k is None:
            return self._ratio(self.hits_cum[:, -1], self.block.lengths)
        result: FloatArray = self.hits_cum[:, self._col(k)] / np.float64(k)
        return result

    def f1(self, k: int | None) -> FloatArray:
        p, r = self.precision(k), self.recall(k)
        total = p + r
        value = np.zeros(self.rows, dtype=np.float64)
        ok = total > 0
        value[ok] = 2 * p[ok] * r[ok] / total[ok]
        return value

    def mrr(self, k: int | None) -> FloatArray:
        window = self.rel[:, : self._col(k) + 1]
        first = np.argmax(window, axis=1)
        result: FloatArray = np.where(window[self.every_row, first], 1.0 / (first + 1), 0.0)
        return result

    def mrr_granular(self, k: int | None) -> FloatArray:
        rr = self._cumulative("rr", self._rr_terms, "mrr_granular")
        return self._ratio(rr[:, self._col(k)], self.hits_cum[:, self._col(k)])

    def map(self, k: int | None) -> FloatArray:
        ap = self._cumulative("ap", self._ap_terms, "map")
        return self._ratio(ap[:, self._col(k)], self.block.n_rel)

    def ndcg(self, k: int | None) -> FloatArray:
        return self._ndcg(k, "ndcg", exp=False)

    def ndcg_exp(self, k: int | None) -> FloatArray:
        return self._ndcg(k, "ndcg_exp", exp=True)

    def judged(self, k: int | None) -> FloatArray:
        """Documents with a judgment in the top k / documents in the top k (Judged@k)."""
        marks = self.block.judged
        if marks is None:  # pragma: no cover - build_block marks whenever judged is asked
            raise AssertionError("judged needs the block's judgment marks")
        counts = marks[:, : self._col(k) + 1].sum(axis=1)
        lengths = self.block.lengths
        return self._ratio(counts, lengths if k is None else np.minimum(lengths, k))

    def r_precision(self, k: int | None) -> FloatArray:
        """Precision at rank R; ``k`` is ignored (the metric has no cutoff)."""
        n_rel = self.block.n_rel
        at = np.clip(np.minimum(n_rel, self.depth), 1, None) - 1
        return self._ratio(self.hits_cum[self.every_row, at], n_rel)


@lru_cache(maxsize=64)
def _discounts(n: int) -> tuple[float, ...]:
    """``log2(i + 1)`` for ranks ``i = 1..n``, from ``math.log2`` like the pure functions'
    ``_discount`` (numpy's own log2 may differ from it in the last bit)."""
    return tuple(math.log2(i + 1) for i in range(1, n + 1))


def _exp_gain_table(max_grade: int) -> FloatArray:
    """``2**g - 1`` for g = 0..max_grade, from the pure function's own arithmetic."""
    _exp_gain(max_grade)  # a grade too large is named in the error, not the first that fails
    return np.array([0.0] + [_exp_gain(g) for g in range(1, max_grade + 1)], dtype=np.float64)
