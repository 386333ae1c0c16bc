"""The one evaluation pipeline: golden cases -> retriever -> hits -> metrics (+ judge) -> Result.

Both the ``ragcheck`` fixture and :func:`pytest_ragcheck.evaluate` call
:func:`evaluate_golden`, so a number means the same thing wherever it is shown.
"""

from __future__ import annotations

import contextlib
import gc
import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pytest_ragcheck.errors import GoldenSetError
from pytest_ragcheck.result import CaseResult, HitRecord, Result

if TYPE_CHECKING:
    from pytest_ragcheck.config import Settings
    from pytest_ragcheck.golden import GoldenCase, GoldenSet
    from pytest_ragcheck.hits import Hit, SpanMatch
    from pytest_ragcheck.names import MetricSpec
    from pytest_ragcheck.runner import RetrievalOutcome, RetrievalRun

__all__ = ["Progress", "evaluate_golden", "fewer_collections"]

#: ``progress(stage, done, total)``: stage is ``"retrieve"`` or ``"judge"``.
Progress = Callable[[str, int, int], None]

_SPAN_ID = "\x00span:{}"
_MISS_ID = "\x00miss:{}"
_RECALL_LIKE = ("recall", "hit_rate_granular")
#: Allocations between young-generation collections inside :func:`fewer_collections`
#: (the default is 700; the older generations follow the same factors as usual).
_GC_FIRST = 100_000


def _empty_cases(cases: Sequence[GoldenCase], settings: Settings) -> list[GoldenCase]:
    """The cases with nothing relevant to find, when a rank metric is asked for."""
    if not settings.needs_relevance:
        return []
    return [case for case in cases if not case.has_relevance]


