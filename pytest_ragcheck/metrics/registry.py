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
* answer metrics (``exact_match``, ``token_f1``, ``cmrc_em``, ``cmrc_f1``, ``bleu``, ``rouge_l``): lexical comparisons of
  a pipeline's answer with the case's reference answers, no LLM
  (:data:`pytest_ragcheck.answers.lexical.LEXICAL`); the judged answer metrics
  (``faithfulness`` & co.) are judge metrics whose question is about the answer;
* refusal rates (``rejection_rate``, ``false_rejection_rate``): answer metrics over the cases
  the collection cannot answer (``answerable: false``) or can, from the refusal rules of
  :mod:`pytest_ragcheck.answers.refusal`; ``rejection_rate`` also reads the judge's
  ``truthfulness`` grade when a judge model is set. ``scores_cases`` says which cases a metric
  scores: unanswerable ones count only where it says so;
* judge statistics (``judge_kappa``, ``aspect_kappa``, ``judge_consistency``): judge metrics
  without a prompt, one value per run computed from the verdicts the other judge metrics
  obtained (:mod:`pytest_ragcheck.judge.trust`).

Metrics with ``snapshot=False`` (latency, the judge statistics, ``judged``) are never stored
in baselines: they describe the run, the labels or the judge rather than the retriever.

Adding a metric is one declaration below plus its implementation functions; the names,
defaults, validation, engine dispatch, judge prompt choice and the docs table follow from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from pytest_ragcheck.metrics.metric import (
    AGREEMENT_PROMPTS,
    NOT_THE_RETRIEVER,
    Kind,
    Metric,
    Need,
    Scores,
    diversity_metric,
    facet_metric,
    judge_metric,
    judge_statistic,
    judged_answer_metric,
    latency_metric,
    lexical_metric,
    rank_metric,
    refusal_metric,
)

__all__ = [
    "AGREEMENT_PROMPTS",
    "METRICS",
    "Kind",
    "Metric",
    "Need",
    "Scores",
    "find_metric",
    "metrics_of_kind",
]

