"""Which retrieved documents carry a human label, and what the judge said about each one.

SPEC §11: in a case with ``relevance`` the labelled documents are the ones it lists (its
``expected_ids`` too, at grade 1); in a case with only ``expected_ids`` every retrieved
document is labelled (listed → relevant, others → not relevant); text-span cases have none.
Judged@k, the judge's agreement with people and the label proposals all read this one rule.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pytest_ragcheck.metrics.registry import AGREEMENT_PROMPTS

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import CaseResult
    from pytest_ragcheck.golden import GoldenCase
    from pytest_ragcheck.metrics.names import MetricSpec

__all__ = ["JudgedDoc", "LabelKind", "judged_docs", "label_kind", "labels_of"]

#: ``graded``: the case lists its judged documents; ``binary``: only ``expected_ids``, every
#: retrieved document counts as labelled; ``none``: matched by text spans, or nothing to match.
LabelKind = Literal["graded", "binary", "none"]


def label_kind(case: GoldenCase) -> LabelKind:
    if case.relevance:
        return "graded"
    return "binary" if case.expected_ids else "none"


def labels_of(case: GoldenCase, retrieved: Sequence[str]) -> dict[str, int] | None:
    """The case's human labels as ``{doc id: grade}`` given what was retrieved, or ``None``."""
    kind = label_kind(case)
    if kind == "none":
        return None
    grades = case.relevance_map()
    if kind == "binary":
        return {**dict.fromkeys(retrieved, 0), **grades}
    return grades


@dataclass(frozen=True, slots=True)
class JudgedDoc:
    """One retrieved document the judge answered a relevance question about."""

    rank: int
    doc_id: str
    #: The prompt id (``relevance`` or ``grade``) and the metrics that asked it.
    prompt: str
    metrics: tuple[str, ...]
    #: ``"yes"``/``"no"`` for ``relevance``; the 0-3 grade (the mean of the samples with
    #: ``judge_samples`` > 1) for ``grade``.
    answer: str | float
    reason: str
    #: The human grade, ``None`` when the document has no label.
    label: int | None

    @property
    def says_relevant(self) -> bool:
        """The judge's binary verdict: yes, or a grade >= 1 (a mean grade rounded half up)."""
        if isinstance(self.answer, str):
            return self.answer == "yes"
        return self.grade >= 1

    @property
    def grade(self) -> int:
        """The judge's grade as a category 0-3 (the mean of samples rounded half up)."""
        return int(float(self.answer) + 0.5)


def judged_docs(
    case: GoldenCase, result: CaseResult, specs: Sequence[MetricSpec]
) -> Iterator[JudgedDoc]:
    """Every (document, relevance question) the judge answered for ``case``, once each.

    Left out: chunks without a verdict (judge errors) and chunks whose samples disagreed
    under ``judge_disagreement="abstain"`` (the judge could not tell).
    """
    ids = [hit.id for hit in result.hits]
    labels = labels_of(case, ids)
    seen: dict[tuple[str, int], list[str]] = {}
    found: dict[tuple[str, int], Mapping[str, Any]] = {}
    for spec in specs:
        prompt = spec.metric.prompt
        if prompt not in AGREEMENT_PROMPTS:
            continue
        assert prompt is not None
        for entry in result.judge.get(spec.name, []):
            if "error" in entry or entry.get("abstained"):
                continue
            key = (prompt, int(entry["rank"]))
            seen.setdefault(key, []).append(spec.name)
            found.setdefault(key, entry)
    for (prompt, rank), answer in sorted(found.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        doc = ids[rank - 1]  # judged chunks are the case's hits in rank order
        yield JudgedDoc(
            rank=rank,
            doc_id=doc,
            prompt=prompt,
            metrics=tuple(seen[(prompt, rank)]),
            answer=answer["verdict"] if prompt == "relevance" else answer["grade"],
            reason=str(answer.get("reason") or ""),
            label=None if labels is None else labels.get(doc),
        )
