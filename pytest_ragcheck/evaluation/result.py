"""The outcome of one evaluation: aggregates plus everything per case.

Baselines store the per-case values, reports show the hits and judge reasons, and the
failure message picks the worst cases: all of that reads from here, so a run happens once.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pytest_ragcheck.common.display import counted
from pytest_ragcheck.common.errors import ConfigError, did_you_mean
from pytest_ragcheck.common.sorting import natural_key
from pytest_ragcheck.metrics.names import MetricSpec, parse_metric

if TYPE_CHECKING:
    import pandas

    from pytest_ragcheck.golden import GoldenSet
    from pytest_ragcheck.run.hits import Hit

__all__ = ["FROM_GOLDEN", "CaseResult", "HitRecord", "Result", "hit_ids"]

CaseStatus = Literal["ok", "error", "skipped"]


@dataclass(frozen=True, slots=True)
class HitRecord:
    """One retrieved item as the reports show it."""

    rank: int
    id: str
    text: str | None
    score: float | None
    #: Graded relevance of the hit (0 = not relevant or not judged; for text spans 1/0).
    grade: int
    #: Text-span matching only: the spans this hit found first.
    spans: tuple[int, ...] = ()
    #: Its URL / source / domain, when an authority metric read it.
    source: str | None = None


@dataclass(slots=True)
class CaseResult:
    """One golden case: its hits, metric values, latency and any error."""

    id: str
    query: str
    tags: tuple[str, ...] = ()
    status: CaseStatus = "ok"
    hits: list[HitRecord] = field(default_factory=list)
    #: Number of relevant items the case has (judged documents or spans).
    n_relevant: int = 0
    #: Metric name -> value for this case (missing for skipped cases).
    values: dict[str, float] = field(default_factory=dict)
    latency_ms: float | None = None
    error: str | None = None
    traceback: str | None = None
    #: Repeated ids dropped from the retriever's list (first position kept).
    duplicates: int = 0
    #: Matching mode: by ``ids`` or by ``texts`` (``expected_texts`` spans).
    mode: str = "ids"
    #: Judge metric name -> one dict per judged chunk/claim (verdict, grade or score, reason).
    judge: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: Judge problems for this case (malformed answers, budget, offline misses).
    judge_errors: list[str] = field(default_factory=list)
    #: The pipeline's answer (``None`` for a retriever, or a pipeline that gave none).
    answer: str | None = None
    #: The retriever's hits and the case's grades, until ``hits`` is first read (the JSON
    #: report's entries are written from them: ``report.cases.case_json``).
    _ranked: tuple[Sequence[Hit], Mapping[str, int]] | None = field(
        default=None, repr=False, compare=False
    )
    #: ``False`` for a golden case the collection cannot answer (``answerable: false``).
    answerable: bool = True
    #: Why the answer counts as a refusal ("empty answer", the pattern, the judge's grade),
    #: set when a metric of the run counts refusals; ``None`` otherwise.
    refusal: str | None = None
    #: Diversity and authority facts (SPEC §12): ``subtopics`` (per subtopic its number of
    #: relevant documents and the first rank covering it) and ``sources`` (per hit of the top
    #: k its source, the pattern that weighed it and the weight). ``None`` when not asked.
    facets: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "query": self.query,
            "tags": list(self.tags),
            "status": self.status,
            "n_relevant": self.n_relevant,
            "values": dict(self.values),
            "latency_ms": self.latency_ms,
            "error": self.error,
            "traceback": self.traceback,
            "duplicates": self.duplicates,
            "mode": self.mode,
            "hits": [
                {
                    "rank": h.rank,
                    "id": h.id,
                    "text": h.text,
                    "score": h.score,
                    "grade": h.grade,
                    "spans": list(h.spans),
                }
                for h in self.hits
            ],
            "judge": {name: [dict(v) for v in items] for name, items in self.judge.items()},
            "judge_errors": list(self.judge_errors),
            "answer": self.answer,
            "answerable": self.answerable,
            "refusal": self.refusal,
            **({"facets": self.facets} if self.facets is not None else {}),
        }


#: The slot the dataclass made for ``hits``; the property below fronts it.
_HITS_SLOT: Any = vars(CaseResult)["hits"]


def _get_hits(case: CaseResult) -> list[HitRecord]:
    ranked = case._ranked
    if ranked is not None:
        hits, grades = ranked
        grade = grades.get
        built = [
            HitRecord(rank, hit.id, hit.text, hit.score, max(grade(hit.id, 0), 0), (), hit.source)
            for rank, hit in enumerate(hits, 1)
        ]
        _HITS_SLOT.__set__(case, built)
        case._ranked = None
    found: list[HitRecord] = _HITS_SLOT.__get__(case, CaseResult)
    return found


def _set_hits(case: CaseResult, hits: list[HitRecord]) -> None:
    case._ranked = None
    _HITS_SLOT.__set__(case, hits)


# ``case.hits`` is a list of HitRecord as ever, but a large run never builds most of them:
# the runner's hits and the grades are kept (``_ranked``) and turned into records on first
# read; the hot paths (metrics, baseline, JSON report) read :func:`hit_ids` or ``_ranked``.
setattr(CaseResult, "hits", property(_get_hits, _set_hits, doc="The hits as HitRecords."))  # noqa: B010 (mypy)


def hit_ids(case: CaseResult) -> list[str]:
    """The ranked ids of ``case`` without building its hit records (a new list)."""
    ranked = case._ranked
    if ranked is None:
        return [h.id for h in case.hits]
    from pytest_ragcheck.run.columns import hit_id_list

    return list(hit_id_list(ranked[0]))


@dataclass(slots=True)
class Result:
    """Aggregates (mean over evaluated cases) and per-case results of one run.

    ``result["mrr@10"]`` reads an aggregate; a name without ``@`` takes the run's ``k``.
    """

    metrics: dict[str, float]
    cases: list[CaseResult]
    k: int | None
    specs: tuple[MetricSpec, ...]
    golden_hash: str = ""
    golden_source: str = ""
    #: Extra facts for reports (judge call counts, notes...).
    info: dict[str, Any] = field(default_factory=dict)
    #: The golden cases evaluated (after ``tags=``): per-case hashes for the baseline.
    golden: GoldenSet | None = field(default=None, repr=False, compare=False)
    #: Makes ``cases`` when it is first read (``evaluate()`` builds no case result that no
    #: one reads); ``None`` once they exist.
    _cases_from: Callable[[], list[CaseResult]] | None = field(
        default=None, repr=False, compare=False
    )

    def __getitem__(self, name: str) -> float:
        try:
            return self.metrics[name]
        except KeyError:
            pass
        try:
            canonical = parse_metric(name, self.k).name
        except ConfigError:
            canonical = name
        if canonical in self.metrics:
            return self.metrics[canonical]
        if any(spec.name == canonical for spec in self.specs):  # asked for, but no case scored
            failure = (self.info.get("judge") or {}).get("failure")
            why = failure or "every case failed or was skipped (see result.errors)"
            raise KeyError(f"metric {name!r} has no value: no case could be scored; {why}")
        raise KeyError(
            f"metric {name!r} was not computed in this run{did_you_mean(canonical, self.metrics)}; "
            f"computed: {', '.join(self.metrics)} (add it to metrics=[...])"
        )

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            self[name]
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(self.metrics)

    @property
    def metric_names(self) -> tuple[str, ...]:
        """Quality metrics of the run (the ones a baseline stores), in order."""
        return tuple(s.name for s in self.specs if s.metric.snapshot)

    @property
    def evaluated(self) -> list[CaseResult]:
        """Cases that count in the aggregates (not skipped)."""
        return [c for c in self.cases if c.status != "skipped"]

    @property
    def errors(self) -> list[CaseResult]:
        return [c for c in self.cases if c.status == "error"]

    @property
    def skipped(self) -> list[CaseResult]:
        return [c for c in self.cases if c.status == "skipped"]

    def per_case(self, name: str) -> dict[str, float]:
        """Case id -> value of one metric, for the evaluated cases."""
        canonical = parse_metric(name, self.k).name
        return {c.id: c.values[canonical] for c in self.evaluated if canonical in c.values}

    def worst_cases(self, name: str, *, limit: int = 5, highest: bool = False) -> list[CaseResult]:
        """The evaluated cases with the lowest value of ``name`` (``highest``: the highest, for
        a lower-is-better metric), ties by id."""
        canonical = parse_metric(name, self.k).name
        cases = [c for c in self.evaluated if canonical in c.values]
        sign = -1.0 if highest else 1.0
        cases.sort(key=lambda c: (sign * c.values[canonical], natural_key(c.id)))
        return cases[:limit]

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "metrics": {n: _finite(v) for n, v in self.metrics.items()},
            "metric_names": list(self.metric_names),
            "golden_hash": self.golden_hash,
            "golden_source": self.golden_source,
            "n_cases": len(self.cases),
            "n_errors": len(self.errors),
            "n_skipped": len(self.skipped),
            "info": dict(self.info),
            "cases": [c.to_dict() for c in self.cases],
        }

    def table(self) -> str:
        """A small plain-text table of the aggregates (for scripts and notebooks)."""
        width = max((len(n) for n in self.metrics), default=6)
        lines = [f"{'metric':<{width}}  value", f"{'-' * width}  ------"]
        lines += [f"{n:<{width}}  {v:.4f}" for n, v in self.metrics.items()]
        lines.append(
            f"{counted(len(self.evaluated), 'case')} evaluated"
            + (f", {counted(len(self.errors), 'error')}" if self.errors else "")
            + (f", {len(self.skipped)} skipped" if self.skipped else "")
        )
        return "\n".join(lines)

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={v:.4f}" for n, v in self.metrics.items())
        return f"<Result {counted(len(self.cases), 'case')}: {shown}>"

    def to_pandas(self) -> pandas.DataFrame:
        """One row per case: id, query, tags, status, latency_ms, error, one column per metric
        (needs the ``pandas`` extra; ``to_dict()``/``to_json()`` need nothing)."""
        from pytest_ragcheck.common.frames import CASE_COLUMNS, data_frame

        rows, names = self.case_rows()
        return data_frame(rows, [*CASE_COLUMNS, *names], without="result.to_dict()")

    def case_rows(self) -> tuple[list[dict[str, Any]], list[str]]:
        """One dict per case (id, query, tags, status, latency, error, metric values) and the
        metric column names: every metric with per-case values, in the run's order."""
        names = [s.name for s in self.specs if any(s.name in c.values for c in self.cases)]
        rows = [
            {
                "id": c.id,
                "query": c.query,
                "tags": list(c.tags),
                "status": c.status,
                "latency_ms": c.latency_ms,
                "error": c.error,
                **{n: c.values.get(n, float("nan")) for n in names},
            }
            for c in self.cases
        ]
        return rows, names

    def to_json(self, **dump_options: Any) -> str:
        """:meth:`to_dict` as JSON text (non-finite numbers as ``null``)."""
        import json

        from pytest_ragcheck.common.escapes import json_safe

        return json.dumps(json_safe(self.to_dict()), ensure_ascii=False, **dump_options)


