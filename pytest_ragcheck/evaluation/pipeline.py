"""The one evaluation pipeline: golden cases -> retriever -> hits -> metrics (+ judge) -> Result.

Both the ``ragcheck`` fixture and :func:`pytest_ragcheck.evaluate` call
:func:`evaluate_golden`, so a number means the same thing wherever it is shown.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from pytest_ragcheck.common.collector import fewer_collections, no_collections, settle
from pytest_ragcheck.common.errors import GoldenSetError
from pytest_ragcheck.evaluation.result import FROM_GOLDEN, CaseResult, Result

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.scoring import Scored
    from pytest_ragcheck.evaluation.settings import Settings
    from pytest_ragcheck.golden import GoldenCase, GoldenSet
    from pytest_ragcheck.golden.model import CaseFacts
    from pytest_ragcheck.metrics.names import MetricSpec
    from pytest_ragcheck.run.runner import RetrievalRun

__all__ = ["Progress", "evaluate_golden", "fewer_collections"]

_ANSWERABLE = attrgetter("answerable")
_QUERY = attrgetter("query")
#: ``progress(stage, done, total)``: stage is ``"retrieve"`` or ``"judge"``.
Progress = Callable[[str, int, int], None]


def _empty_cases(
    cases: Sequence[GoldenCase], counts: Sequence[int], settings: Settings
) -> list[GoldenCase]:
    """The cases with nothing relevant to find, when a rank metric is asked for (a case the
    collection cannot answer has nothing to find by definition: rank metrics leave it out)."""
    if not settings.needs_relevance or 0 not in counts:
        return []
    return [c for c, count in zip(cases, counts, strict=True) if count == 0 and c.answerable]


def _unanswerable(
    cases: Sequence[GoldenCase], settings: Settings
) -> tuple[set[str], dict[str, Any]]:
    """The ids of the cases that cannot be answered, and what the run does with them: scored
    by the metrics about declining (``scores_cases``), left out of every other metric."""
    from pytest_ragcheck.golden.columns import IdCases

    if type(cases) is IdCases or all(map(_ANSWERABLE, cases)):  # most sets: no case asked
        return set(), {}
    ids = {c.id for c in cases if not c.answerable}
    counted = [s.name for s in settings.metrics if s.metric.scores_cases != "answerable"]
    left_out = [s.name for s in settings.metrics if s.metric.scores_cases == "answerable"]
    what = f"{len(ids)} unanswerable case(s) (answerable: false)"
    note = (
        f"{what} left out of {', '.join(left_out)}"
        if counted and left_out
        else f"{what} not run: no metric of this test scores them (add rejection_rate)"
        if not counted
        else ""
    )
    info = {"cases": len(ids), "scored_by": counted, "left_out_of": left_out}
    return ids, {**info, "notes": [note] if note else []}


def _select(golden: GoldenSet, settings: Settings) -> GoldenSet:
    return golden.select(list(settings.tags)) if settings.tags else golden


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
    from pytest_ragcheck.answers import refusal
    from pytest_ragcheck.answers import score as answers
    from pytest_ragcheck.evaluation.facets import check_facets, score_facets
    from pytest_ragcheck.evaluation.scoring import score_cases
    from pytest_ragcheck.golden.columns import IdCases
    from pytest_ragcheck.golden.model import case_facts
    from pytest_ragcheck.judge.trust import assess_trust

    started = time.perf_counter()
    golden = _select(golden, settings)
    if len(golden) == 0:
        raise GoldenSetError(f"{golden.source}: the golden set has no cases to evaluate")

    # the cases, or columns of them: no case object is made for what the run does not read
    candidates = golden.view()
    refusal.check_cases(candidates, settings.metrics, golden.source)
    unanswerable, about_unanswerable = _unanswerable(candidates, settings)
    if unanswerable and not about_unanswerable["scored_by"]:
        candidates = tuple(c for c in candidates if c.answerable)
        if not candidates:
            raise GoldenSetError(
                f"{golden.source}: every case is unanswerable (answerable: false), and no "
                "metric of this test scores those: ask for rejection_rate (or truthfulness)"
            )
    facts = candidates.facts() if type(candidates) is IdCases else case_facts(candidates)
    empty = _empty_cases(candidates, facts.counts, settings)
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
    to_run: Sequence[GoldenCase] = (
        [c for c in candidates if c.id not in skip_ids]
        if skip_ids
        else candidates
        if type(candidates) is IdCases
        else list(candidates)
    )
    if skip_ids:
        facts = case_facts(to_run)
    if not to_run:
        raise GoldenSetError(
            f"{golden.source}: no case left to evaluate: all {len(golden)} case(s) have no "
            "relevant document and empty='skip' skips them"
        )

    answers.check_references(to_run, settings.metrics, golden.source)
    table = check_facets(to_run, settings, source=golden.source)
    clock = time.perf_counter()
    run, retrieval = _retrieve(retriever, to_run, golden.source, settings, progress, facts)
    timings = {"retrieve_s": time.perf_counter() - clock}

    with no_collections():  # only the run's own objects here, and no reference cycles
        scored = score_cases(to_run, run.outcomes, facts, settings)
    by_id = _ByCaseId(to_run, scored)
    # a timed-out call counts at its timeout: a lower bound, but a ceiling must see it
    late = (
        [o.latency_ms for o in run.outcomes if o.timed_out and o.latency_ms is not None]
        if retrieval["timed_out"]
        else []
    )
    del run  # the hits live on in the case results

    answers.score_lexical(to_run, by_id, settings.metrics, zero_errors=settings.on_error == "zero")
    refusal.mark_refusals(to_run, by_id, settings.metrics, settings.refusal_patterns)
    # with a judge model, the judge grades an unanswerable case's answer no rule refuses
    judged_refusals = settings.judge.model is not None
    refusal.score_refusals(to_run, by_id, settings.metrics, judged=judged_refusals)
    info: dict[str, Any] = {"retrieval": retrieval}
    if about_unanswerable:
        info["unanswerable"] = about_unanswerable
    judge_specs = [
        s
        for s in settings.metrics
        if s.kind == "judge" or (judged_refusals and s.metric.prompt and unanswerable)
    ]
    if judge_specs:
        info["judge"] = _run_judge(to_run, by_id, judge_specs, settings, progress)
        refusal.judged_refusals(to_run, by_id)
    facets = score_facets(to_run, by_id, settings, table=table)
    if facets.info():
        info["facets"] = facets.info()
    # judged@k, judge_kappa, judge_consistency: added to the run where they apply
    trust = assess_trust(to_run, by_id, settings, info.get("judge"))
    info.update(trust.info(info.get("judge")))
    specs = (*settings.metrics, *trust.specs)

    every_case = len(to_run) == len(golden)
    cases = (
        None  # the scored cases: made when first read
        if every_case
        else [
            by_id[c.id]
            if c.id in by_id
            else CaseResult(
                id=c.id,
                query=c.query,
                tags=tuple(c.tags),
                status="skipped",
                answerable=c.answerable,
            )
            for c in golden.cases
        ]
    )
    aggregates: dict[str, float] = {}
    for spec in specs:
        if spec.kind == "latency":
            continue
        name = spec.name
        vals = scored.columns.get(name) if spec.base != "judged" else None  # trust sets judged
        if vals is None:
            every = scored.results if cases is None else cases
            vals = [v for c in every if (v := c.values.get(name)) is not None]
        if vals:  # no value at all (every case failed): absent, never a made-up 0
            aggregates[spec.name] = math.fsum(vals) / len(vals)
    aggregates.update(trust.values)
    latencies = (
        scored.latencies
        if every_case and scored.latencies is not None
        else [
            c.latency_ms
            for c in (scored.results if cases is None else cases)
            if c.latency_ms is not None and c.status == "ok"
        ]
    )
    if latencies:  # no call succeeded: no latency either (a ceiling would pass on a 0.0)
        latencies += late
        aggregates.update(metric_fns.latency_percentiles(latencies))
    golden.check_hashable()  # the hash itself is made when read
    # Everything but the retrieval counts as evaluation, the checks and hashing before it too.
    timings["evaluate_s"] = time.perf_counter() - started - timings["retrieve_s"]
    timings["metrics_s"] = scored.metrics_s
    info["timings"] = timings

    if cases is None and scored.built:  # a stage read them: no reason to wait
        cases = scored.results
    return Result(
        metrics=aggregates,
        cases=[] if cases is None else cases,
        k=settings.k,
        specs=specs,
        golden_hash=FROM_GOLDEN,
        golden_source=golden.source,
        info=info,
        golden=golden,
        _cases_from=None if cases is not None else lambda: scored.results,
    )


class _ByCaseId(Mapping[str, CaseResult]):
    """Case id -> case result, for the stages that read cases by id (answers, refusals, the
    judge, facets): the results are made when one is first read."""

    __slots__ = ("_cases", "_index", "_scored")

    def __init__(self, cases: Sequence[GoldenCase], scored: Scored) -> None:
        self._cases, self._scored = cases, scored
        self._index: dict[str, CaseResult] | None = None

    def _found(self) -> dict[str, CaseResult]:
        index = self._index
        if index is None:
            from pytest_ragcheck.golden.columns import IdCases

            cases = self._cases
            ids = cases.ids if type(cases) is IdCases else [c.id for c in cases]
            index = self._index = dict(zip(ids, self._scored.results, strict=True))
        return index

    def __getitem__(self, case_id: str) -> CaseResult:
        return self._found()[case_id]

    def __contains__(self, case_id: object) -> bool:
        return case_id in self._found()

    def __iter__(self) -> Iterator[str]:
        return iter(self._found())

    def __len__(self) -> int:
        return len(self._cases)


def _retrieve(
    retriever: Any,
    cases: Sequence[GoldenCase],
    source: str,
    settings: Settings,
    progress: Progress | None,
    facts: CaseFacts,
) -> tuple[RetrievalRun, dict[str, Any]]:
    """Ask the retriever for the largest cutoff the metrics need, once per case (or once per
    batch of ``batch_size`` cases); the facts about the run (depth, concurrency, batches, ids
    that match nothing) go to ``info["retrieval"]``."""
    from pytest_ragcheck.golden.columns import IdCases
    from pytest_ragcheck.run.facts import check_golden_numbers, requested_depth, retrieval_info
    from pytest_ragcheck.run.runner import RunOptions, run_cases
    from pytest_ragcheck.run.sources import source_keys

    if type(cases) is not IdCases:  # else no case has graded relevance to check
        check_golden_numbers(cases, settings.metrics, source=source)
    depth = requested_depth(settings.metrics)

    def retrieval_progress(done: int, total: int) -> None:
        if progress is not None:
            progress("retrieve", done, total)

    options = RunOptions(
        k=depth,
        concurrency=settings.concurrency,
        timeout=settings.timeout,
        id_key=settings.id_key,
        sources=source_keys(settings.facets.source_key) if settings.needs_sources else None,
    )
    queries = cases.queries[:] if type(cases) is IdCases else list(map(_QUERY, cases))
    shown = retrieval_progress if progress is not None else None
    if settings.batch_size is not None:
        from pytest_ragcheck.run.batches import run_batches

        run = run_batches(retriever, queries, options, settings.batch_size, progress=shown)
    else:
        run = run_cases(retriever, queries, options, progress=shown)
    settle()  # the hits live to the end of the run: the checks below need not walk them
    return run, retrieval_info(run, cases, settings.metrics, depth, grades=facts.grades)


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
                answerable=case.answerable,
                refusal=case_result.refusal,
                sources=tuple(h.source for h in hits) if settings.needs_sources else (),
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
        alpha=settings.facets.alpha,
    )
    for case_id, values in run.values.items():
        by_id[case_id].values.update(values)
    for case_id, details in run.details.items():
        by_id[case_id].judge.update(details)
    for case_id, errors in run.errors.items():
        by_id[case_id].judge_errors.extend(errors)
    return run.summary()
