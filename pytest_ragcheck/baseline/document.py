"""The stored baseline: what a snapshot file holds, how it is written and how it is read back.

Pure (no pytest, no syrupy): ``plugin/snapshots.py`` moves the text in and out of syrupy, ``gate/against_baseline.py``
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

from pytest_ragcheck.baseline.bulk import read_canonical, strict_loads
from pytest_ragcheck.baseline.options import (
    DEFAULT_MAX_HITS,
    DEFAULT_PRECISION,
    MAX_PRECISION,
    PRECISION_INI,
)
from pytest_ragcheck.baseline.rows import case_block, result_cases
from pytest_ragcheck.common.errors import BaselineError
from pytest_ragcheck.common.json_keys import DuplicateKeyError
from pytest_ragcheck.common.sorting import natural_order
from pytest_ragcheck.evaluation.result import hit_ids

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import Result

__all__ = [
    "FORMAT",
    "SCHEMA_VERSION",
    "BaselineDoc",
    "NewerBaselineError",
    "hits_depth",
    "round_value",
]

#: Written into every file so a stray JSON file is not mistaken for a baseline.
FORMAT = "pytest-ragcheck baseline"
#: Bumped when the layout changes; a file from a newer version is refused, never guessed at.
#: 1: per-case values only (pytest-ragcheck 0.1); 2: per case a content hash, the ranked
#: retrieved ids and the values.
SCHEMA_VERSION = 2

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


#: One case per line: compact, sorted keys, the same number formatting as the rest of the file.
_CASE_ENCODER = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(", ", ": ")
)


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
    #: Case id -> content hash (``GoldenCase.content_hash``); empty in a version-1 file.
    case_hashes: Mapping[str, str] = field(default_factory=dict)
    #: Case id -> ranked retrieved ids, up to the deepest cutoff; empty in a version-1 file.
    hits: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Where the document was read from (for messages); not stored.
    source: str = field(default="", compare=False)

    @classmethod
    def from_result(
        cls,
        result: Result,
        *,
        precision: int = DEFAULT_PRECISION,
        max_hits: int = DEFAULT_MAX_HITS,
    ) -> BaselineDoc:
        """The document to store for ``result`` (latency metrics are never stored).

        Raises :class:`BaselineError` for a value that is not finite: a baseline must never
        hold NaN, and a NaN score is a bug worth a clear failure.
        """
        _check_precision(precision)
        names = tuple(sorted(result.metric_names))
        depth = hits_depth(result, max_hits=max_hits)
        bulk = result_cases(result, names, precision=precision, depth=depth)
        cases, hashes, hits = (
            (bulk.cases, bulk.hashes, bulk.hits)
            if bulk is not None
            else _result_cases(result, names, precision=precision, depth=depth)
        )
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
            case_hashes=hashes,
            hits=hits,
        )

    def to_json(self) -> str:
        """The canonical file text (valid JSON, sorted keys, one line per case)."""

        def dump(value: Any) -> str:
            return json.dumps(value, ensure_ascii=False, allow_nan=False)

        def case_line(case_id: str) -> str:
            entry = {
                "hash": self.case_hashes.get(case_id, ""),
                "hits": list(self.hits.get(case_id, ())),
                "values": self.cases[case_id],
            }
            return f"{dump(case_id)}: {_CASE_ENCODER.encode(entry)}"

        order = natural_order(self.cases, hint=self.cases)
        quick = case_block(self, order)  # the same lines, written in bulk

        def block(entries: list[str]) -> str:
            if not entries:
                return "{}"
            return "{\n" + ",\n".join(f"    {e}" for e in entries) + "\n  }"

        cases = block([case_line(i) for i in order]) if quick is None else f"{{\n{quick}\n  }}"
        fields = {
            "aggregates": block(
                [f"{dump(n)}: {dump(self.aggregates[n])}" for n in sorted(self.aggregates)]
            ),
            "cases": cases,
            "format": dump(FORMAT),
            "golden_hash": dump(self.golden_hash),
            "k": dump(self.k),
            "metrics": dump(sorted(self.metrics)),
            "n_cases": dump(self.n_cases),
            "precision": dump(self.precision),
            "schema_version": dump(SCHEMA_VERSION),
        }
        body = ",\n".join(f"  {dump(key)}: {fields[key]}" for key in sorted(fields))
        return "{\n" + body + "\n}\n"

    @classmethod
    def from_json(
        cls, text: str, *, source: str = "baseline", expected: BaselineDoc | None = None
    ) -> BaselineDoc:
        """Read and validate a stored file; :class:`BaselineError` names what is wrong.

        A canonical file's cases are read in chunks (:mod:`.bulk`), or not at all when they
        are exactly ``expected``'s (this run's); any other file is read whole.
        """
        doc = read_canonical(text, lambda t: cls._read(t, source=source), expected=expected)
        return doc if doc is not None else cls._read(text, source=source)

    @classmethod
    def _read(cls, text: str, *, source: str) -> BaselineDoc:

        def fail(problem: str) -> BaselineError:
            return BaselineError(f"{source}: {problem}")

        try:
            data = strict_loads(text)
        except json.JSONDecodeError as exc:
            raise fail(
                f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                "the file is truncated or was edited by hand"
            ) from None
        except DuplicateKeyError as exc:  # JSON keeps the last: a case would be lost
            raise fail(f"names {exc.key!r} twice (a merge that kept both sides?)") from None
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
        cases: dict[str, dict[str, float]] = {}
        hashes: dict[str, str] = {}
        hits: dict[str, tuple[str, ...]] = {}
        for case_id in list(raw_cases):
            raw = raw_cases.pop(case_id)  # the parsed form goes as the document grows
            where = f"cases[{case_id!r}]"
            if version >= 2:
                case_hash, ranked, raw = _case_entry(raw, where=where, fail=fail)
                hashes[case_id] = case_hash
                hits[case_id] = ranked
            cases[case_id] = _values(raw, metrics, where=where, fail=fail)
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
            case_hashes=hashes,
            hits=hits,
        )


def _result_cases(
    result: Result, names: tuple[str, ...], *, precision: int, depth: int
) -> tuple[dict[str, dict[str, float]], dict[str, str], dict[str, tuple[str, ...]]]:
    """Per case: values rounded for storage (a non-finite one is refused), hash and hits."""
    known = result.golden.case_hashes if result.golden is not None else {}
    cases: dict[str, dict[str, float]] = {}
    hashes: dict[str, str] = {}
    hits: dict[str, tuple[str, ...]] = {}
    for case in result.evaluated:
        found = case.values
        present = [(n, found[n]) for n in names if n in found]
        if not present:
            continue
        present = [(n, _finite_for_storage(v, n, f"case {case.id!r}")) for n, v in present]
        cases[case.id] = {n: round_value(v, precision) for n, v in present}
        hashes[case.id] = known.get(case.id, "")
        hits[case.id] = tuple(hit_ids(case)[:depth])
    return cases, hashes, hits


def _case_entry(raw: object, *, where: str, fail: Any) -> tuple[str, tuple[str, ...], object]:
    """A version-2 case: ``{"hash": str, "hits": [str, ...], "values": {...}}``."""
    if not isinstance(raw, dict) or set(raw) != {"hash", "hits", "values"}:
        shown = sorted(raw) if isinstance(raw, dict) else type(raw).__name__
        raise fail(f"bad {where} (expected an object with hash, hits and values, got {shown})")
    case_hash, ranked = raw["hash"], raw["hits"]
    if not isinstance(case_hash, str):
        raise fail(f"bad {where}['hash'] {case_hash!r} (expected a string)")
    if not isinstance(ranked, list) or not all(isinstance(doc, str) for doc in ranked):
        raise fail(f"bad {where}['hits'] (expected a list of document ids as strings)")
    return case_hash, tuple(ranked), raw["values"]


def hits_depth(result: Result, *, max_hits: int) -> int:
    """How many ranked ids a case stores: the deepest cutoff of the test's metrics.

    A metric without a cutoff (``@all``, ``r_precision``) reads the whole ranking, which is
    capped at ``max_hits`` (ini ``ragcheck_baseline_max_hits``) to bound the file's size; an
    explicit cutoff is never cut (a shorter ranking would explain moves within it wrongly).
    """
    cutoffs = [spec.k for spec in result.specs if spec.metric.snapshot]
    deepest = max((k for k in cutoffs if k is not None), default=0)
    return max(deepest, max_hits) if not cutoffs or None in cutoffs else deepest


def _values(raw: object, metrics: list[str], *, where: str, fail: Any) -> dict[str, float]:
    if (  # the usual case, checked in one pass: every metric, as a float in range, nothing else
        type(raw) is dict
        and len(raw) == len(metrics)
        and all(type(v := raw.get(m)) is float and -1.0 <= v <= 1.0 for m in metrics)
    ):
        return raw if list(raw) == metrics else {m: raw[m] for m in metrics}
    if not isinstance(raw, dict):
        raise fail(f"bad {where} (expected an object of metric -> value, got {type(raw).__name__})")
    missing = [m for m in metrics if m not in raw]  # a case may lack some (a judge abstained)
    if missing and (where == "aggregates" or len(missing) == len(metrics)):
        raise fail(f"{where} has no value for {', '.join(map(repr, missing))} (listed in metrics)")
    extra = sorted(set(raw) - set(metrics))
    if extra:
        raise fail(
            f"{where} has values for {', '.join(map(repr, extra))}, which metrics does not list"
        )
    out: dict[str, float] = {}
    for name in [m for m in metrics if m in raw]:
        value = raw[name]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise fail(f"{where}[{name!r}] is {value!r}, expected a number")
        if not -1 <= value <= 1:  # NaN too; no metric scores outside [-1, 1] (most: [0, 1])
            raise fail(f"{where}[{name!r}] is {value!r}, not a score: finite values only, -1 to 1")
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