_DECLARED = (
    rank_metric("hit_rate", "1 if a relevant document is in the top k, else 0", default=True),
    rank_metric(
        "hit_rate_granular",
        "relevant documents in the top k / R (LlamaIndex's granular hit rate)",
        engine="recall",
    ),
    rank_metric("mrr", "1 / rank of the first relevant document in the top k", default=True),
    rank_metric("mrr_granular", "mean of 1 / rank over the relevant documents found in the top k"),
    rank_metric("precision", "relevant documents in the top k / k", default=True),
    rank_metric("recall", "relevant documents in the top k / R", default=True),
    rank_metric("f1", "harmonic mean of precision and recall at the same k"),
    rank_metric(
        "map", "average precision: sum of precision@i at the relevant ranks i / R", default=True
    ),
    rank_metric("ndcg", "DCG (gain = grade) / ideal DCG of all judged grades", default=True),
    rank_metric("ndcg_exp", "nDCG with the exponential gain 2^grade - 1"),
    rank_metric("r_precision", "relevant documents in the top R / R", cutoff=False),
    rank_metric(
        "judged",
        "share of the top-k documents that have a human judgment, any grade (Judged@k)",
        snapshot=False,
        floor_hint=(
            "many retrieved documents have no human label, and precision, recall and nDCG count "
            "them as not relevant: label them (--ragcheck-propose-labels=FILE lists the judge's "
            "verdicts on them for review)"
        ),
    ),
    diversity_metric(
        "alpha_ndcg",
        "α-nDCG (ndeval): subtopic gains discounted by novelty and rank / the greedy ideal's",
    ),
    diversity_metric("err_ia", "intent-aware ERR (ndeval's ERR-IA, over an ideal-ideal ranking)"),
    diversity_metric(
        "nerr_ia", "ERR-IA / the ERR-IA of the greedy ideal ranking (ndeval's nERR-IA)"
    ),
    diversity_metric(
        "p_ia", "intent-aware precision: subtopic hits in the top k / (k · subtopics)"
    ),
    diversity_metric(
        "subtopic_recall", "subtopics covered by the top k / subtopics (ndeval's strec)"
    ),
    diversity_metric(
        "map_ia", "intent-aware MAP: mean over subtopics of their average precision", cutoff=False
    ),
    diversity_metric("nrbp", "novelty- and rank-biased precision (ndeval's NRBP)", cutoff=False),
    diversity_metric("nnrbp", "NRBP / the NRBP of the greedy ideal ranking", cutoff=False),
    facet_metric(
        "authority",
        "mean authority weight of the sources of the top-k hits (authority table)",
        "sources",
        "the top k comes from less authoritative sources: the cases below list them",
    ),
    facet_metric(
        "untrusted",
        "share of the top-k hits whose source weighs below trusted_min (lower is better)",
        "sources",
        "more of the top k comes from untrusted sources: the cases below list them",
        better=False,
    ),
    latency_metric("latency_p50_ms", "median retriever latency per case, in ms", quantile=0.5),
    latency_metric(
        "latency_p95_ms", "95th percentile of the retriever latency, in ms", quantile=0.95
    ),
    latency_metric("latency_max_ms", "slowest retriever call, in ms", quantile=1.0),
    judge_metric(
        "llm_relevancy",
        "share of the top-k chunks the judge finds relevant to the query",
        prompt="relevance",
        formula="fraction_yes",
    ),
    judge_metric(
        "llm_precision",
        "average precision over the judge's relevance verdicts",
        prompt="relevance",
        formula="average_precision",
    ),
    judge_metric(
        "llm_ndcg",
        "nDCG over the judge's 0-3 grades, against the same grades sorted",
        prompt="grade",
        formula="graded_ndcg",
    ),
    judge_metric(
        "context_precision",
        "average precision over verdicts: was the chunk useful for the reference answer?",
        prompt="usefulness",
        formula="average_precision",
        reference_answer=True,
    ),
    judge_metric(
        "context_recall",
        "share of the reference answer's claims attributable to the top-k context",
        prompt="claims",
        formula="recall_of_claims",
        reference_answer=True,
    ),
    judge_metric(
        "rerank_relevancy",
        "mean of the judge's 0-1 scores of how well each chunk answers the query",
        prompt="score",
        formula="mean",
    ),
    judge_metric(
        "rerank_relevancy_max",
        "best of the judge's 0-1 scores of how well a chunk answers the query",
        prompt="score",
        formula="maximum",
    ),
    judge_metric(
        "llm_source_quality",
        "mean of the judge's 0-3 grades of the top-k hits' sources (URL and text) / 3",
        prompt="source",
        formula="mean_grade",
        sources=True,
    ),
    judge_metric(
        "llm_aspect_recall",
        "aspects of the query (listed by the judge) covered by the top-k chunks / aspects",
        prompt="covers",
        formula="aspect_recall",
    ),
    judge_metric(
        "llm_alpha_ndcg",
        "α-nDCG over the judge's aspect labels, the ideal built from the judged chunks",
        prompt="covers",
        formula="aspect_alpha_ndcg",
    ),
    lexical_metric("exact_match", "1 if the SQuAD-normalised answer equals a reference answer"),
    lexical_metric("token_f1", "SQuAD token F1 of the answer, best over the reference answers"),
    lexical_metric(
        "cmrc_em", "CMRC 2018 exact match (separators removed, spaces kept), best over refs"
    ),
    lexical_metric("cmrc_f1", "CMRC 2018 F1: longest common substring of segments, best over refs"),
    lexical_metric("bleu", "sacrebleu's sentence BLEU / 100 against the reference answers"),
    lexical_metric("rouge_l", "rouge-score's ROUGE-L F-measure, best over the reference answers"),
    judged_answer_metric(
        "faithfulness",
        "answer claims supported by the top-k contexts with a verified verbatim quote / claims",
        prompt="faithfulness",
        formula="faithfulness",
        needs={"texts"},
        cutoff=True,
    ),
    judged_answer_metric(
        "answer_relevancy",
        "mean cosine of the query and the questions the answer answers (0 if noncommittal)",
        prompt="questions",
        formula="relevancy",
        needs={"embeddings"},
    ),
    judged_answer_metric(
        "answer_correctness",
        "factual F1 of the answer against the reference (0.75 F1 + 0.25 cosine with embeddings)",
        prompt="correctness",
        formula="correctness",
        needs={"reference_answer"},
    ),
    judged_answer_metric(
        "answer_completeness",
        "reference-answer claims covered by the answer / reference-answer claims",
        prompt="completeness",
        formula="completeness",
        needs={"reference_answer"},
    ),
    refusal_metric(
        "rejection_rate",
        "unanswerable cases whose answer is a refusal / unanswerable cases",
        scores_cases="unanswerable",
        prompt="truthfulness",
        formula="rejection",
    ),
    refusal_metric(
        "false_rejection_rate",
        "answerable cases whose answer is a refusal / answerable cases",
        scores_cases="answerable",
    ),
    judged_answer_metric(
        "truthfulness",
        "CRAG score: perfect 1, acceptable 0.5, missing 0, incorrect -1; refusing the "
        "unanswerable is perfect",
        prompt="truthfulness",
        formula="truthfulness",
        needs={"reference_answer", "refusal"},
        scores_cases="all",
        lowest=-1.0,
    ),
    judged_answer_metric(
        "hallucination_rate",
        "share of answers graded incorrect (an answer to an unanswerable case included)",
        prompt="truthfulness",
        formula="hallucination",
        needs={"reference_answer", "refusal"},
        higher_is_better=False,
        scores_cases="all",
    ),
    judge_statistic(
        "judge_kappa",
        "Cohen's kappa between the judge's relevance verdicts and the human labels",
        needs={"texts", "labels"},
        floor_hint=NOT_THE_RETRIEVER
        + "its relevance verdicts disagree with your human labels, so the judge metrics of "
        "this test cannot be trusted; review the disagreements (the confusion matrix is in the "
        "report), then improve the judge prompt or model before gating on it",
    ),
    judge_statistic(
        "aspect_kappa",
        "Cohen's kappa between the judge's aspect coverage and the human subtopics, per chunk",
        needs={"texts", "labels"},
        floor_hint=NOT_THE_RETRIEVER
        + "the chunks it finds aspects in are not the ones your subtopics say cover the query, "
        "so llm_aspect_recall and llm_alpha_ndcg cannot be trusted; review the disagreements "
        "(the confusion matrix is in the report), then improve the judge model before gating",
    ),
    judge_statistic(
        "judge_consistency",
        "share of judged items whose judge_samples all agree",
        needs={"texts"},
        floor_hint=NOT_THE_RETRIEVER
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
