"""What a metric is (:class:`Metric`: kind, direction, cutoff, needs, how it is computed) and
the constructors the registry declares every metric with (:mod:`.registry`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Literal

__all__ = [
    "AGREEMENT_PROMPTS",
    "NOT_THE_RETRIEVER",
    "Kind",
    "Metric",
    "Need",
    "Scores",
    "diversity_metric",
    "facet_metric",
    "judge_metric",
    "judge_statistic",
    "judged_answer_metric",
    "latency_metric",
    "lexical_metric",
    "rank_metric",
    "refusal_metric",
]

Kind = Literal["rank", "latency", "judge", "answer"]
#: Which golden cases a metric scores: unanswerable ones (``answerable: false``) are left out of
#: every metric that does not say otherwise (counted and said, SPEC §13).
Scores = Literal["answerable", "unanswerable", "all"]
#: What a metric reads besides the ranking: graded judgments of the golden case
#: (``relevance``), the texts of the hits (``texts``), the case's ``reference_answer``, the
#: human labels of the cases that have some (``labels``; cases without are left out), the
#: pipeline's generated ``answer``, an ``embeddings`` model, whether the answer is a
#: ``refusal`` (the refusal patterns; ``None`` and empty answers count as refusals), the
#: case's ``subtopics`` (cases without have no value), the hits' ``sources`` and an authority
#: table.
Need = Literal[
    "relevance",
    "texts",
    "reference_answer",
    "labels",
    "answer",
    "embeddings",
    "refusal",
    "subtopics",
    "sources",
]

#: Judge prompts whose answers are relevance judgments that human labels can be compared
#: with (a yes/no verdict, or a 0-3 grade where >= 1 means relevant), in report order.
AGREEMENT_PROMPTS: tuple[str, ...] = ("relevance", "grade")


@dataclass(frozen=True, slots=True)
class Metric:
    """One metric's declaration."""

    name: str
    kind: Kind
    #: One line for the docs table.
    description: str
    higher_is_better: bool = True
    #: Takes ``@k`` (a name without it takes the run's ``k``).
    cutoff: bool = True
    #: Part of the marker's default ``metrics=``.
    default: bool = False
    needs: frozenset[Need] = frozenset()
    #: Rank metrics: the pure reference function's name in ``pytest_ragcheck.metrics``.
    reference: str | None = None
    #: Rank metrics: the engine's column method that computes it for a block of queries.
    engine: str | None = None
    #: Judge metrics: the prompt id (``pytest_ragcheck.judge.prompts.PROMPTS``).
    prompt: str | None = None
    #: Judge metrics: the ``pytest_ragcheck.judge.scoring`` function over per-chunk values.
    formula: str | None = None
    #: Latency metrics: the quantile of the per-case latencies (1.0 = the maximum).
    quantile: float | None = None
    #: Stored in baselines and compared with them.
    snapshot: bool = True
    #: Said under a violated floor of this metric (what the failure means, what to do).
    floor_hint: str = ""
    #: The cases it scores (answerable ones unless it is about declining to answer).
    scores_cases: Scores = "answerable"
    #: Its lowest value (``truthfulness`` goes down to -1), the least a floor may be.
    lowest: float = 0.0


def rank_metric(
    name: str,
    description: str,
    *,
    engine: str | None = None,
    cutoff: bool = True,
    default: bool = False,
    snapshot: bool = True,
    floor_hint: str = "",
) -> Metric:
    return Metric(
        name,
        "rank",
        description,
        cutoff=cutoff,
        default=default,
        needs=frozenset({"relevance"}),
        reference=name,
        engine=engine or name,
        snapshot=snapshot,
        floor_hint=floor_hint,
    )


def facet_metric(
    name: str, description: str, need: Need, hint: str, *, cutoff: bool = True, better: bool = True
) -> Metric:
    """A rank metric over the cases' ``subtopics`` or the hits' ``sources``, not grades."""
    return Metric(
        name,
        "rank",
        description,
        higher_is_better=better,
        cutoff=cutoff,
        needs=frozenset({need}),
        reference=name,
        engine=name,
        floor_hint=hint,
    )


_SUBTOPICS_HINT = (
    "the top k covers fewer of the queries' subtopics: the cases below name the subtopics "
    "left uncovered; look for near-duplicate results crowding out the other facets"
)
diversity_metric = partial(facet_metric, need="subtopics", hint=_SUBTOPICS_HINT)


def latency_metric(name: str, description: str, *, quantile: float) -> Metric:
    return Metric(
        name,
        "latency",
        description,
        higher_is_better=False,
        cutoff=False,
        quantile=quantile,
        snapshot=False,
    )


def judge_statistic(name: str, description: str, *, needs: set[Need], floor_hint: str) -> Metric:
    return Metric(
        name,
        "judge",
        description,
        cutoff=False,
        needs=frozenset(needs),
        snapshot=False,
        floor_hint=floor_hint,
    )


NOT_THE_RETRIEVER = "the judge, not the retriever, is the problem: "


def judge_metric(
    name: str,
    description: str,
    *,
    prompt: str,
    formula: str,
    reference_answer: bool = False,
    sources: bool = False,
) -> Metric:
    needs: set[Need] = {"texts", "reference_answer"} if reference_answer else {"texts"}
    if sources:
        needs.add("sources")
    return Metric(
        name, "judge", description, needs=frozenset(needs), prompt=prompt, formula=formula
    )


def lexical_metric(name: str, description: str) -> Metric:
    return Metric(
        name, "answer", description, cutoff=False, needs=frozenset({"answer", "reference_answer"})
    )


def judged_answer_metric(
    name: str,
    description: str,
    *,
    prompt: str,
    formula: str,
    needs: set[Need],
    cutoff: bool = False,
    higher_is_better: bool = True,
    scores_cases: Scores = "answerable",
    lowest: float = 0.0,
) -> Metric:
    return Metric(
        name,
        "judge",
        description,
        higher_is_better=higher_is_better,
        cutoff=cutoff,
        needs=frozenset({"answer", *needs}),
        prompt=prompt,
        formula=formula,
        scores_cases=scores_cases,
        lowest=lowest,
    )


def refusal_metric(
    name: str,
    description: str,
    *,
    scores_cases: Scores,
    prompt: str | None = None,
    formula: str | None = None,
) -> Metric:
    """A rate of refused answers: patterns alone, or also the judge's ``missing`` grade on an
    unanswerable case when a judge model is set (``prompt`` and ``formula``)."""
    return Metric(
        name,
        "answer",
        description,
        higher_is_better=scores_cases == "unanswerable",
        cutoff=False,
        needs=frozenset({"answer", "refusal"}),
        prompt=prompt,
        formula=formula,
        scores_cases=scores_cases,
    )
