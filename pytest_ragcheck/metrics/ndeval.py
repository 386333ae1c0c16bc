"""The arithmetic of TREC's ``ndeval`` (SPEC §12's diversity metrics), operation for operation.

Every value equals ``ndeval`` (version 4.5, the Web track's diversity evaluation; in Python
``pyndeval``) on the same ranking, bit for bit, for every cutoff from 1 to 20, and follows the
same definitions beyond 20. ndeval's conventions, kept on purpose:

* judgments are binary: a document is relevant to a subtopic when its grade is >= 1;
* the intent-aware measures weight the subtopics uniformly over the ``A`` subtopics that have
  a relevant document (a subtopic judged only 0 is ignored); ``A == 0`` scores 0 everywhere;
* a document's gain is the sum, over the subtopics it is relevant to, of ``(1 - alpha)`` to
  the power of the number of documents above it relevant to the same subtopic;
* ``err_ia`` and ``alpha-DCG`` are divided by an "ideal ideal" (``A`` subtopics covered at
  every rank) except at rank 1, where ndeval leaves them undivided: ``err_ia@1`` is the gain
  of the first hit (up to ``A``), which the normalised ``nerr_ia@1`` puts back in [0, 1];
* ``alpha_ndcg`` and ``nerr_ia`` divide by the same quantity of an ideal ranking built
  greedily (at each rank the judged document with the largest gain, ties to the larger id in
  byte order), and are 0 when the ranking has no gain in the top k;
* ``map_ia``, ``nrbp`` and ``nnrbp`` read the whole ranking; ``nrbp`` is multiplied by
  ``(1 - (1 - alpha) * beta) / A``; ``nnrbp`` is divided by the ideal ranking's ``nrbp``
  (0 when that is 0, at ``alpha = 0, beta = 1``, where ndeval prints NaN).

``k=None`` evaluates at the depth of the ranking (``len(retrieved)``). Subtopics are taken in
the order given: ndeval sums a document's gains in subtopic order, and the greedy ideal
compares such sums, so the order is part of the arithmetic (it changes a value only when two
sums tie to the last bit).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from pytest_ragcheck.metrics.reference import _ranking

__all__ = ["Covered", "DiversityColumns", "Judgments", "Subtopics", "judgments"]

#: ``{subtopic: {doc id: grade}}`` or ``{subtopic: [doc ids]}`` (grade 1 each).
Subtopics: TypeAlias = Mapping[str, Mapping[str, int] | Iterable[str]]
#: Per rank, the indices of the subtopics the document there is relevant to (ascending).
Covered: TypeAlias = Sequence[tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class Judgments:
    """One query's subtopic judgments in ndeval's form."""

    #: Subtopic names, in the order given.
    names: tuple[str, ...]
    #: Judged document -> the subtopics it is relevant to; documents relevant to none are left
    #: out (they add nothing to any sum, and the greedy ideal ranks them last).
    docs: Mapping[str, tuple[int, ...]]
    #: Per subtopic, the number of relevant documents (ndeval's ``nrelSub``).
    relevant: tuple[int, ...]

    @property
    def actual(self) -> int:
        """``A``: the subtopics with at least one relevant document."""
        return sum(1 for count in self.relevant if count)

    def covered(self, ranking: Iterable[str]) -> list[tuple[int, ...]]:
        """The subtopics of each ranked document (``()`` for one judged on none)."""
        docs = self.docs
        return [docs.get(doc, ()) for doc in ranking]


def judgments(subtopics: Subtopics) -> Judgments:
    """Read ``{subtopic: {doc: grade}}`` (or lists of ids, grade 1 each)."""
    if not isinstance(subtopics, Mapping):
        raise TypeError(
            "subtopics must be a mapping {subtopic: {doc id: grade}} or {subtopic: [doc ids]}, "
            f"got {type(subtopics).__name__}"
        )
    names = tuple(subtopics)
    found: dict[str, list[int]] = {}
    relevant: list[int] = []
    for index, name in enumerate(names):
        given = subtopics[name]
        grades = (
            given
            if isinstance(given, Mapping)
            else dict.fromkeys(_ranking(given, f"subtopics[{name!r}]"), 1)
        )
        count = 0
        for doc, grade in grades.items():
            if not isinstance(doc, str):
                raise TypeError(f"subtopics[{name!r}]: document ids must be str, got {doc!r}")
            if isinstance(grade, bool) or not isinstance(grade, int):
                raise TypeError(
                    f"subtopics[{name!r}]: grades must be integers, got {grade!r} for {doc!r}"
                )
            if grade >= 1:
                found.setdefault(doc, []).append(index)
                count += 1
        relevant.append(count)
    docs = {doc: tuple(indices) for doc, indices in found.items()}
    return Judgments(names, docs, tuple(relevant))


# --------------------------------------------------------------------------- ndeval's sums


def _discount(i: int) -> float:
    """ndeval's ``discount(i)`` for 0-based rank ``i``: 1 at the top, then log 2 / log(i+2)."""
    return 1.0 if i <= 0 else math.log(2.0) / math.log(i + 2.0)


def _gains(covered: Covered, subtopics: int, alpha: float, depth: int | None) -> list[float]:
    """ndeval's per-rank ``score``: each subtopic's gain, decayed by ``1 - alpha`` per use."""
    gain = [1.0] * subtopics
    scores: list[float] = []
    for rel in covered if depth is None else covered[:depth]:
        score = 0.0
        for j in rel:
            score += gain[j]
            gain[j] *= 1.0 - alpha
        scores.append(score)
    return scores


