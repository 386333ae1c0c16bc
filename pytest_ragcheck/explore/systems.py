"""Two or more retrievers side by side on one golden set, with paired significance.

The first system is the reference: every other system is compared with it case by case, with
the test the baseline gate uses for the same question (:func:`pytest_ragcheck.gate.stats.directions`:
a one-sided paired sign-flip test in the direction of the change, "is it worse?" for a drop,
"is it better?" for a gain), the p-values of one metric Holm-corrected across the systems, and
the per-case wins, ties and losses counted. Each system's numbers are those of evaluating it alone: the results are
ordinary :class:`~pytest_ragcheck.Result` objects. (``gate/against_baseline.py`` is the baseline gate.)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

from pytest_ragcheck.common.display import shown_id
from pytest_ragcheck.common.errors import ConfigError, RetrieverError, did_you_mean
from pytest_ragcheck.metrics.names import parse_metric

if TYPE_CHECKING:
    import pandas

    from pytest_ragcheck.evaluation.result import Result

__all__ = [
    "Comparison",
    "SystemRow",
    "check_errors",
    "check_level",
    "check_systems",
    "compare_results",
]

Marker = Literal["win", "loss", ""]

#: Per-case values closer than this are a tie (float noise of equal rankings).
_TIE = 1e-12


@dataclass(frozen=True, slots=True)
class SystemRow:
    """One system on one metric, against the reference system (empty fields for it)."""

    system: str
    metric: str
    value: float | None
    #: Mean of the per-case differences ``system - reference`` over the cases both scored.
    delta: float | None = None
    #: One-sided paired sign-flip p-value (in the direction of ``delta``), and the same
    #: Holm-corrected across the systems.
    p_value: float | None = None
    p_holm: float | None = None
    wins: int = 0
    ties: int = 0
    losses: int = 0
    #: Cases both systems scored.
    n: int = 0
    #: ``"win"``/``"loss"``: significantly better/worse than the reference (Holm p ≤ level).
    marker: Marker = ""


def check_systems(retrievers: object) -> dict[str, Any]:
    """``{name: retriever}`` with at least two string names, or a :class:`ConfigError`."""
    if not isinstance(retrievers, Mapping):
        raise ConfigError(
            "compare() takes a dict of named retrievers, e.g. "
            f"{{'bm25': bm25, 'hybrid': hybrid}}, got {type(retrievers).__name__}"
        )
    bad = [name for name in retrievers if not isinstance(name, str) or not name.strip()]
    if bad:
        raise ConfigError(f"compare(): retriever names must be non-empty strings, got {bad!r}")
    if len(retrievers) < 2:
        raise ConfigError(
            f"compare() needs at least two retrievers, got {len(retrievers)}: "
            f"{', '.join(map(str, retrievers)) or 'none'} (use evaluate() for one)"
        )
    return dict(retrievers)


def check_level(significance: object) -> float | None:
    if significance is None:
        return None
    if (
        isinstance(significance, bool)
        or not isinstance(significance, int | float)
        or not 0.0 < significance < 1.0
    ):
        raise ConfigError(
            f"compare(): significance must be a level between 0 and 1 (e.g. 0.05) or None, "
            f"got {significance!r}"
        )
    return float(significance)


def check_errors(results: Mapping[str, Result]) -> None:
    """``on_error="fail"``: a system whose retriever failed on a case fails the comparison
    (its scores would be compared on fewer cases than the others')."""

    problems = []
    for name, result in results.items():
        if result.errors:
            first = result.errors[0]
            problems.append(
                f"compare: system {name!r} failed on {len(result.errors)} case(s), first "
                f"{shown_id(first.id)}: {first.error}"
            )
    if problems:
        raise RetrieverError(
            "\n".join(problems) + "\n(on_error='zero' scores such cases 0 instead)"
        )


def compare_results(
    results: Mapping[str, Result], *, significance: float | None = 0.05
) -> Comparison:
    """Compare already evaluated results (same golden set); the first is the reference."""
    names = list(results)
    reference = results[names[0]]
    higher = {s.name: s.higher_is_better for s in reference.specs}
    # A metric some system has no mean for (its retriever failed on every case) keeps its row:
    # the others' numbers stay, and that system reads "-".
    metrics = [m for m in reference.metric_names if any(m in r.metrics for r in results.values())]
    rows: list[SystemRow] = [
        SystemRow(system=names[0], metric=m, value=reference.metrics.get(m)) for m in metrics
    ]
    raw: dict[tuple[str, str], SystemRow] = {}
    for name in names[1:]:
        for row in _paired_rows(name, reference, results[name], metrics, higher):
            raw[(name, row.metric)] = row
    for metric in metrics:
        others = [raw[(name, metric)] for name in names[1:]]
        adjusted = _holm([r.p_value for r in others])
        for row, p_holm in zip(others, adjusted, strict=True):
            marker: Marker = ""
            if significance is not None and p_holm is not None and p_holm <= significance:
                better = (
                    (row.delta or 0.0) > 0 if higher.get(metric, True) else (row.delta or 0.0) < 0
                )
                marker = "win" if better else "loss" if row.delta else ""
            rows.append(_replace(row, p_holm=p_holm, marker=marker))
    order = {m: i for i, m in enumerate(metrics)}
    rows.sort(key=lambda r: (order[r.metric], names.index(r.system)))
    return Comparison(
        systems=tuple(names),
        metrics=tuple(metrics),
        rows=tuple(rows),
        results=dict(results),
        significance=significance,
        higher_is_better={m: higher.get(m, True) for m in metrics},
    )


def _replace(row: SystemRow, **changes: Any) -> SystemRow:
    return SystemRow(**{**asdict(row), **changes})


def _holm(p_values: Sequence[float | None]) -> list[float | None]:
    from pytest_ragcheck.gate.stats import holm

    present = [p for p in p_values if p is not None]
    adjusted = iter(holm(present))
    return [None if p is None else next(adjusted) for p in p_values]


def _paired(
    before: Result, after: Result, metric: str
) -> tuple[tuple[str, ...], list[float], list[float]]:
    """Case ids both results scored on ``metric``, and both sides' values."""
    theirs = {c.id: c for c in after.evaluated}
    ids: list[str] = []
    b_values: list[float] = []
    a_values: list[float] = []
    for case in before.evaluated:
        other = theirs.get(case.id)
        if other is None or metric not in case.values or metric not in other.values:
            continue
        ids.append(case.id)
        b_values.append(case.values[metric])
        a_values.append(other.values[metric])
    return tuple(ids), b_values, a_values


def _paired_rows(
    name: str,
    reference: Result,
    result: Result,
    metrics: Sequence[str],
    higher: Mapping[str, bool],
) -> list[SystemRow]:
    """Each metric paired on the cases both scored on it (a judge metric whose verdicts were
    abstained on has no value for a case the rank metrics still score); metrics sharing their
    cases are tested together, on the same draws."""
    import numpy as np

    from pytest_ragcheck.gate.stats import PairedTest, directions, paired_tests

    pairs = {m: _paired(reference, result, m) for m in metrics}
    groups: dict[tuple[str, ...], list[str]] = {}
    for metric in metrics:
        groups.setdefault(pairs[metric][0], []).append(metric)
    tests: dict[str, PairedTest] = {}
    for ids, group in groups.items():
        if ids:
            before = np.asarray([pairs[m][1] for m in group], dtype=np.float64).T
            after = np.asarray([pairs[m][2] for m in group], dtype=np.float64).T
            alternatives = directions(after.sum(axis=0) - before.sum(axis=0))
            found = paired_tests(before, after, alternatives=alternatives)
            tests.update(zip(group, found, strict=True))
    rows: list[SystemRow] = []
    for metric in metrics:
        ids, b_values, a_values = pairs[metric]
        diffs = np.asarray(a_values, dtype=np.float64) - np.asarray(b_values, dtype=np.float64)
        sign = 1.0 if higher.get(metric, True) else -1.0
        test = tests.get(metric)
        rows.append(
            SystemRow(
                system=name,
                metric=metric,
                value=result.metrics.get(metric),
                delta=test.mean_delta if test else None,
                p_value=test.p_value if test else None,
                wins=int(np.sum(sign * diffs > _TIE)),
                ties=int(np.sum(np.abs(diffs) <= _TIE)),
                losses=int(np.sum(sign * diffs < -_TIE)),
                n=len(ids),
            )
        )
    return rows


@dataclass(frozen=True)
class Comparison:
    """Systems side by side: ``print(cmp)``, ``cmp.better("hybrid", "bm25", "ndcg@10")``."""

    #: System names; the first is the reference the others are tested against.
    systems: tuple[str, ...]
    metrics: tuple[str, ...]
    rows: tuple[SystemRow, ...]
    #: Each system's own :class:`~pytest_ragcheck.Result` (what ``evaluate`` returns).
    results: dict[str, Result]
    significance: float | None
    higher_is_better: dict[str, bool]

    @property
    def reference(self) -> str:
        return self.systems[0]

    @property
    def test(self) -> str:
        """The test behind every p-value and ▲/▼ of the table (and ``better()``), in words."""
        from pytest_ragcheck.gate.stats import TEST_NAME

        others = len(self.systems) - 1
        return (
            f"{TEST_NAME} in the direction of the change (as the baseline gate), "
            f"Holm-corrected over {others} system{'' if others == 1 else 's'}"
        )

    def _metric(self, metric: str) -> str:
        k = next(iter(self.results.values())).k
        try:
            name = parse_metric(metric, k).name
        except ConfigError:
            name = metric
        if name in self.metrics:
            return name
        first = self.reference
        if name in self.results[first].metrics:  # a latency or judge statistic: no pairs
            raise KeyError(
                f"metric {name!r} is not compared (no per-case score to pair): read each "
                f"system's own, e.g. cmp.results[{first!r}].metrics[{name!r}]"
            )
        raise KeyError(
            f"metric {metric!r} is not in this comparison{did_you_mean(name, self.metrics)}; "
            f"compared: {', '.join(self.metrics) or 'none'}"
        )

    def _system(self, system: str) -> str:
        if system not in self.systems:
            raise KeyError(
                f"no system {system!r}{did_you_mean(system, self.systems)}; "
                f"systems: {', '.join(self.systems)}"
            )
        return system

    def row(self, system: str, metric: str) -> SystemRow:
        """The row of one system and metric (``"mrr"`` takes the run's ``k``)."""
        name, metric = self._system(system), self._metric(metric)
        return next(r for r in self.rows if r.system == name and r.metric == metric)

    def better(self, a: str, b: str, metric: str) -> bool:
        """True when system ``a`` is significantly better than ``b`` on ``metric``.

        The test is the baseline gate's (``Comparison.test`` says it in words): a one-sided
        paired sign-flip test of the per-case differences, asking "is ``a`` better?" when its
        mean is higher (lower for latency-like metrics). Against the reference system the
        p-value is Holm-corrected across the systems (the table's ▲/▼); between two other
        systems it is the same one-sided test of the two, not corrected. With
        ``significance=None``, plainly the higher mean.
        """
        a, b, name = self._system(a), self._system(b), self._metric(metric)
        if a == b:
            return False
        sign = 1.0 if self.higher_is_better[name] else -1.0
        if self.significance is None:
            va, vb = self.row(a, name).value, self.row(b, name).value
            return va is not None and vb is not None and sign * (va - vb) > _TIE
        if b == self.reference:
            return self.row(a, name).marker == "win"
        if a == self.reference:
            return self.row(b, name).marker == "loss"
        (row,) = _paired_rows(a, self.results[b], self.results[a], [name], self.higher_is_better)
        return (
            row.p_value is not None
            and row.p_value <= self.significance
            and sign * (row.delta or 0.0) > 0
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON data: the systems, and per metric each system's value and test (reports)."""
        first = self.results[self.reference]
        return {
            "systems": list(self.systems),
            "reference": self.reference,
            "source": first.golden_source,
            "golden_hash": first.golden_hash,
            "k": first.k,
            "n_cases": len(first.cases),
            "significance": self.significance,
            "test": self.test,
            "metrics": [
                {
                    "name": m,
                    "higher_is_better": self.higher_is_better[m],
                    "rows": [_row_dict(r) for r in self.rows if r.metric == m],
                }
                for m in self.metrics
            ],
        }

    def table(self) -> str:
        """The plain-text table: each metric per system, markers, deltas, p and W/T/L."""
        from pytest_ragcheck.common.redact import redact
        from pytest_ragcheck.explore.table import comparison_lines, shown_name

        failed = [
            f"{shown_name(name)}: the retriever failed on {len(r.errors)} of {len(r.cases)} "
            f"case(s), first {shown_id(r.errors[0].id)}: {r.errors[0].error} "
            + ("(scored 0)" if r.errors[0].values else "(left out of the means and the pairs)")
            for name, r in self.results.items()
            if r.errors
        ]
        return redact("\n".join([*comparison_lines(self.to_dict()), *failed]))

    def to_pandas(self, *, per_case: bool = False) -> pandas.DataFrame:
        """One row per (system, metric) with the test, or per (system, case) with values."""
        from pytest_ragcheck.explore.frames import comparison_frame

        data = {} if per_case else self.to_dict()
        return comparison_frame(data, self.results, per_case=per_case)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return f"<Comparison {', '.join(self.systems)} on {len(self.metrics)} metrics>"


def _row_dict(row: SystemRow) -> dict[str, Any]:
    out = asdict(row)
    for key in ("value", "delta", "p_value", "p_holm"):
        value = out[key]
        out[key] = value if value is None or math.isfinite(value) else None
    return out
