"""The metric registry: every metric declared once, with everything the rest of the code asks.

One :class:`Metric` per metric says what it is (kind, direction, cutoff, what it needs, a
description for the docs) and how it is computed, by name, so that this module stays free of
numpy and cheap to import for marker validation:

* rank metrics: ``reference``, the pure function in :mod:`pytest_ragcheck.metrics`, and
  ``engine``, the column method of the vectorised engine (several metrics may share one), of
  ``metrics.diversity.DiversityColumns`` or ``metrics.authority.AuthorityColumns``;
* judge metrics: ``prompt``, the id of the question in :mod:`pytest_ragcheck.judge.prompts`,
  and ``formula``, the function of :mod:`pytest_ragcheck.judge.scoring` that turns the per-chunk
  values into the metric (judged answer metrics, which need the ``answer``: the function of
  :mod:`pytest_ragcheck.answers.judged` that scores the judge's answer);
* latency metrics: ``quantile`` of the per-case latencies;
* answer metrics (``exact_match``, ``token_f1``, ``bleu``, ``rouge_l``): lexical comparisons of
  a pipeline's answer with the case's reference answers, no LLM
  (:data:`pytest_ragcheck.answers.lexical.LEXICAL`); the judged answer metrics
  (``faithfulness`` & co.) are judge metrics whose question is about the answer;
* judge statistics (``judge_kappa``, ``judge_consistency``): judge metrics without a prompt,
  one value per run computed from the verdicts the other judge metrics obtained
  (:mod:`pytest_ragcheck.judge.trust`).

Metrics with ``snapshot=False`` (latency, the judge statistics, ``judged``) are never stored
in baselines: they describe the run, the labels or the judge rather than the retriever.

Adding a metric is one declaration below plus its implementation functions; the names,
defaults, validation, engine dispatch, judge prompt choice and the docs table follow from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from types import MappingProxyType
from typing import Literal

__all__ = [
    "AGREEMENT_PROMPTS",
    "METRICS",
    "Kind",
    "Metric",
    "Need",
    "find_metric",
    "metrics_of_kind",
]

Kind = Literal["rank", "latency", "judge", "answer"]
#: What a metric reads besides the ranking: graded judgments of the golden case
#: (``relevance``), the texts of the hits (``texts``), the case's ``reference_answer``, the
#: human labels of the cases that have some (``labels``; cases without are left out), the
#: pipeline's generated ``answer``, an ``embeddings`` model, the case's ``subtopics`` (cases
#: without have no value), the hits' ``sources`` and an authority table.
Need = Literal[
    "relevance",
    "texts",
    "reference_answer",
    "labels",
    "answer",
    "embeddings",
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


def _rank(
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


def _facet(
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
_diversity = partial(_facet, need="subtopics", hint=_SUBTOPICS_HINT)


def _latency(name: str, description: str, *, quantile: float) -> Metric:
    return Metric(
        name,
        "latency",
        description,
        higher_is_better=False,
        cutoff=False,
        quantile=quantile,
        snapshot=False,
    )


def _judge_statistic(name: str, description: str, *, needs: set[Need], floor_hint: str) -> Metric:
    return Metric(
        name,
        "judge",
        description,
        cutoff=False,
        needs=frozenset(needs),
        snapshot=False,
        floor_hint=floor_hint,
    )


_NOT_THE_RETRIEVER = "the judge, not the retriever, is the problem: "


def _judge(
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


def _lexical(name: str, description: str) -> Metric:
    return Metric(
        name, "answer", description, cutoff=False, needs=frozenset({"answer", "reference_answer"})
    )


def _judged_answer(
    name: str,
    description: str,
    *,
    prompt: str,
    formula: str,
    needs: set[Need],
    cutoff: bool = False,
) -> Metric:
    return Metric(
        name,
        "judge",
        description,
        cutoff=cutoff,
        needs=frozenset({"answer", *needs}),
        prompt=prompt,
        formula=formula,
    )


_DECLARED = (
    _rank("hit_rate", "1 if a relevant document is in the top k, else 0", default=True),
    _rank(
        "hit_rate_granular",
        "relevant documents in the top k / R (LlamaIndex's granular hit rate)",
        engine="recall",
    ),
    _rank("mrr", "1 / rank of the first relevant document in the top k", default=True),
    _rank("mrr_granular", "mean of 1 / rank over the relevant documents found in the top k"),
    _rank("precision", "relevant documents in the top k / k", default=True),
    _rank("recall", "relevant documents in the top k / R", default=True),
    _rank("f1", "harmonic mean of precision and recall at the same k"),
    _rank("map", "average precision: sum of precision@i at the relevant ranks i / R", default=True),
    _rank("ndcg", "DCG (gain = grade) / ideal DCG of all judged grades", default=True),
    _rank("ndcg_exp", "nDCG with the exponential gain 2^grade - 1"),
    _rank("r_precision", "relevant documents in the top R / R", cutoff=False),
    _rank(
        "judged",
        "share of the top-k documents that have a human judgment, any grade (Judged@k)",
        snapshot=False,
        floor_hint=(
            "many retrieved documents have no human label, and precision, recall and nDCG count "
            "them as not relevant: label them (--ragcheck-propose-labels=FILE lists the judge's "
            "verdicts on them for review)"
        ),
    ),
    _diversity(
        "alpha_ndcg",
        "α-nDCG (ndeval): subtopic gains discounted by novelty and rank / the greedy ideal's",
    ),
    _diversity("err_ia", "intent-aware ERR (ndeval's ERR-IA, over an ideal-ideal ranking)"),
    _diversity("nerr_ia", "ERR-IA / the ERR-IA of the greedy ideal ranking (ndeval's nERR-IA)"),
    _diversity("p_ia", "intent-aware precision: subtopic hits in the top k / (k · subtopics)"),
    _diversity("subtopic_recall", "subtopics covered by the top k / subtopics (ndeval's strec)"),
    _diversity(
        "map_ia", "intent-aware MAP: mean over subtopics of their average precision", cutoff=False
    ),
    _diversity("nrbp", "novelty- and rank-biased precision (ndeval's NRBP)", cutoff=False),
    _diversity("nnrbp", "NRBP / the NRBP of the greedy ideal ranking", cutoff=False),
    _facet(
        "authority",
        "mean authority weight of the sources of the top-k hits (authority table)",
        "sources",
        "the top k comes from less authoritative sources: the cases below list them",
    ),
    _facet(
        "untrusted",
        "share of the top-k hits whose source weighs below trusted_min (lower is better)",
        "sources",
        "more of the top k comes from untrusted sources: the cases below list them",
        better=False,
    ),
    _latency("latency_p50_ms", "median retriever latency per case, in ms", quantile=0.5),
    _latency("latency_p95_ms", "95th percentile of the retriever latency, in ms", quantile=0.95),
    _latency("latency_max_ms", "slowest retriever call, in ms", quantile=1.0),
    _judge(
        "llm_relevancy",
        "share of the top-k chunks the judge finds relevant to the query",
        prompt="relevance",
        formula="fraction_yes",
    ),
    _judge(
        "llm_precision",
        "average precision over the judge's relevance verdicts",
        prompt="relevance",
        formula="average_precision",
    ),
    _judge(
        "llm_ndcg",
        "nDCG over the judge's 0-3 grades, against the same grades sorted",
        prompt="grade",
        formula="graded_ndcg",
    ),
    _judge(
        "context_precision",
        "average precision over verdicts: was the chunk useful for the reference answer?",
        prompt="usefulness",
        formula="average_precision",
        reference_answer=True,
    ),
    _judge(
        "context_recall",
        "share of the reference answer's claims attributable to the top-k context",
        prompt="claims",
        formula="recall_of_claims",
        reference_answer=True,
    ),
    _judge(
        "rerank_relevancy",
        "mean of the judge's 0-1 scores of how well each chunk answers the query",
        prompt="score",
        formula="mean",
    ),
    _judge(
        "rerank_relevancy_max",
        "best of the judge's 0-1 scores of how well a chunk answers the query",
        prompt="score",
        formula="maximum",
    ),
    _judge(
        "llm_source_quality",
        "mean of the judge's 0-3 grades of the top-k hits' sources (URL and text) / 3",
        prompt="source",
        formula="mean_grade",
        sources=True,
    ),
    _judge(
        "llm_aspect_recall",
        "aspects of the query (listed by the judge) covered by the top-k chunks / aspects",
        prompt="covers",
        formula="aspect_recall",
    ),
    _judge(
        "llm_alpha_ndcg",
        "α-nDCG over the judge's aspect labels, the ideal built from the judged chunks",
        prompt="covers",
        formula="aspect_alpha_ndcg",
    ),
    _lexical("exact_match", "1 if the SQuAD-normalised answer equals a reference answer"),
    _lexical("token_f1", "SQuAD token F1 of the answer, best over the reference answers"),
    _lexical("bleu", "sacrebleu's sentence BLEU / 100 against the reference answers"),
    _lexical("rouge_l", "rouge-score's ROUGE-L F-measure, best over the reference answers"),
    _judged_answer(
        "faithfulness",
        "answer claims supported by the top-k contexts with a verified verbatim quote / claims",
        prompt="faithfulness",
        formula="faithfulness",
        needs={"texts"},
        cutoff=True,
    ),
    _judged_answer(
        "answer_relevancy",
        "mean cosine of the query and the questions the answer answers (0 if noncommittal)",
        prompt="questions",
        formula="relevancy",
        needs={"embeddings"},
    ),
    _judged_answer(
        "answer_correctness",
        "factual F1 of the answer against the reference (0.75 F1 + 0.25 cosine with embeddings)",
        prompt="correctness",
        formula="correctness",
        needs={"reference_answer"},
    ),
    _judged_answer(
        "answer_completeness",
        "reference-answer claims covered by the answer / reference-answer claims",
        prompt="completeness",
        formula="completeness",
        needs={"reference_answer"},
    ),
    _judge_statistic(
        "judge_kappa",
        "Cohen's kappa between the judge's relevance verdicts and the human labels",
        needs={"texts", "labels"},
        floor_hint=_NOT_THE_RETRIEVER
        + "its relevance verdicts disagree with your human labels, so the judge metrics of "
        "this test cannot be trusted; review the disagreements (the confusion matrix is in the "
        "report), then improve the judge prompt or model before gating on it",
    ),
    _judge_statistic(
        "judge_consistency",
        "share of judged items whose judge_samples all agree",
        needs={"texts"},
        floor_hint=_NOT_THE_RETRIEVER
        + "its repeated samples disagree, so its verdicts are partly chance; use a stronger "
        "judge model, or judge_disagreement='abstain' to leave the uncertain items out",
    ),
)

#: Every metric by name, in declaration order.
METRICS: Mapping[str, Metric] = MappingProxyType({m.name: m for m in _DECLARED})


def metrics_of_kind(kind: Kind) -> tuple[Metric, ...]:
    """The metrics of one kind, in declaration order."""
    return tuple(m for m in METRICS.values() if m.kind == kind)


def find_metric(name: str) -> Metric | None:
    """The metric behind a base or canonical name (``"mrr"``, ``"mrr@10"``), or ``None``."""
    return METRICS.get(name.partition("@")[0])
