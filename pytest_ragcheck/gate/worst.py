"""The cases that got worse most against the baseline, each with how its ranking changed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_ragcheck.answers.explain import answer_lines
from pytest_ragcheck.evaluation.result import hit_ids
from pytest_ragcheck.gate.checks import WORST_CASES, CaseChange, MetricCheck
from pytest_ragcheck.gate.explain import explain_case
from pytest_ragcheck.gate.facet_explain import facet_lines, lost_subtopics
from pytest_ragcheck.metrics.registry import find_metric

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pytest_ragcheck.evaluation.result import CaseResult, Result
    from pytest_ragcheck.gate.sides import Sides
    from pytest_ragcheck.golden import GoldenCase
    from pytest_ragcheck.metrics.names import MetricSpec

__all__ = ["case_changes"]

#: Changes smaller than this are float noise between rounded values.
_EPS = 1e-9


def case_changes(
    result: Result,
    sides: Sides,
    name: str,
    check: MetricCheck,
    spec: MetricSpec | None,
    *,
    limit: int = WORST_CASES,
) -> list[CaseChange]:
    """The shared cases that got worse most on ``name`` (largest drop first, ties by id).

    Each names the relevant documents that left the top k or moved down and the documents
    that came in, read from the baseline's stored ranking and this run's hits.
    """
    higher = check.higher_is_better
    drops: list[tuple[float, int, str]] = []
    for position, case_id in enumerate(sides.scored(name, sides.match.shared)):
        old = sides.stored.cases[case_id][name]
        new = sides.current.cases[case_id][name]
        worse_by = old - new if higher else new - old
        if worse_by > _EPS:
            drops.append((-worse_by, position, case_id))
    drops.sort()
    chosen = [case_id for _, _, case_id in drops[:limit]]
    wanted = set(chosen)
    by_id = {c.id: c for c in result.cases if c.id in wanted}
    golden = {c.id: c for c in result.golden.cases} if result.golden is not None else {}
    k = spec.k if spec is not None else result.k
    changes: list[CaseChange] = []
    for case_id in chosen:
        stored_hits = sides.stored.hits.get(case_id, ())
        case = by_id.get(case_id)
        gold = golden.get(case_id)
        explain: tuple[str, ...] = ()
        if case is not None and gold is not None and gold.mode == "ids" and stored_hits:
            explain = explain_case(
                baseline=stored_hits,
                current=[h.id for h in case.hits],
                relevance=gold.relevance_map(),
                k=k,
            )
        if case is not None:
            lines = _facets(result, case, gold, name, k, stored_hits)
            explain = (*explain, *answer_lines(case, name), *lines)
        changes.append(
            CaseChange(
                id=case_id,
                query=case.query if case is not None else "",
                metric=name,
                before=sides.stored.cases[case_id][name],
                after=sides.current.cases[case_id][name],
                explain=explain,
                baseline_hits=tuple(stored_hits),
            )
        )
    return changes


def _facets(
    result: Result,
    case: CaseResult,
    gold: GoldenCase | None,
    name: str,
    k: int | None,
    stored: Sequence[str],
) -> tuple[str, ...]:
    """A diversity metric: the subtopics the top k no longer covers, with the documents that
    covered them in the baseline (else what it misses now: span subtopics); an authority
    metric: the sources of the top k with their weights."""
    metric = find_metric(name)
    if metric is None or not metric.needs & {"subtopics", "sources"}:
        return ()
    if "subtopics" in metric.needs and gold is not None and gold.subtopics and stored:
        lost = lost_subtopics(gold.subtopics, stored, hit_ids(case), k)
        if lost:
            return tuple(lost)
    return tuple(facet_lines(result, case, name))