#: The slot the dataclass made for ``cases``; the property below fronts it.
_CASES_SLOT: Any = vars(Result)["cases"]


def _get_cases(result: Result) -> list[CaseResult]:
    build = result._cases_from
    if build is not None:
        _CASES_SLOT.__set__(result, build())
        result._cases_from = None
    cases: list[CaseResult] = _CASES_SLOT.__get__(result, Result)
    return cases


def _set_cases(result: Result, cases: list[CaseResult]) -> None:
    result._cases_from = None
    _CASES_SLOT.__set__(result, cases)


setattr(Result, "cases", property(_get_cases, _set_cases, doc="The per-case results."))  # noqa: B010 (mypy)

#: ``Result(golden_hash=FROM_GOLDEN, golden=...)``: the hash is ``golden.content_hash``, made
#: when first read (``evaluate()``'s caller may never read it; a baseline does).
FROM_GOLDEN = "\x00from golden"
#: The slot the dataclass made for ``golden_hash``; the property below fronts it.
_HASH_SLOT: Any = vars(Result)["golden_hash"]


def _get_golden_hash(result: Result) -> str:
    value: str = _HASH_SLOT.__get__(result, Result)
    if value == FROM_GOLDEN:
        golden = result.golden
        value = "" if golden is None else golden.content_hash
        _HASH_SLOT.__set__(result, value)
    return value


setattr(  # noqa: B010 (mypy)
    Result,
    "golden_hash",
    property(_get_golden_hash, _HASH_SLOT.__set__, doc="The golden set's content hash."),
)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None
