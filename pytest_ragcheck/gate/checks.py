"""The records a verdict is made of: one :class:`MetricCheck` per metric, :class:`CaseChange`.

Pure and shared: the floors (``verdict``) create the checks, the baseline comparison
(``against_baseline``) fills in their baseline fields, and the reports read their ``to_dict()``.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from pytest_ragcheck.common.display import format_value, signed
from pytest_ragcheck.report.labels import p_words

__all__ = [
    "FAILED",
    "UPDATE_HINT",
    "WORST_CASES",
    "CaseChange",
    "MetricCheck",
    "Status",
    "update_command",
]

Status = Literal["pass", "below_floor", "above_ceiling", "regressed", "improved", "new"]
FAILED: frozenset[str] = frozenset({"below_floor", "above_ceiling", "regressed"})
UPDATE_HINT = "run `pytest --snapshot-update` to accept the change as the new baseline"
_SHELL_SPECIAL = frozenset('"$`\\!')
#: Cases listed under a floor violation or a regression.
WORST_CASES = 5


def update_command(nodeids: Sequence[str]) -> str:
    """The command that re-records exactly these tests: ``pytest "t.py::test_x" --snapshot-update``.

    Naming the tests matters: a bare ``pytest --snapshot-update`` re-records every test,
    regressed ones included, and would accept regressions nobody looked at.
    """
    quoted = []
    for nodeid in nodeids:
        if _SHELL_SPECIAL.isdisjoint(nodeid):
            quoted.append(f'"{nodeid}"')
        else:
            quoted.append(shlex.quote(nodeid))
    return " ".join(["pytest", *quoted, "--snapshot-update"])


@dataclass(frozen=True, slots=True)
class MetricCheck:
    """One metric's value and everything it was compared with."""

    name: str
    value: float
    higher_is_better: bool = True
    bound: float | None = None
    bound_kind: Literal["min", "max"] | None = None
    baseline: float | None = None
    delta: float | None = None
    allowed: float | None = None
    p_value: float | None = None
    ci: tuple[float, float] | None = None
    status: Status = "pass"
    #: Human words for a status that needs explaining (e.g. "within noise: p=0.41").
    note: str = ""
    #: This run's value on the cases shared with the baseline (what ``baseline`` is compared
    #: with), when the golden set changed since the baseline; else None (= ``value``).
    compared: float | None = None
    #: The smallest drop a paired test on the shared cases detects reliably (see ``stats``).
    detectable: float | None = None
    #: With ``compared``: how many shared cases it is over, and how many cases ``value`` is
    #: over, so every output labels the two ("0.356 on 60 shared · 0.343 on all 66").
    compared_cases: int | None = None
    all_cases: int | None = None
    #: How many tests ``p_value`` was Holm-corrected over (the tags of a per-tag check).
    holm_over: int | None = None
    #: What a change beyond tolerance was judged on: ``"test"`` (the paired test),
    #: ``"tolerance"`` (too few changed cases for the test to reach the level) or
    #: ``"setting"`` (``significance=None``); ``""`` within tolerance (``report.labels.BASES``).
    basis: Literal["", "test", "tolerance", "setting"] = ""

    @property
    def current(self) -> float:
        """The value compared with the baseline."""
        return self.value if self.compared is None else self.compared

    @property
    def failed(self) -> bool:
        return self.status in FAILED

    def on_shared(self, compared: float, shared: int, every: int | None) -> MetricCheck:
        """This check compared on ``shared`` cases (the golden set changed): ``compared`` is
        its value there, ``every`` the number of cases ``value`` is over."""
        return replace(self, compared=compared, compared_cases=shared, all_cases=every)

    def shared_words(self) -> tuple[str, str]:
        """What labels ``current`` and what follows the comparison when the golden set
        changed: ``(" on 60 shared", " · 0.343 on all 66")``; ``("", "")`` otherwise."""
        if self.compared is None:
            return "", ""
        shared = f" on {self.compared_cases} shared" if self.compared_cases is not None else ""
        every = f" all {self.all_cases}" if self.all_cases is not None else " all cases"
        return shared, f" · {format_value(self.value)} on{every}"

    def floor_line(self) -> str:
        op = "<" if self.bound_kind == "min" else ">"
        kind = "floor" if self.bound_kind == "min" else "ceiling"
        return f"{self.name}: {format_value(self.value)} {op} {format_value(self.bound)} ({kind})"

    def regression_line(self) -> str:
        delta = self.delta if self.delta is not None else self.current - (self.baseline or 0.0)
        parts = [f"Δ {signed(delta)}"]
        if self.allowed is not None:
            parts.append(f"allowed {self.allowed:.3f}")
        if self.p_value is not None:
            parts.append(p_words(self.p_value, self.holm_over))
        if self.ci is not None:
            low, high = (signed(v) for v in self.ci)
            parts.append(f"95% CI [{low}, {high}]")
        shared, every = self.shared_words()
        return (
            f"{self.name}: {format_value(self.baseline)} → {format_value(self.current)}{shared} "
            f"({', '.join(parts)}){every}"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "value": self.value,
            "higher_is_better": self.higher_is_better,
            "bound": self.bound,
            "bound_kind": self.bound_kind,
            "baseline": self.baseline,
            "delta": self.delta,
            "allowed": self.allowed,
            "p_value": self.p_value,
            "ci": list(self.ci) if self.ci is not None else None,
            "status": self.status,
            "note": self.note,
            "compared": self.compared,
            "detectable": self.detectable,
            "compared_cases": self.compared_cases,
            "all_cases": self.all_cases,
            "holm_over": self.holm_over,
            "basis": self.basis,
        }


@dataclass(frozen=True, slots=True)
class CaseChange:
    """One case that got worse against the baseline."""

    id: str
    query: str
    metric: str
    before: float
    after: float
    #: How the ranking changed (``d12 rank 1 → 14``), from the stored ranked ids.
    explain: tuple[str, ...] = ()
    #: The baseline's ranked ids for this case (empty for a 0.1-format baseline).
    baseline_hits: tuple[str, ...] = ()