def _ideal(judged: Judgments, alpha: float) -> list[tuple[int, ...]]:
    """ndeval's greedy ideal ranking (``idealResult``) of the documents relevant to a
    subtopic: at each rank the largest gain, a tie to the larger document id."""
    gain = [1.0] * len(judged.names)
    left = sorted(judged.docs.items())  # ndeval scans in id order, ties to the later one
    ranked: list[tuple[int, ...]] = []
    while left:
        where = -1
        best = 0.0
        for i, (_, rel) in enumerate(left):
            score = 0.0
            for j in rel:
                score += gain[j]
            if where == -1 or score >= best:  # ">=": the later (larger) id wins a tie
                best, where = score, i
        rel = left.pop(where)[1]
        ranked.append(rel)
        for j in rel:
            gain[j] *= 1.0 - alpha
    return ranked


def _cumulative(scores: list[float], depth: int, actual: int, alpha: float, err: bool) -> float:
    """ndeval's ``computeDCG`` (``err=False``) or ``computeERR`` at ``depth`` (>= 1)."""
    total = 0.0
    ideal_total = 0.0
    ideal_gain = float(actual)
    for i in range(depth):
        score = scores[i] if i < len(scores) else 0.0
        if err:
            total += score / float(i + 1)
            ideal_total += ideal_gain / float(i + 1)
        else:
            total += score * _discount(i)
            ideal_total += ideal_gain * _discount(i)
        ideal_gain *= 1.0 - alpha
    return total if depth == 1 else total / ideal_total


def _nrbp_sum(scores: list[float], alpha: float, beta: float, actual: int) -> float:
    total = 0.0
    decay = 1.0
    for score in scores:
        total += score * decay
        decay *= beta
    return total * ((1 - (1 - alpha) * beta) / actual)


# --------------------------------------------------------------------------- one query


class DiversityColumns:
    """One ranking against one query's judgments: its gains and ideal computed once, and a
    method per metric (the registry's ``engine`` names them)."""

    __slots__ = ("_ideal", "actual", "alpha", "beta", "covered", "judged", "scores")

    def __init__(
        self, covered: Covered, judged: Judgments, alpha: float, beta: float, depth: int | None
    ) -> None:
        self.covered = covered
        self.judged = judged
        self.alpha = alpha
        self.beta = beta
        self.actual = judged.actual
        self.scores = _gains(covered, len(judged.names), alpha, depth)
        self._ideal: list[float] | None = None

    def _depth(self, k: int | None) -> int:
        return len(self.covered) if k is None else k

    @property
    def ideal(self) -> list[float]:
        if self._ideal is None:
            ranked = _ideal(self.judged, self.alpha)
            self._ideal = _gains(ranked, len(self.judged.names), self.alpha, None)
        return self._ideal

    def _normalised(self, k: int | None, err: bool) -> float:
        depth = self._depth(k)
        if self.actual == 0 or depth == 0:
            return 0.0
        dcg = _cumulative(self.scores, depth, self.actual, self.alpha, err=False)
        if not dcg:  # ndeval's renormalize: nothing gained in the top k
            return 0.0
        if not err:
            return dcg / _cumulative(self.ideal, depth, self.actual, self.alpha, err=False)
        run = _cumulative(self.scores, depth, self.actual, self.alpha, err=True)
        return run / _cumulative(self.ideal, depth, self.actual, self.alpha, err=True)

    def alpha_ndcg(self, k: int | None) -> float:
        return self._normalised(k, err=False)

    def nerr_ia(self, k: int | None) -> float:
        return self._normalised(k, err=True)

    def err_ia(self, k: int | None) -> float:
        depth = self._depth(k)
        if self.actual == 0 or depth == 0:
            return 0.0
        return _cumulative(self.scores, depth, self.actual, self.alpha, err=True)

    def p_ia(self, k: int | None) -> float:
        depth = self._depth(k)
        if self.actual == 0 or depth == 0:
            return 0.0
        count = sum(len(rel) for rel in self.covered[:depth])
        return count / (depth * self.actual)

    def subtopic_recall(self, k: int | None) -> float:
        if self.actual == 0:
            return 0.0
        seen = {j for rel in self.covered[: self._depth(k)] for j in rel}
        return len(seen) / self.actual

    def map_ia(self, k: int | None) -> float:
        if self.actual == 0:
            return 0.0
        judged = self.judged
        count = [0] * len(judged.names)
        total = [0.0] * len(judged.names)
        for i, rel in enumerate(self.covered[: self._depth(k)]):
            for j in rel:
                count[j] += 1
                total[j] += count[j] / float(i + 1)
        value = 0.0
        for j, relevant in enumerate(judged.relevant):
            if relevant:
                value += total[j] / relevant
        return value / self.actual

    def nrbp(self, k: int | None) -> float:
        if self.actual == 0:
            return 0.0
        return _nrbp_sum(self.scores[: self._depth(k)], self.alpha, self.beta, self.actual)

    def nnrbp(self, k: int | None) -> float:
        if self.actual == 0:
            return 0.0
        ideal = _nrbp_sum(self.ideal, self.alpha, self.beta, self.actual)
        return self.nrbp(k) / ideal if ideal else 0.0