def _select(golden: GoldenSet, settings: Settings) -> GoldenSet:
    return golden.select(list(settings.tags)) if settings.tags else golden


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the cyclic garbage collector about a hundred times less often inside, and let it
    skip the objects that were already there.

    A large run allocates millions of small objects (hits, per-case values), and each
    collection walks every live object: at the default thresholds the collector took ~40 %
    of the evaluation of 50,000 cases. Cycles are still collected, only in bigger batches.
    The objects alive on entry (the golden set, say) are frozen (``gc.freeze``: a full
    collection no longer walks them) until the outermost block ends; :func:`_settle` does the
    same for the hits once retrieval is done.
    """
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], _GC_FIRST), *before[1:])
    _settle()
    _DEPTH.append(None)
    try:
        yield
    finally:
        _DEPTH.pop()
        if not _DEPTH:
            gc.unfreeze()
        gc.set_threshold(*before)


#: One entry per :func:`fewer_collections` block open (frozen objects are thawed by the last).
_DEPTH: list[None] = []


def _settle() -> None:
    """Objects alive now live on to the end of the run: full collections need not walk them."""
    gc.freeze()


def evaluate_golden(
    retriever: Any,
    golden: GoldenSet,
    settings: Settings,
    *,
    progress: Progress | None = None,
) -> Result:
    """Run ``retriever`` on every case of ``golden`` and compute ``settings.metrics``."""
    with fewer_collections():
        return _evaluate(retriever, golden, settings, progress)


def _evaluate(
    retriever: Any, golden: GoldenSet, settings: Settings, progress: Progress | None
) -> Result:
    from pytest_ragcheck import metrics as metric_fns
    from pytest_ragcheck.answers import score as answers
    from pytest_ragcheck.golden.model import no_collections
    from pytest_ragcheck.judge.trust import assess_trust

    started = time.perf_counter()
    golden = _select(golden, settings)
    if len(golden) == 0:
        raise GoldenSetError(f"{golden.source}: the golden set has no cases to evaluate")

    empty = _empty_cases(golden.cases, settings)
    if empty and settings.empty == "error":
        shown = ", ".join(repr(c.id) for c in empty[:10])
        more = f" and {len(empty) - 10} more" if len(empty) > 10 else ""
        raise GoldenSetError(
            f"{golden.source}: {len(empty)} case(s) have no relevant document "
            f"(no expected_ids, no relevance grade >= 1, no expected_texts) but rank metrics "
            f"need one: {shown}{more}. Add judgments, or set empty='skip' to exclude them "
            f"or empty='zero' to score them 0."
        )
    skip_ids = {c.id for c in empty} if settings.empty == "skip" else set()
    to_run = [c for c in golden.cases if c.id not in skip_ids]
    if not to_run:
        raise GoldenSetError(
            f"{golden.source}: no case left to evaluate: all {len(golden)} case(s) have no "
            "relevant document and empty='skip' skips them"
        )

    answers.check_references(to_run, settings.metrics, golden.source)
    clock = time.perf_counter()
    run, retrieval = _retrieve(retriever, to_run, golden.source, settings, progress)
    _settle()
    timings = {"retrieve_s": time.perf_counter() - clock}

    with no_collections():  # only the run's own objects here, and no reference cycles
        by_id, metrics_s = _score(to_run, run, settings)
    del run  # the hits live on in the case results

    answers.score_lexical(to_run, by_id, settings.metrics, zero_errors=settings.on_error == "zero")
    info: dict[str, Any] = {"retrieval": retrieval}
    judge_specs = [s for s in settings.metrics if s.kind == "judge"]
    if judge_specs:
        info["judge"] = _run_judge(to_run, by_id, judge_specs, settings, progress)
    # judged@k, judge_kappa, judge_consistency: added to the run where they apply
    trust = assess_trust(to_run, by_id, settings, info.get("judge"))
    info.update(trust.info(info.get("judge")))
    specs = (*settings.metrics, *trust.specs)

    cases = [
        by_id[c.id]
        if c.id in by_id
        else CaseResult(id=c.id, query=c.query, tags=tuple(c.tags), status="skipped")
        for c in golden.cases
    ]
    aggregates: dict[str, float] = {}
    for spec in specs:
        if spec.kind == "latency":
            continue
        name = spec.name
        vals = [v for c in cases if (v := c.values.get(name)) is not None]
        if vals:  # no value at all (every case failed): absent, never a made-up 0
            aggregates[spec.name] = math.fsum(vals) / len(vals)
    aggregates.update(trust.values)
    latencies = [c.latency_ms for c in cases if c.latency_ms is not None and c.status == "ok"]
    aggregates.update(metric_fns.latency_percentiles(latencies))
    golden_hash = golden.content_hash
    # Everything but the retrieval counts as evaluation, the checks and hashing before it too.
    timings["evaluate_s"] = time.perf_counter() - started - timings["retrieve_s"]
    timings["metrics_s"] = metrics_s
    info["timings"] = timings

    return Result(
        metrics=aggregates,
        cases=cases,
        k=settings.k,
        specs=specs,
        golden_hash=golden_hash,
        golden_source=golden.source,
        info=info,
        golden=golden,
    )


def _score(
    to_run: Sequence[GoldenCase], run: RetrievalRun, settings: Settings
) -> tuple[dict[str, CaseResult], float]:
    """The case results of a run with their rank metric values, and the engine's time."""
    from pytest_ragcheck import metrics as metric_fns
    from pytest_ragcheck.answers import score as answers

    outcomes = run.outcomes
    rank_specs = [s for s in settings.metrics if s.kind == "rank"]
    by_id: dict[str, CaseResult] = {}
    rankings: list[list[str]] = []
    relevances: list[Mapping[str, int]] = []
    span_matches: list[SpanMatch | None] = []
    for case, outcome in zip(to_run, outcomes, strict=True):
        case_result, ranking, relevance, match = _case_result(case, outcome)
        answers.apply_output(case_result, outcome.answer, settings.metrics)
        by_id[case.id] = case_result
        if case_result.status == "ok" or settings.on_error == "zero":
            rankings.append(ranking)
            relevances.append(relevance)
            span_matches.append(match)

    scored = [
        by_id[c.id] for c in to_run if by_id[c.id].status == "ok" or settings.on_error == "zero"
    ]
    metrics_s = 0.0
    if rank_specs and scored:
        engine_clock = time.perf_counter()
        values = metric_fns.evaluate_rankings(rankings, relevances, rank_specs)
        metrics_s = time.perf_counter() - engine_clock
        for name in dict.fromkeys(spec.name for spec in rank_specs):
            for case_result, value in zip(scored, values[name].tolist(), strict=True):
                case_result.values[name] = value
        _apply_span_recall(scored, span_matches, rank_specs)
    return by_id, metrics_s


