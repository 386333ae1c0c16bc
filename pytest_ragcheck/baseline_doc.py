"""The stored baseline: what a snapshot file holds, how it is written and how it is read back.

Pure (no pytest, no syrupy): ``baseline.py`` moves the text in and out of syrupy, ``compare.py``
compares a :class:`BaselineDoc` with a new result. The text is canonical, so an unchanged rerun
writes the same bytes: sorted keys, values rounded to ``precision`` decimals, one line per case
(so a pull-request diff shows exactly which cases moved), nothing that varies between identical
runs (no timings, dates or paths).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_ragcheck.errors import BaselineError

if TYPE_CHECKING:
    from pytest_ragcheck.result import Result

__all__ = [
    "DEFAULT_PRECISION",
    "FORMAT",
    "MAX_PRECISION",
    "PRECISION_INI",
    "SCHEMA_VERSION",
    "BaselineDoc",
    "BaselineOptions",
    "NewerBaselineError",
    "round_value",
]

#: Written into every file so a stray JSON file is not mistaken for a baseline.
FORMAT = "pytest-ragcheck baseline"
#: Bumped when the layout changes; a file from a newer version is refused, never guessed at.
SCHEMA_VERSION = 1
#: ini key for the decimals kept in the file.
PRECISION_INI = "ragcheck_baseline_precision"
#: Decimals kept in the file (ini ``ragcheck_baseline_precision``).
DEFAULT_PRECISION = 4
MAX_PRECISION = 12

_KEYS = (
    "aggregates",
    "cases",
    "format",
    "golden_hash",
    "k",
    "metrics",
    "n_cases",
    "precision",
    "schema_version",
)


@dataclass(frozen=True, slots=True)
class BaselineOptions:
    """Session-wide baseline settings (ini keys), read once at start-up."""

    #: Decimals kept in the file (ini ``ragcheck_baseline_precision``).
    precision: int = DEFAULT_PRECISION
    #: Fail when a metric improves beyond tolerance (ini ``ragcheck_fail_on_improvement``).
    fail_on_improvement: bool = False


class NewerBaselineError(BaselineError):
    """A baseline written by a newer pytest-ragcheck: never overwritten by an older one."""


def round_value(value: float, precision: int) -> float:
    """Round for storage; ``-0.0`` becomes ``0.0`` so the text never flips sign."""
    return round(float(value), precision) + 0.0


@dataclass(frozen=True, slots=True)
class BaselineDoc:
    """One test's baseline: aggregates and per-case values of every quality metric."""

    k: int | None
    #: Metric names (``mrr@10``), sorted.
    metrics: tuple[str, ...]
    #: Cases the golden set had for this test (after ``tags=``), skipped ones included.
    n_cases: int
    golden_hash: str
    aggregates: Mapping[str, float]
    #: Case id -> metric -> value, for the cases that were scored.
    cases: Mapping[str, Mapping[str, float]]
    precision: int = DEFAULT_PRECISION
    schema_version: int = SCHEMA_VERSION
    #: Where the document was read from (for messages); not stored.
    source: str = field(default="", compare=False)

    @classmethod
    def from_result(cls, result: Result, *, precision: int = DEFAULT_PRECISION) -> BaselineDoc:
        """The document to store for ``result`` (latency metrics are never stored).

        Raises :class:`BaselineError` for a value that is not finite: a baseline must never
        hold NaN, and a NaN score is a bug worth a clear failure.
        """
        _check_precision(precision)
        names = tuple(sorted(result.metric_names))
        cases: dict[str, dict[str, float]] = {}
        for case in result.evaluated:
            values = {
                name: _finite_for_storage(case.values[name], name, f"case {case.id!r}")
                for name in names
                if name in case.values
            }
            if values:
                cases[case.id] = {n: round_value(v, precision) for n, v in values.items()}
        aggregates = {
            name: _finite_for_storage(result.metrics.get(name), name, "the aggregate")
            for name in names
        }
        return cls(
            k=result.k,
            metrics=names,
            n_cases=len(result.cases),
            golden_hash=result.golden_hash,
            aggregates={n: round_value(v, precision) for n, v in aggregates.items()},
            cases=cases,
            precision=precision,
        )

    def to_json(self) -> str:
        """The canonical file text (valid JSON, sorted keys, one line per case)."""

        def dump(value: Any) -> str:
            return json.dumps(value, ensure_ascii=False, allow_nan=False)

        def flat(mapping: Mapping[str, float]) -> str:
            return "{" + ", ".join(f"{dump(k)}: {dump(mapping[k])}" for k in sorted(mapping)) + "}"

        def block(entries: list[str]) -> str:
            if not entries:
                return "{}"
            return "{\n" + ",\n".join(f"    {e}" for e in entries) + "\n  }"

        fields = {
            "aggregates": block(
                [f"{dump(n)}: {dump(self.aggregates[n])}" for n in sorted(self.aggregates)]
            ),
            "cases": block([f"{dump(i)}: {flat(self.cases[i])}" for i in sorted(self.cases)]),
            "format": dump(FORMAT),
            "golden_hash": dump(self.golden_hash),
            "k": dump(self.k),
            "metrics": dump(sorted(self.metrics)),
            "n_cases": dump(self.n_cases),
            "precision": dump(self.precision),
            "schema_version": dump(self.schema_version),
        }
        body = ",\n".join(f"  {dump(key)}: {fields[key]}" for key in sorted(fields))
        return "{\n" + body + "\n}\n"

    @classmethod
    def from_json(cls, text: str, *, source: str = "baseline") -> BaselineDoc:
        """Read and validate a stored file; :class:`BaselineError` names what is wrong."""

        def fail(problem: str) -> BaselineError:
            return BaselineError(f"{source}: {problem}")

        def reject_constant(name: str) -> Any:
            raise ValueError(f"{name} is not allowed")

        try:
            data = json.loads(text, parse_constant=reject_constant)
        except json.JSONDecodeError as exc:
            raise fail(
                f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                "the file is truncated or was edited by hand"
            ) from None
        except ValueError as exc:  # NaN / Infinity
            raise fail(
                f"holds a non-finite number ({exc}); baselines store finite values only"
            ) from None
        if not isinstance(data, dict):
            raise fail(f"expected a JSON object, got {type(data).__name__}")
        if data.get("format") != FORMAT:
            raise fail(
                f'not a pytest-ragcheck baseline ("format" is {data.get("format")!r}, '
                f"expected {FORMAT!r})"
            )
        version = data.get("schema_version")
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise fail(f"bad schema_version {version!r} (expected an integer >= 1)")
        if version > SCHEMA_VERSION:
            raise NewerBaselineError(
                f"{source}: written by a newer pytest-ragcheck (schema_version {version}; this version "
                f"reads up to {SCHEMA_VERSION}): upgrade pytest-ragcheck"
            )
        unknown = sorted(set(data) - set(_KEYS))
        if unknown:
            raise fail(f"unknown field(s) {', '.join(map(repr, unknown))}")
        missing = [key for key in _KEYS if key not in data]
        if missing:
            raise fail(f"missing field(s) {', '.join(map(repr, missing))}")

        k = data["k"]
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
            raise fail(f"bad k {k!r} (expected an integer >= 1 or null)")
        metrics = data["metrics"]
        if (
            not isinstance(metrics, list)
            or not metrics
            or not all(isinstance(m, str) and m for m in metrics)
        ):
            raise fail(f"bad metrics {metrics!r} (expected a non-empty list of metric names)")
        if len(set(metrics)) != len(metrics):
            raise fail(f"metrics lists a name twice: {metrics!r}")
        n_cases = data["n_cases"]
        if isinstance(n_cases, bool) or not isinstance(n_cases, int) or n_cases < 0:
            raise fail(f"bad n_cases {n_cases!r} (expected an integer >= 0)")
        golden_hash = data["golden_hash"]
        if not isinstance(golden_hash, str):
            raise fail(f"bad golden_hash {golden_hash!r} (expected a string)")
        precision = data["precision"]
        if (
            isinstance(precision, bool)
            or not isinstance(precision, int)
            or not 0 <= precision <= MAX_PRECISION
        ):
            raise fail(f"bad precision {precision!r} (expected an integer 0-{MAX_PRECISION})")

        aggregates = _values(data["aggregates"], metrics, where="aggregates", fail=fail)
        raw_cases = data["cases"]
        if not isinstance(raw_cases, dict):
            raise fail(
                f"bad cases (expected an object of case id -> values, got {type(raw_cases).__name__})"
            )
        cases = {
            case_id: _values(values, metrics, where=f"cases[{case_id!r}]", fail=fail)
            for case_id, values in raw_cases.items()
        }
        if len(cases) > n_cases:
            raise fail(f"holds values for {len(cases)} cases but n_cases is {n_cases}")
        return cls(
            k=k,
            metrics=tuple(sorted(metrics)),
            n_cases=n_cases,
            golden_hash=golden_hash,
            aggregates=aggregates,
            cases=cases,
            precision=precision,
            schema_version=version,
            source=source,
        )


