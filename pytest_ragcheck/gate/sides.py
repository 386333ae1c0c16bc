"""One metric against its baseline: the two sides' values and the tolerance-then-test rule.

Shared by the overall comparison (``against_baseline``) and the per-tag gate (``per_tag``). Pure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from pytest_ragcheck.baseline.document import BaselineDoc, round_value
from pytest_ragcheck.common.display import counted
from pytest_ragcheck.gate.case_match import CaseMatch
from pytest_ragcheck.gate.checks import MetricCheck
from pytest_ragcheck.report.labels import detectable_words, p_words

if TYPE_CHECKING:
    from pytest_ragcheck.gate.stats import PairedTest

__all__ = ["Judged", "Sides", "judge_change"]

#: Deltas are differences of rounded values; this absorbs float noise at the tolerance edge.
_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class Sides:
    """Baseline and current per-case values, read over the shared cases."""

    stored: BaselineDoc
    current: BaselineDoc
    match: CaseMatch
    #: Each side's values over the shared cases, one array per metric, read once (by the
    #: ``id`` of the side's cases: an unchanged baseline shares them), and each shared case's
    #: row (by ``None``).
    _read: dict[int | None, Any] = field(default_factory=dict, repr=False, compare=False)
    #: Whether each side's every case has every metric (by the ``id`` of its cases).
    _complete: dict[int, bool] = field(default_factory=dict, repr=False, compare=False)

    def values(self, doc: BaselineDoc, name: str, ids: Sequence[str]) -> Any:
        """``doc``'s values of ``name`` over ``ids`` (a numpy array, in the order of ``ids``)."""
        shared = self.match.shared
        columns = self._read.get(id(doc.cases))
        if columns is None:
            columns = self._read[id(doc.cases)] = _columns(doc.cases, self.current.metrics, shared)
        if ids is shared or ids == shared:
            return columns[name]
        rows = self._read.get(None)
        if rows is None:
            rows = self._read[None] = {case_id: n for n, case_id in enumerate(shared)}
        return columns[name][[rows[i] for i in ids]]

    def scored(self, name: str, ids: Sequence[str]) -> Sequence[str]:
        """The cases of ``ids`` that have a value of ``name`` on both sides (``ids`` itself
        when all do). A case can lack one: ``judged@k`` of a case that errored, a judge
        metric of a case whose every item the judge left out (``judge_disagreement``)."""
        docs = [d for d in (self.stored, self.current) if not self._all_scored(d)]
        if not docs:
            return ids
        return [i for i in ids if all(name in d.cases[i] for d in docs)]

    def _all_scored(self, doc: BaselineDoc) -> bool:
        known = self._complete.get(id(doc.cases))
        if known is None:
            width = len(doc.metrics)
            known = self._complete[id(doc.cases)] = set(map(len, doc.cases.values())) <= {width}
        return known

    def means(self, name: str, ids: Sequence[str]) -> tuple[float, float]:
        """Both sides' means over ``ids``, rounded like stored values.

        When nothing was added, removed or edited the stored aggregates are used as they are,
        so an unchanged rerun compares exactly the numbers it stores.
        """
        if self.match.whole and len(ids) == len(self.match.shared):
            return self.stored.aggregates[name], self.current.aggregates[name]
        precision = self.current.precision
        before = math.fsum(self.values(self.stored, name, ids).tolist()) / len(ids)
        after = math.fsum(self.values(self.current, name, ids).tolist()) / len(ids)
        return round_value(before, precision), round_value(after, precision)

    def paired(self, names: Sequence[str], ids: Sequence[str]) -> dict[str, PairedTest]:
        """One paired test per metric over ``ids``, in the direction of the observed change."""
        import numpy as np

        from pytest_ragcheck.gate.stats import directions, paired_tests

        before = np.empty((len(ids), len(names)))
        after = np.empty((len(ids), len(names)))
        for column, name in enumerate(names):
            before[:, column] = self.values(self.stored, name, ids)
            after[:, column] = self.values(self.current, name, ids)
        alternatives = directions(after.sum(axis=0) - before.sum(axis=0))
        return dict(zip(names, paired_tests(before, after, alternatives=alternatives), strict=True))

    def detectable(self, name: str, ids: Sequence[str], level: float | None) -> float | None:
        if level is None:
            return None
        from pytest_ragcheck.gate.stats import detectable_drop

        return detectable_drop(self.values(self.stored, name, ids), level=level)


