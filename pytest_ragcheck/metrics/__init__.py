"""Rank metrics: plain-Python reference functions and the vectorised ``evaluate_run`` engine.

Conventions are trec_eval's. A document is *relevant* when its grade is >= 1 (0 and negative
grades are "judged, not relevant"); ``R`` is the number of relevant documents of a query; a query
with ``R == 0`` scores 0 on every metric but ``judged`` (ir_measures' Judged@k, the share of the
top k that have any judgment). ``k=None`` means the whole ranking.

The diversity metrics (``alpha_ndcg`` ... ``nnrbp``, :mod:`.diversity`) read subtopic judgments
and equal TREC's ndeval; the authority metrics (:mod:`.authority`) read the hits' sources.

The pure functions (``hit_rate`` ... ``r_precision``, :mod:`.reference`) are simple loops with
no numpy, an independent reference for the engine. ``evaluate_run`` / ``evaluate_rankings``
(:mod:`.engine`, :mod:`.gather`) compute the same numbers for many queries at once, bit for bit;
``evaluate_means`` averages them over the queries trec_eval averages over.
Which function and which engine column compute a metric is declared in
:mod:`pytest_ragcheck.metrics.registry`.

Duplicates: callers should pass deduplicated rankings, but a repeated id is handled like
everywhere else in pytest-ragcheck: its first (best) position is kept and the later copies are
dropped, so the ranks after them move up (exactly as if the caller had deduplicated).
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Iterable, Mapping, Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Literal

from pytest_ragcheck.metrics.authority import authority, untrusted
from pytest_ragcheck.metrics.diversity import (
    alpha_ndcg,
    err_ia,
    evaluate_diversity,
    map_ia,
    nerr_ia,
    nnrbp,
    nrbp,
    p_ia,
    subtopic_recall,
)
from pytest_ragcheck.metrics.latency import latency_percentiles
from pytest_ragcheck.metrics.names import RANK_METRICS, MetricSpec, parse_metric
from pytest_ragcheck.metrics.reference import (
    MAX_EXP_GRADE,
    MAX_GRADE,
    Relevance,
    _check_k,
    _grades,
    f1,
    hit_rate,
    hit_rate_granular,
    judged,
    map,
    metric_function,
    mrr,
    mrr_granular,
    ndcg,
    ndcg_exp,
    precision,
    r_precision,
    rank_scores,
    recall,
)

if TYPE_CHECKING:  # numpy loads with the engine, on first use
    from pytest_ragcheck.metrics.engine import FloatArray

__all__ = [
    "CHUNK_QUERIES",
    "MAX_EXP_GRADE",
    "MAX_GRADE",
    "Averaging",
    "Relevance",
    "alpha_ndcg",
    "authority",
    "err_ia",
    "evaluate_diversity",
    "evaluate_means",
    "evaluate_rankings",
    "evaluate_run",
    "f1",
    "hit_rate",
    "hit_rate_granular",
    "judged",
    "latency_percentiles",
    "map",
    "map_ia",
    "metric_function",
    "mrr",
    "mrr_granular",
    "ndcg",
    "ndcg_exp",
    "nerr_ia",
    "nnrbp",
    "nrbp",
    "p_ia",
    "precision",
    "r_precision",
    "rank_scores",
    "recall",
    "subtopic_recall",
    "untrusted",
]

#: Queries per block: keeps peak memory flat (~50 MB at 100 hits per query) on runs of any size.
CHUNK_QUERIES = 16384

_EMPTY: Mapping[str, int] = {}


def evaluate_run(
    run: Mapping[str, Sequence[str]] | Mapping[str, Mapping[str, float]],
    qrels: Mapping[str, Mapping[str, int]],
    metrics: Iterable[str | MetricSpec],
    *,
    k: int | None = None,
) -> dict[str, FloatArray]:
    """Compute rank metrics for every query of a run at once.

    ``run`` maps each query id to its ids in rank order, or to ``{doc_id: score}`` (ranked as
    trec_eval does, see :func:`rank_scores`; the values of one run must all be of one kind).
    ``qrels`` maps query ids to ``{doc_id: grade}``; a query missing from ``qrels`` has no
    relevant document and scores 0. ``metrics`` are names (``"mrr@10"``; a bare name takes
    ``k``, default the whole ranking) or :class:`MetricSpec` objects. Returns
    ``{canonical name: array}`` with one float64 per query, in ``run`` order, equal to the
    pure functions.

    Type checks are sampled to stay cheap on large runs: every query id and grade is checked,
    but for doc ids and scores only the first one of each query.
    """
    if not isinstance(run, Mapping):
        raise TypeError(f"run must be a mapping {{qid: ranking}}, got {type(run).__name__}")
    if not isinstance(qrels, Mapping):
        raise TypeError(
            f"qrels must be a mapping {{qid: {{doc_id: grade}}}}, got {type(qrels).__name__}"
        )
    specs = _resolve_specs(metrics, k)
    labels = list(run)
    for qid in labels:
        if not isinstance(qid, str):
            raise TypeError(f"run: query ids must be str, got {type(qid).__name__} {qid!r}")
    values = list(run.values())
    rels = list(builtins.map(qrels.get, labels, repeat(_EMPTY)))
    from pytest_ragcheck.metrics.engine import evaluate_blocks

    return evaluate_blocks(values, rels, specs, labels, chunk=CHUNK_QUERIES)


#: Which queries :func:`evaluate_means` averages over.
Averaging = Literal["judged", "run", "qrels"]


def evaluate_means(
    run: Mapping[str, Sequence[str]] | Mapping[str, Mapping[str, float]],
    qrels: Mapping[str, Mapping[str, int]],
    metrics: Iterable[str | MetricSpec],
    *,
    k: int | None = None,
    queries: Averaging = "judged",
) -> dict[str, float]:
    """``{metric: mean}`` of :func:`evaluate_run`'s per-query values, averaged like trec_eval.

    ``evaluate_run`` scores a run query without judgments 0, so the plain mean of its arrays
    differs from trec_eval's summary line, which skips such queries (on trec_eval's own
    ``test/results.comment.test``, 301 run queries of which 31 are judged, MAP is 0.0277 over
    the run and 0.2689 over the judged queries). ``queries`` chooses (a query without
    judgments is one absent from ``qrels`` or mapped to an empty dict):

    - ``"judged"`` (trec_eval's default): the run's queries that have judgments;
    - ``"run"``: every query of the run, 0 for one without judgments;
    - ``"qrels"`` (``trec_eval -c``): every judged query, 0 for one missing from the run.

    Raises ``ValueError`` when there is no query to average over (often ids that do not
    match: ``"1"`` in the run, ``"q1"`` in the qrels).
    """
    if queries not in ("judged", "run", "qrels"):
        raise ValueError(f"queries must be 'judged', 'run' or 'qrels', got {queries!r}")
    if not isinstance(qrels, Mapping):
        raise TypeError(
            f"qrels must be a mapping {{qid: {{doc_id: grade}}}}, got {type(qrels).__name__}"
        )
    judged = {qid for qid, grades in qrels.items() if grades}
    scored = run if queries == "run" else {q: r for q, r in run.items() if q in judged}
    values = evaluate_run(scored, qrels, metrics, k=k)  # type: ignore[arg-type]
    count = len(judged) if queries == "qrels" else len(scored)
    if count == 0:
        raise ValueError(
            f"no query to average over (queries={queries!r}): the run has {len(run)} queries, "
            f"the qrels {len(judged)} judged ones, {len(judged & set(run))} in both"
        )
    return {name: math.fsum(column.tolist()) / count for name, column in values.items()}


def evaluate_rankings(
    rankings: Sequence[Sequence[str]],
    relevances: Sequence[Relevance],
    specs: Iterable[MetricSpec | str],
    *,
    distinct: bool = False,
) -> dict[str, FloatArray]:
    """Positional variant of :func:`evaluate_run`: ``rankings[i]`` is judged by ``relevances[i]``.

    A relevance is ``{id: grade}`` or an iterable of relevant ids (grade 1 each); bare metric
    names mean the whole ranking. With ``distinct=True`` the caller guarantees that no ranking
    repeats an id, and repeated ids are not looked for (cheaper; if one is there after all,
    the values are unspecified). Without it they are found and dropped as everywhere else.
    """
    if len(rankings) != len(relevances):
        raise ValueError(
            f"evaluate_rankings: {len(rankings)} rankings but {len(relevances)} relevances"
        )
    resolved = _resolve_specs(specs, None)
    rels: list[Mapping[str, int]]
    if set(builtins.map(type, relevances)) <= {dict}:  # the usual case, checked in C
        # (a list is not copied: the engine never changes it)
        rels = relevances if type(relevances) is list else list(relevances)  # type: ignore[arg-type]
    else:
        rels = [
            r if isinstance(r, Mapping) else _grades(r, f"relevances[{i}]")
            for i, r in enumerate(relevances)
        ]
    from pytest_ragcheck.metrics.engine import evaluate_blocks

    values = rankings if type(rankings) is list else list(rankings)
    return evaluate_blocks(values, rels, resolved, None, chunk=CHUNK_QUERIES, distinct=distinct)


def _resolve_specs(metrics: Iterable[str | MetricSpec], default_k: int | None) -> list[MetricSpec]:
    if isinstance(metrics, str | MetricSpec):
        metrics = [metrics]
    specs: dict[str, MetricSpec] = {}
    for m in metrics:
        spec = m if isinstance(m, MetricSpec) else parse_metric(m, _check_k(default_k))
        if spec.base not in RANK_METRICS:
            other = (
                " (a diversity metric: evaluate_diversity computes it from subtopic judgments)"
                if "subtopics" in spec.metric.needs
                else ""
            )
            raise ValueError(
                f"{spec.name!r} is not a rank metric over relevance grades{other}; "
                "evaluate_run computes " + ", ".join(RANK_METRICS)
            )
        _check_k(spec.k)
        specs.setdefault(spec.name, spec)
    return list(specs.values())