def _values(raw: object, metrics: list[str], *, where: str, fail: Any) -> dict[str, float]:
    if not isinstance(raw, dict):
        raise fail(f"bad {where} (expected an object of metric -> value, got {type(raw).__name__})")
    missing = [m for m in metrics if m not in raw]
    if missing:
        raise fail(f"{where} has no value for {', '.join(map(repr, missing))} (listed in metrics)")
    extra = sorted(set(raw) - set(metrics))
    if extra:
        raise fail(
            f"{where} has values for {', '.join(map(repr, extra))}, which metrics does not list"
        )
    out: dict[str, float] = {}
    for name in metrics:
        value = raw[name]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise fail(f"{where}[{name!r}] is {value!r}, expected a number")
        if not math.isfinite(value):
            raise fail(f"{where}[{name!r}] is {value!r}; baselines store finite values only")
        out[name] = float(value)
    return out


def _finite_for_storage(value: float | None, name: str, where: str) -> float:
    if value is None or not math.isfinite(value):
        raise BaselineError(
            f"cannot store a baseline: {name} is {value!r} for {where} (expected a finite "
            "number); this is a bug in a metric or judge, please report it"
        )
    return float(value)


def _check_precision(precision: int) -> None:
    if (
        isinstance(precision, bool)
        or not isinstance(precision, int)
        or not 0 <= precision <= MAX_PRECISION
    ):
        raise BaselineError(
            f"{PRECISION_INI} must be an integer 0-{MAX_PRECISION}, got {precision!r}"
        )