def _columns(
    cases: Mapping[str, Mapping[str, float]], names: Sequence[str], ids: Sequence[str]
) -> dict[str, Any]:
    """Per metric of ``names``, its values over ``ids`` (NaN where a case has none: read only
    over :meth:`Sides.scored` cases)."""
    import numpy as np

    rows = list(map(cases.__getitem__, ids))
    out: dict[str, Any] = {}
    for name in names:
        try:
            out[name] = np.fromiter(map(itemgetter(name), rows), dtype=np.float64, count=len(rows))
        except KeyError:
            out[name] = np.array([row.get(name, math.nan) for row in rows], dtype=np.float64)
    return out


@dataclass(slots=True)
class Judged:
    """How one metric (overall or for one tag) compares: its check and what to say."""

    check: MetricCheck
    worse_by: float
    significant: bool
    #: The change is larger than the tolerance (in either direction).
    beyond: bool

    @property
    def regressed(self) -> bool:
        """Worse beyond tolerance and not noise (whatever the check's floor status)."""
        return self.beyond and self.significant and self.worse_by > 0

    @property
    def improved(self) -> bool:
        return self.beyond and self.significant and self.worse_by < 0


def judge_change(
    check: MetricCheck,
    *,
    before: float,
    after: float,
    precision: int,
    allowed: float,
    test: PairedTest,
    level: float | None,
    update: bool,
) -> Judged:
    """Tolerance first, then the paired test (unless too few cases changed to reach ``level``)."""
    delta = round_value(after - before, precision + 2)
    worse_by = -delta if check.higher_is_better else delta
    check = replace(
        check, baseline=before, delta=delta, allowed=allowed, p_value=test.p_value, ci=test.ci
    )
    tolerance_only = level is not None and test.n_changed > 0 and test.min_p_value > level
    significant = level is None or tolerance_only or test.p_value <= level
    beyond = not update and abs(delta) > allowed + _EPS
    judged = Judged(check, worse_by, significant, beyond)
    if not beyond:
        return judged
    check = replace(
        check, basis="tolerance" if tolerance_only else "setting" if level is None else "test"
    )
    note = ""
    if tolerance_only:
        holm = f" once Holm-corrected over {check.holm_over} tags" if check.holm_over else ""
        note = (
            f"judged by tolerance alone: only {test.n_changed} case(s) changed, too few for "
            f"the paired test to reach p ≤ {level:g}{holm}"
            f"{_detectable(check)}"
        )
    if worse_by > 0:
        if not significant:
            noise = _noise_note(
                test, level, drop=True, holm_over=check.holm_over, detectable=_detectable(check)
            )
            judged.check = replace(check, note=noise)
        elif check.failed:
            judged.check = replace(
                check, note=f"also regressed against the baseline: {check.regression_line()}"
            )
        else:
            judged.check = replace(check, status="regressed", note=note)
    elif not significant:
        noise = _noise_note(
            test, level, drop=False, holm_over=check.holm_over, detectable=_detectable(check)
        )
        judged.check = replace(check, note=noise)
    elif not check.failed:
        judged.check = replace(check, status="improved", note=note or "improved beyond tolerance")
    return judged


def _noise_note(
    test: PairedTest, level: float | None, *, drop: bool, holm_over: int | None, detectable: str
) -> str:
    what = "not significant" if drop else "improvement not significant"
    p = p_words(test.p_value, holm_over)
    changed = counted(test.n_changed, "case")
    return f"{what}: {p} > significance {level:g} ({changed} changed){detectable}"


def _detectable(check: MetricCheck) -> str:
    """``; smallest detectable change 0.152``: what the test would have decided."""
    return f"; {detectable_words(check.detectable)}" if check.detectable is not None else ""
