"""A run's outcomes -> case results with their rank metric values (the engine in between).

The general path turns each outcome into a case result, lets the answer checks change its
status, then asks the engine. Most runs are simpler: every case matches by id and the pipeline
gave no answer, so a case's status is its outcome's and nothing else can change it. The quick
path then asks the engine first and builds each case result once, values included, when the
results are first read; the values are also kept as columns, which the aggregates read
instead of every case's dict.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import repeat
from operator import attrgetter, setitem
from typing import TYPE_CHECKING, cast

from pytest_ragcheck.common.collector import no_collections
from pytest_ragcheck.evaluation.result import CaseResult, HitRecord
from pytest_ragcheck.metrics.names import RANK_METRICS
from pytest_ragcheck.run.columns import hit_id_list

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.settings import Settings
    from pytest_ragcheck.golden import GoldenCase
    from pytest_ragcheck.golden.model import CaseFacts
    from pytest_ragcheck.golden.spans import SpanMatch
    from pytest_ragcheck.metrics.names import MetricSpec
    from pytest_ragcheck.run.hits import Hit
    from pytest_ragcheck.run.runner import RetrievalOutcome

__all__ = ["Scored", "score_cases"]

_SPAN_ID = "\x00span:{}"
_MISS_ID = "\x00miss:{}"
_RECALL_LIKE = ("recall", "hit_rate_granular")
_ANSWER = attrgetter("answer")
_ERROR = attrgetter("error")
_HITS = attrgetter("hits")
_ID = attrgetter("id")
_QUERY = attrgetter("query")
_TAGS = attrgetter("tags")
_LATENCY = attrgetter("latency_ms")
#: Placeholder ``hits`` of a quick case result: ``_ranked`` is set, so the first read of
#: ``case.hits`` replaces it with the built records (nothing ever sees or changes this list).
_NO_RECORDS: list[HitRecord] = []


class Scored:
    """The case results of a run (in the order of its cases) and the engine's time.

    The quick path builds its case results when ``results`` is first read: a run whose
    aggregates come from ``columns`` and whose caller reads no case (``evaluate()`` in a
    script reading ``result.metrics``) never makes one object per case.
    """

    __slots__ = ("_build", "_results", "columns", "latencies", "metrics_s")

    def __init__(
        self,
        results: list[CaseResult] | Callable[[], list[CaseResult]],
        metrics_s: float,
        columns: Mapping[str, list[float]] | None = None,
        latencies: list[float] | None = None,
    ) -> None:
        self._results: list[CaseResult] = results if isinstance(results, list) else []
        self._build: Callable[[], list[CaseResult]] | None = (
            None if isinstance(results, list) else results
        )
        self.metrics_s = metrics_s
        #: Rank metric name -> the values of the scored cases in order, for the names whose
        #: ``case.values`` entries are exactly these (the quick path); empty otherwise.
        self.columns: Mapping[str, list[float]] = {} if columns is None else columns
        #: The latencies of the cases whose status is ``ok`` (the quick path, where nothing
        #: changes a status later); ``None``: read them from the case results.
        self.latencies = latencies

    @property
    def results(self) -> list[CaseResult]:
        build = self._build
        if build is not None:
            with no_collections():  # one object per case, kept, with no reference cycles
                self._results, self._build = build(), None
        return self._results

    @property
    def built(self) -> bool:
        """Whether the case results exist (read, or made by the general path)."""
        return self._build is None


def score_cases(
    cases: Sequence[GoldenCase],
    outcomes: Sequence[RetrievalOutcome],
    facts: CaseFacts,
    settings: Settings,
) -> Scored:
    """Case results with their rank metric values (``facts``: the cases' grades and counts)."""
    quick = _score_by_ids(cases, outcomes, facts, settings)
    return quick if quick is not None else _score_general(cases, outcomes, facts, settings)


def _engine(
    rankings: list[list[str]], relevances: list[Mapping[str, int]], specs: list[MetricSpec]
) -> tuple[dict[str, list[float]], float]:
    """The engine's values per metric name. Every ranking here is a run's, whose repeated ids
    the runner dropped (span rankings name each span once): ``distinct`` spares the check."""
    from pytest_ragcheck import metrics as metric_fns

    clock = time.perf_counter()
    values = metric_fns.evaluate_rankings(rankings, relevances, specs, distinct=True)
    metrics_s = time.perf_counter() - clock
    names = dict.fromkeys(spec.name for spec in specs)
    return {name: values[name].tolist() for name in names}, metrics_s


def _score_by_ids(
    cases: Sequence[GoldenCase],
    outcomes: Sequence[RetrievalOutcome],
    facts: CaseFacts,
    settings: Settings,
) -> Scored | None:
    """The quick path, or ``None`` when a case matches by text or an answer is involved."""
    specs = settings.metrics
    if any("answer" in s.metric.needs for s in specs):
        return None
    answers = list(map(_ANSWER, outcomes))
    if answers.count(None) != len(answers) or facts.by_text:
        return None
    grades, counts = facts.grades, facts.counts
    errors = list(map(_ERROR, outcomes))
    every = settings.on_error == "zero" or errors.count(None) == len(errors)
    scored = range(len(cases)) if every else [i for i, e in enumerate(errors) if e is None]
    rank_specs = [s for s in specs if s.base in RANK_METRICS]  # the facets are scored later
    columns: dict[str, list[float]] = {}
    metrics_s = 0.0
    if rank_specs and scored:
        hits = [outcomes[i].hits for i in scored] if not every else list(map(_HITS, outcomes))
        rankings = _rankings(hits, rank_specs)
        relevances = grades if every else [grades[i] for i in scored]
        columns, metrics_s = _engine(rankings, relevances, rank_specs)
    every_latency: list[float | None] = (
        list(map(_LATENCY, outcomes))
        if errors.count(None) == len(errors)
        else [o.latency_ms for o in outcomes if o.error is None]
    )
    latencies: list[float] = (
        [x for x in every_latency if x is not None]
        if None in every_latency
        else cast("list[float]", every_latency)
    )

    def build() -> list[CaseResult]:
        ids, queries, tags = _labels(cases)
        values: list[dict[str, float]] = [{} for _ in outcomes]
        targets = values if every else [values[i] for i in scored]
        for name, column in columns.items():  # one C-level pass per metric
            deque(map(setitem, targets, repeat(name), column), 0)
        return [
            CaseResult(
                case_id,
                query,
                case_tags,
                "ok" if outcome.error is None else "error",
                _NO_RECORDS,
                count,
                case_values,
                outcome.latency_ms,
                outcome.error,
                outcome.traceback,
                outcome.duplicates,
                "ids",
                {},
                [],
                None,
                (outcome.hits, case_grades),
            )
            for case_id, query, case_tags, outcome, count, case_values, case_grades in zip(
                ids, queries, tags, outcomes, counts, values, grades, strict=True
            )
        ]

    return Scored(build, metrics_s, columns, latencies)


def _labels(
    cases: Sequence[GoldenCase],
) -> tuple[Iterable[str], Iterable[str], Iterable[tuple[str, ...]]]:
    """Each case's id, query and tags, from the columns when the cases are kept so (no case
    object made)."""
    from pytest_ragcheck.golden.columns import IdCases

    if type(cases) is IdCases:
        return cases.ids, cases.queries, repeat((), len(cases))
    return map(_ID, cases), map(_QUERY, cases), map(tuple, map(_TAGS, cases))


def _rankings(hits: list[Sequence[Hit]], specs: list[MetricSpec]) -> list[list[str]]:
    """The ranked ids the engine reads: only as deep as its largest cutoff (the engine's own
    rule: ``metrics.engine.evaluate_blocks``), the whole ranking when a metric has none."""
    rankings = list(map(hit_id_list, hits))
    if any(s.k is None or not s.metric.cutoff for s in specs):
        return rankings
    depth = max(s.k for s in specs if s.k is not None)
    if max(map(len, rankings), default=0) <= depth:
        return rankings
    return [ranking[:depth] for ranking in rankings]


def _score_general(
    cases: Sequence[GoldenCase],
    outcomes: Sequence[RetrievalOutcome],
    facts: CaseFacts,
    settings: Settings,
) -> Scored:
    from pytest_ragcheck.answers import score as answers

    rank_specs = [s for s in settings.metrics if s.base in RANK_METRICS]
    results: list[CaseResult] = []
    scored: list[CaseResult] = []
    rankings: list[list[str]] = []
    relevances: list[Mapping[str, int]] = []
    span_matches: list[SpanMatch | None] = []
    for case, outcome, count in zip(cases, outcomes, facts.counts, strict=True):
        case_result, ranking, relevance, match = _case_result(case, outcome, count)
        answers.apply_output(case_result, outcome.answer, settings.metrics)
        results.append(case_result)
        case_result.answerable = case.answerable
        if not case.answerable:  # nothing to find: rank metrics leave it out (SPEC §13)
            continue
        if case_result.status == "ok" or settings.on_error == "zero":
            scored.append(case_result)
            rankings.append(ranking)
            relevances.append(relevance)
            span_matches.append(match)
    metrics_s = 0.0
    if rank_specs and scored:
        columns, metrics_s = _engine(rankings, relevances, rank_specs)
        for name, column in columns.items():
            for case_result, value in zip(scored, column, strict=True):
                case_result.values[name] = value
        _apply_span_recall(scored, span_matches, rank_specs)
    return Scored(results, metrics_s)


def _case_result(
    case: GoldenCase, outcome: RetrievalOutcome, count: int
) -> tuple[CaseResult, list[str], Mapping[str, int], SpanMatch | None]:
    """Turn one retriever outcome into hit records plus the ranking the metrics read."""
    result = CaseResult(
        id=case.id,
        query=case.query,
        tags=tuple(case.tags),
        status="error" if outcome.error is not None else "ok",
        latency_ms=outcome.latency_ms,
        error=outcome.error,
        traceback=outcome.traceback,
        duplicates=outcome.duplicates,
        n_relevant=count,
    )
    hits = outcome.hits
    relevance = case._grades
    if case.mode == "texts":
        from pytest_ragcheck.golden.spans import match_spans

        result.mode = "texts"
        if result.status == "ok" and hits and all(h.text is None for h in hits):
            # Every span would silently count as missed: almost surely a retriever that
            # returns bare ids for a golden set written with expected_texts.
            result.status = "error"
            result.error = (
                "this case matches by text (expected_texts) but none of its hits has a text; "
                "return hits with 'text', 'content' or 'page_content' (or Document objects)"
            )
        spans = list(case.expected_texts)
        match = match_spans(hits, spans)
        ranking: list[str] = []
        new_spans: list[tuple[int, ...]] = [() for _ in hits]
        for span_index, rank in enumerate(match.span_rank):
            if rank is not None:
                new_spans[rank - 1] = (*new_spans[rank - 1], span_index)
        for i, hit in enumerate(hits):
            found = new_spans[i]
            relevant = match.relevant[i]
            ranking.append(_SPAN_ID.format(found[0]) if relevant and found else _MISS_ID.format(i))
            result.hits.append(_hit_record(i, hit, grade=1 if relevant else 0, spans=found))
        return (
            result,
            ranking,
            {_SPAN_ID.format(j): 1 for j in range(len(spans))},
            match,
        )
    result._ranked = (hits, relevance)  # HitRecords only when ``hits`` is read
    return result, list(hit_id_list(hits)), relevance, None


def _hit_record(index: int, hit: Hit, *, grade: int, spans: tuple[int, ...] = ()) -> HitRecord:
    return HitRecord(index + 1, hit.id, hit.text, hit.score, grade, spans, hit.source)


def _apply_span_recall(
    scored: Sequence[CaseResult],
    matches: Sequence[SpanMatch | None],
    specs: Sequence[MetricSpec],
) -> None:
    """Text-span cases: recall counts the spans contained in the top k (SPEC §3).

    A hit may contain several new spans; the id-based ranking credits it with one, so the
    recall-like metrics (and F1) are recomputed from the span match.
    """
    for case_result, match in zip(scored, matches, strict=True):
        if match is None or not match.span_rank:
            continue
        for spec in specs:
            if spec.base not in (*_RECALL_LIKE, "f1"):
                continue
            k = spec.k
            recall = match.spans_found(k) / len(match.span_rank)
            if spec.base in _RECALL_LIKE:
                case_result.values[spec.name] = recall
                continue
            denominator = len(match.relevant) if k is None else k
            prec = match.relevant_hits(k) / denominator if denominator else 0.0
            case_result.values[spec.name] = (
                0.0 if prec + recall == 0 else 2 * prec * recall / (prec + recall)
            )
