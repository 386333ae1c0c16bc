"""The judge's aspect coverage against human subtopics: the pairs and κ of ``aspect_kappa``.

``llm_aspect_recall@k`` and ``llm_alpha_ndcg@k`` rest on the judge's own aspects, which have
no names in common with a case's human ``subtopics``; what both sides do say about each
retrieved chunk is whether it covers *some* facet of the query. So, for every case with
``subtopics`` (or ``subtopic_texts``) and every chunk of its top k that the judge marked:

* the human label: the chunk covers at least one subtopic (its document is relevant, grade
  >= 1, to some subtopic; a span case: its text contains a span of some subtopic, normalised
  as ``expected_texts`` are). A document the subtopics do not list covers none, as for the
  diversity metrics;
* the judge label: the judge marked at least one of its aspects in the chunk.

Each (case, chunk) counts once, however many aspect metrics (and cutoffs) judged it; chunks
the judge failed on are no pairs. Cohen's κ over the pairs of the run is ``aspect_kappa``,
reported like ``judge_kappa`` (:mod:`.trust`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_ragcheck.judge.agreement import cohen_kappa, kappa_fields

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import CaseResult, HitRecord
    from pytest_ragcheck.golden import GoldenCase
    from pytest_ragcheck.metrics.names import MetricSpec

__all__ = ["ASPECT_PROMPT", "AspectPair", "aspect_pairs", "aspect_question"]

#: The prompt whose answers say which aspects a chunk covers.
ASPECT_PROMPT = "covers"


@dataclass(frozen=True, slots=True)
class AspectPair:
    """One retrieved chunk of a case with subtopics that the judge marked."""

    case_id: str
    rank: int
    doc_id: str
    #: Covers at least one human subtopic.
    human: bool
    #: Covers at least one of the judge's aspects.
    judge: bool
    #: The aspect metrics that judged it.
    metrics: tuple[str, ...]


def _covering(case: GoldenCase) -> Callable[[HitRecord], bool]:
    """A test of "this hit covers some subtopic" for the case (by id, or by span)."""
    if case.subtopics:
        ids = {doc for grades in case.subtopics.values() for doc, g in grades.items() if g >= 1}
        return lambda hit: hit.id in ids
    from pytest_ragcheck.golden.spans import normalize_text

    spans = {normalize_text(s) for spans in case.subtopic_texts.values() for s in spans}
    spans.discard("")

    def contains(hit: HitRecord) -> bool:
        text = normalize_text(hit.text) if hit.text is not None else ""
        return any(span in text for span in spans)

    return contains


def aspect_pairs(
    case: GoldenCase, result: CaseResult, specs: Sequence[MetricSpec]
) -> Iterator[AspectPair]:
    """The (chunk, human label, judge label) pairs of one case, in rank order."""
    if not (case.subtopics or case.subtopic_texts):
        return
    covers = _covering(case)
    marked: dict[int, bool] = {}
    metrics: dict[int, list[str]] = {}
    for spec in specs:
        if spec.metric.prompt != ASPECT_PROMPT:
            continue
        for entry in result.judge.get(spec.name, []):
            if "covers" not in entry:  # the aspects list, or a chunk the judge failed on
                continue
            rank = int(entry["rank"])
            marked.setdefault(rank, bool(entry["covers"]))
            metrics.setdefault(rank, []).append(spec.name)
    for rank in sorted(marked):
        hit = result.hits[rank - 1]  # judged chunks are the case's hits in rank order
        yield AspectPair(
            case_id=case.id,
            rank=rank,
            doc_id=hit.id,
            human=covers(hit),
            judge=marked[rank],
            metrics=tuple(metrics[rank]),
        )


def aspect_question(
    scored: Sequence[tuple[GoldenCase, CaseResult]], specs: Sequence[MetricSpec]
) -> dict[str, Any]:
    """κ and its context over every pair of the run, shaped like a ``judge_kappa`` question."""
    pairs = [p for case, result in scored for p in aspect_pairs(case, result, specs)]
    seen = Counter((p.human, p.judge) for p in pairs)
    tp, fn, fp, tn = seen[True, True], seen[True, False], seen[False, True], seen[False, False]
    n = len(pairs)
    question: dict[str, Any] = {
        "question": ASPECT_PROMPT,
        "metrics": sorted({m for p in pairs for m in p.metrics}),
        "pairs": n,
        "cases": len({p.case_id for p in pairs}),
        "confusion": {"tp": tp, "fp": fp, "fn": fn, "tn": tn},
        "base_rate": (tp + fn) / n if n else None,
        "judge_rate": (tp + fp) / n if n else None,
    }
    reason = _undefined(n, human=tp + fn, judge=tp + fp)
    kappa = None if reason else cohen_kappa([[tn, fp], [fn, tp]])
    question.update(kappa_fields(kappa, reason))
    return question


def _undefined(n: int, *, human: int, judge: int) -> str:
    """Why κ cannot be computed, or ``""`` (one class on either side: chance explains all)."""
    if n == 0:
        return (
            "no case with subtopics (or subtopic_texts) has a retrieved chunk the judge "
            "marked with aspects (nothing was retrieved, or the judge failed on each)"
        )
    if human in (0, n):
        word = "covers some" if human == n else "covers no"
        return (
            f"each of the {n} chunks the judge marked {word} subtopic for the people, so κ "
            "cannot tell agreement from chance; add cases (or subtopics) whose top k mixes "
            "both"
        )
    if judge in (0, n):
        word = "some" if judge == n else "none"
        return (
            f"the judge found {word} of its aspects in each of the {n} chunks with subtopic "
            "labels, so κ cannot tell agreement from chance"
        )
    return ""
