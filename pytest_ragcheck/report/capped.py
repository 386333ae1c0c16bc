"""What a capped report keeps of a large run: the cases shown in full and the histograms.

Both read every case's value of each shown metric and its baseline value; these are taken
once per metric as arrays (:class:`MetricColumns`), so choosing among 200,000 cases costs a
few array operations rather than Python loops over the cases per metric.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import chain, repeat
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

from pytest_ragcheck.report.cases import HIST_BINS, SHOWN_CASES

if TYPE_CHECKING:
    import numpy as np

    from pytest_ragcheck.evaluation.result import CaseResult

__all__ = ["MetricColumns", "distribution", "select_shown"]

_NO_VALUES: Mapping[str, float] = {}
_GET: Any = dict.get


class MetricColumns:
    """Per metric, every case's value and baseline value (``nan`` where there is none)."""

    def __init__(
        self,
        cases: Sequence[CaseResult],
        baseline: Mapping[str, Mapping[str, float]],
        names: Sequence[str] = (),
    ) -> None:
        self._cases = cases
        self._baseline = baseline
        #: Read together, in one pass over the cases, when every case has them all.
        self._names = tuple(dict.fromkeys(names))
        self._now: dict[str, np.ndarray[Any, Any]] = {}
        self._then: dict[str, np.ndarray[Any, Any]] = {}
        self._rows: tuple[list[Mapping[str, float]], list[Mapping[str, float]]] | None = None

    def _values(self) -> tuple[list[Mapping[str, float]], list[Mapping[str, float]]]:
        if self._rows is None:
            cases = self._cases
            ids = map(attrgetter("id"), cases)
            self._rows = (
                list(map(attrgetter("values"), cases)),
                list(map(self._baseline.get, ids, repeat(_NO_VALUES))),
            )
        return self._rows

    def now(self, name: str) -> np.ndarray[Any, Any]:
        """Each case's value of ``name`` (``nan`` when missing or ``None``)."""
        return self._cached(self._now, 0, name)

    def before(self, name: str) -> np.ndarray[Any, Any]:
        """Each case's baseline value of ``name`` (``nan`` when the baseline has none)."""
        return self._cached(self._then, 1, name)

    def _cached(
        self, columns: dict[str, np.ndarray[Any, Any]], side: int, name: str
    ) -> np.ndarray[Any, Any]:
        """``name``'s column of one side (0: now, 1: baseline), every known name read at once
        on the first call."""
        if name not in columns:
            rows = self._values()[side]
            if not columns and name in self._names:
                columns.update(_table(rows, self._names))
            if name not in columns:
                columns[name] = _column(rows, name)
        return columns[name]


def _table(rows: Sequence[Mapping[str, float]], names: Sequence[str]) -> dict[str, Any]:
    """Each name's column from one pass over ``rows``; nothing unless every row has every
    name as a number (the usual case: then a C-level pass, not one per name)."""
    import numpy as np

    if len(names) < 2:
        return {}
    try:
        flat = np.fromiter(
            chain.from_iterable(map(itemgetter(*names), rows)), np.float64, len(rows) * len(names)
        )
    except (KeyError, TypeError):
        return {}
    table = flat.reshape(len(rows), len(names))
    return {name: table[:, i] for i, name in enumerate(names)}


def _column(rows: Sequence[Mapping[str, float]], name: str) -> np.ndarray[Any, Any]:
    import numpy as np

    try:  # C-level when every row is a dict of numbers
        return np.fromiter(map(_GET, rows, repeat(name), repeat(math.nan)), np.float64, len(rows))
    except TypeError:  # a mapping that is no dict, or a ``None`` value
        values = [row.get(name) for row in rows]
        return np.array([math.nan if v is None else v for v in values], np.float64)


def select_shown(
    cases: Sequence[CaseResult],
    metrics: Sequence[tuple[str, bool]],
    baseline: Mapping[str, Mapping[str, float]],
    *,
    first: Sequence[str] = (),
    limit: int = SHOWN_CASES,
    columns: MetricColumns | None = None,
) -> list[int]:
    """Indices (in case order) of the ``limit`` cases a capped report shows in full.

    ``metrics`` are ``(name, higher_is_better)``. First the ids in ``first`` (the failure
    message's cases) and the cases with an error, then in turn, one at a time per list: for
    each metric the most regressed against the baseline and the lowest-scoring (ties in case
    order; a value or baseline value that is ``nan`` takes no part).
    """
    if len(cases) <= limit:
        return list(range(len(cases)))
    import numpy as np

    columns = columns or MetricColumns(cases, baseline, [name for name, _ in metrics])
    chosen: dict[int, None] = {}
    if first:
        position = {case.id: i for i, case in enumerate(cases)}
        chosen.update(dict.fromkeys(position[i] for i in first if i in position))
    chosen.update(dict.fromkeys(i for i, c in enumerate(cases) if c.status == "error"))
    ranked: list[list[int]] = []
    for name, higher in metrics:
        sign = 1.0 if higher else -1.0
        now = columns.now(name)
        scored = np.flatnonzero(~np.isnan(now))
        with np.errstate(invalid="ignore"):  # inf - inf: no order, as nan
            moved = sign * (now - columns.before(name))
        worse = np.flatnonzero(moved < 0)  # nan compares false: no baseline, no value
        order = worse[np.argsort(moved[worse], kind="stable")[:limit]]
        ranked.append(order.tolist())
        low = scored[np.argsort(sign * now[scored], kind="stable")[:limit]]
        ranked.append(low.tolist())
    for turn in range(limit):
        for indices in ranked:
            if turn < len(indices):
                chosen.setdefault(indices[turn])
    return sorted(list(chosen)[:limit])


def distribution(
    cases: Sequence[CaseResult],
    names: Sequence[str],
    baseline: Mapping[str, Mapping[str, float]],
    *,
    columns: MetricColumns | None = None,
) -> dict[str, dict[str, Any]]:
    """Per metric: the histogram of every case's value (and baseline value), binned as the
    HTML report bins the cases themselves when it has them all."""
    import numpy as np

    columns = columns or MetricColumns(cases, baseline, names)
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        now = columns.now(name)
        now = now[np.isfinite(now)]
        before = columns.before(name)
        before = before[~np.isnan(before)]
        top = max(1.0, float(now.max(initial=1.0)), float(before.max(initial=1.0)))

        def counts(values: Any, top: float = top) -> list[int]:
            bins = np.clip(np.floor(values / top * HIST_BINS), 0, HIST_BINS - 1).astype(np.int64)
            return [int(n) for n in np.bincount(bins, minlength=HIST_BINS)]

        out[name] = {
            "max": top,
            "counts": counts(now),
            "baseline": counts(before) if len(before) else None,
        }
    return out