def _retrieve(
    retriever: Any,
    cases: Sequence[GoldenCase],
    source: str,
    settings: Settings,
    progress: Progress | None,
) -> tuple[RetrievalRun, dict[str, Any]]:
    """Ask the retriever for the largest cutoff the metrics need, once per case (or once per
    batch of ``batch_size`` cases); the facts about the run (depth, concurrency, batches, ids
    that match nothing) go to ``info["retrieval"]``."""
    from pytest_ragcheck.retrieval import check_golden_numbers, requested_depth, retrieval_info
    from pytest_ragcheck.runner import RunOptions, run_cases

    check_golden_numbers(cases, settings.metrics, source=source)
    depth = requested_depth(settings.metrics)

    def retrieval_progress(done: int, total: int) -> None:
        if progress is not None:
            progress("retrieve", done, total)

    options = RunOptions(
        k=depth, concurrency=settings.concurrency, timeout=settings.timeout, id_key=settings.id_key
    )
    queries = [c.query for c in cases]
    shown = retrieval_progress if progress is not None else None
    if settings.batch_size is not None:
        from pytest_ragcheck.batches import run_batches

        run = run_batches(retriever, queries, options, settings.batch_size, progress=shown)
    else:
        run = run_cases(retriever, queries, options, progress=shown)
    return run, retrieval_info(run, cases, settings.metrics, depth)


def _case_result(
    case: GoldenCase, outcome: RetrievalOutcome
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
    )
    hits = outcome.hits
    relevance = case._grades
    if case.mode == "texts":
        from pytest_ragcheck.hits import match_spans

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
        result.n_relevant = len(spans)
        return (
            result,
            ranking,
            {_SPAN_ID.format(j): 1 for j in range(len(spans))},
            match,
        )
    result._ranked = (hits, relevance)  # HitRecords only when ``hits`` is read
    result.n_relevant = case.relevant_count
    return result, [h.id for h in hits], relevance, None


def _hit_record(index: int, hit: Hit, *, grade: int, spans: tuple[int, ...] = ()) -> HitRecord:
    return HitRecord(
        rank=index + 1, id=hit.id, text=hit.text, score=hit.score, grade=grade, spans=spans
    )


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


def _run_judge(
    cases: Sequence[GoldenCase],
    by_id: Mapping[str, CaseResult],
    specs: Sequence[MetricSpec],
    settings: Settings,
    progress: Progress | None,
) -> dict[str, Any]:
    from pytest_ragcheck.judge import JudgeItem, compute_judge_metrics

    depth = None if any(s.k is None for s in specs) else max(s.k or 0 for s in specs)
    items = []
    for case in cases:
        case_result = by_id[case.id]
        if case_result.status != "ok":
            continue
        hits = case_result.hits if depth is None else case_result.hits[:depth]
        items.append(
            JudgeItem(
                case_id=case.id,
                query=case.query,
                reference_answer=case.reference_answer or next(iter(case.references), None),
                chunks=tuple(h.text or "" for h in hits),
                answer=case_result.answer,
            )
        )

    def judge_progress(done: int, total: int) -> None:
        if progress is not None:
            progress("judge", done, total)

    run = compute_judge_metrics(
        items,
        list(specs),
        settings.judge,
        progress=judge_progress if progress is not None else None,
    )
    for case_id, values in run.values.items():
        by_id[case_id].values.update(values)
    for case_id, details in run.details.items():
        by_id[case_id].judge.update(details)
    for case_id, errors in run.errors.items():
        by_id[case_id].judge_errors.extend(errors)
    return run.summary()
