"""How far the labels and the judge can be trusted: ``judged@k``, ``judge_kappa``, consistency.

Run by ``evaluate_golden`` after the retriever and the judge, from the golden cases and their
results:

* ``judged@k`` per case: the share of the top k with a human label (:mod:`.labels`). Added to
  the run whenever a case has graded ``relevance``: unlabelled documents count as not
  relevant, so a gap in the labels makes precision and nDCG look worse than the retriever is.
* ``judge_kappa``: Cohen's κ between the judge's relevance verdicts (yes, or grade >= 1) and
  the human labels (grade >= 1) over every labelled document the judge saw, with its 95 %
  interval, the pair count, the base rate and the confusion matrix (:mod:`.agreement`); for
  ``llm_ndcg`` also the quadratic weighted κ of the grades (cases with graded ``relevance``).
  Added whenever the judge answered relevance questions about labelled documents. When a test
  asks both questions (``llm_relevancy``/``llm_precision`` and ``llm_ndcg``) the lower κ
  counts: the test relies on both.
* ``aspect_kappa``: the same for the judged aspect metrics, κ between "the judge marked some
  aspect in the chunk" and "the chunk covers some human subtopic" (:mod:`.aspect_agreement`);
  added whenever an aspect metric judged a chunk of a case with subtopics.
* ``judge_consistency``: the share of judged items whose ``judge_samples`` all agree; added
  whenever ``judge_samples`` >= 2.

A statistic that cannot be computed is absent (never NaN) and a note says why; gated with a
``min_...`` floor, that is a problem that fails the test.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from pytest_ragcheck.common.display import format_value
from pytest_ragcheck.evaluation.result import hit_ids
from pytest_ragcheck.judge.agreement import cohen_kappa, kappa_fields
from pytest_ragcheck.judge.aspect_agreement import ASPECT_PROMPT, aspect_question
from pytest_ragcheck.judge.labels import JudgedDoc, judged_docs, label_kind
from pytest_ragcheck.metrics.names import MetricSpec
from pytest_ragcheck.metrics.registry import AGREEMENT_PROMPTS

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import CaseResult
    from pytest_ragcheck.evaluation.settings import Settings
    from pytest_ragcheck.golden import GoldenCase

__all__ = ["Trust", "assess_trust"]

#: Judge grades are 0-3; human grades outside cannot be compared with them.
GRADES = range(4)
_LISTED = 3
_RELEVANCE = attrgetter("relevance")


@dataclass(slots=True)
class Trust:
    """What the assessment adds to a run."""

    #: Metrics the run gained without being asked for them (shown, never stored in baselines).
    specs: list[MetricSpec] = field(default_factory=list)
    #: Run-level values (``judge_kappa``, ``judge_consistency``).
    values: dict[str, float] = field(default_factory=dict)
    #: The agreement statistics, for ``Result.info["judge"]["agreement"]``.
    agreement: dict[str, Any] | None = None
    #: ``aspect_kappa``'s, for ``Result.info["judge"]["aspect_agreement"]``.
    aspect_agreement: dict[str, Any] | None = None
    #: Per metric: what its value rests on (pairs, interval, ...), shown next to it.
    metric_notes: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: Paragraphs that fail the test (a floor that cannot be checked).
    problems: list[str] = field(default_factory=list)

    def add(self, spec: MetricSpec, value: float | None, reason: str, settings: Settings) -> None:
        """Report one run-level statistic, or why it is undefined."""
        asked = spec in settings.metrics
        if value is not None:
            self.values[spec.name] = value
            if not asked:
                self.specs.append(spec)
            return
        gate = next((t for t in settings.thresholds if t.spec == spec), None)
        if gate is not None:
            self.problems.append(
                f"min_{spec.name}={gate.bound:g} cannot be checked: {spec.name} is undefined: "
                f"{reason}."
            )
        else:
            self.notes.append(f"{spec.name} is undefined: {reason}")

    def info(self, judge: Mapping[str, Any] | None) -> dict[str, Any]:
        """Entries for ``Result.info``: ``judge`` extended with the agreement, ``trust``."""
        found: dict[str, Any] = {}
        if judge is not None:
            extra = {"agreement": self.agreement, "aspect_agreement": self.aspect_agreement}
            extra = {key: value for key, value in extra.items() if value is not None}
            if extra:
                found["judge"] = {**judge, **extra}
        trust = {"notes": self.notes, "problems": self.problems, "metric_notes": self.metric_notes}
        if any(trust.values()):
            found["trust"] = trust
        return found


def assess_trust(
    cases: Sequence[GoldenCase],
    results: Mapping[str, CaseResult],
    settings: Settings,
    judge: Mapping[str, Any] | None,
) -> Trust:
    """Judged@k values (set on the case results), the judge's agreement and consistency."""
    trust = Trust()
    _judged(trust, cases, results, settings)
    if judge is None:
        return trust
    scored = [(c, results[c.id]) for c in cases if results[c.id].status == "ok"]
    verdict_specs = [s for s in settings.metrics if s.metric.prompt in AGREEMENT_PROMPTS]
    if verdict_specs:
        _agreement(trust, scored, verdict_specs, settings)
    aspect_specs = [s for s in settings.metrics if s.metric.prompt == ASPECT_PROMPT]
    if aspect_specs:
        _aspect_agreement(trust, scored, aspect_specs, settings)
    if settings.judge.samples > 1:
        _consistency(trust, judge, settings)
        scored_names = {name for _, result in scored for name in result.values}
        _unscored_gates(trust, judge, settings, scored_names)
    return trust


def _judged(
    trust: Trust,
    cases: Sequence[GoldenCase],
    results: Mapping[str, CaseResult],
    settings: Settings,
) -> None:
    """``judged@k`` by the labels rule, for every case matched by id (and an ok retrieval).

    The rule in short (:func:`~pytest_ragcheck.judge.labels.labels_of`): a graded case's
    labels are its grades, a binary case labels every retrieved id; the share is counted here
    directly, as :func:`pytest_ragcheck.metrics.reference.judged` would on those labels (hits
    are already unique), since graded sets get ``judged@k`` by default on every case.
    """
    from pytest_ragcheck.golden.columns import IdCases

    specs = [s for s in settings.metrics if s.base == "judged"]
    added = not specs
    # label_kind's "graded" (a case with ``relevance``), read without a call per case
    if not specs and type(cases) is not IdCases and any(map(_RELEVANCE, cases)):
        specs = [MetricSpec("judged", settings.k)]
    if not specs:
        return
    for case in cases:
        result = results[case.id]
        values = result.values
        for spec in specs:
            values.pop(spec.name, None)  # the rank engine's value knows no labels rule
        kind = label_kind(case)
        if result.status != "ok" or kind == "none":
            continue
        grades = case._grades if kind == "graded" else None
        ids = hit_ids(result)
        for spec in specs:
            top = ids if spec.k is None else ids[: spec.k]
            if not top:
                values[spec.name] = 0.0
            elif grades is None:  # binary labels: every retrieved id is judged
                values[spec.name] = 1.0
            else:
                values[spec.name] = sum(1 for doc in top if doc in grades) / len(top)
    if added and not _says_something(specs[0], cases, results, settings):
        for result in results.values():  # it would equal precision@k (or 1): nothing to say
            result.values.pop(specs[0].name, None)
        return
    if added:
        trust.specs.extend(specs)


def _says_something(
    spec: MetricSpec,
    cases: Sequence[GoldenCase],
    results: Mapping[str, CaseResult],
    settings: Settings,
) -> bool:
    """Whether a ``judged@k`` nobody asked for tells more than the other numbers: some
    document in a top k is labelled not relevant (then it differs from ``precision@k``), or
    the test shows no ``precision@k`` and some top k has unlabelled documents."""
    precision = any(s.base == "precision" and s.k == spec.k for s in settings.metrics)
    for case in cases:
        result = results[case.id]
        if result.status != "ok" or label_kind(case) != "graded":
            continue
        top = hit_ids(result) if spec.k is None else hit_ids(result)[: spec.k]
        grades = case._grades
        if any(doc in grades and grades[doc] < 1 for doc in top):
            return True
        if not precision and any(doc not in grades for doc in top):
            return True
    return False


def _agreement(
    trust: Trust,
    scored: Sequence[tuple[GoldenCase, CaseResult]],
    specs: Sequence[MetricSpec],
    settings: Settings,
) -> None:
    pairs: dict[str, list[tuple[GoldenCase, JudgedDoc]]] = {}
    for case, result in scored:
        for doc in judged_docs(case, result, specs):
            pairs.setdefault(doc.prompt, [])
            if doc.label is not None:
                pairs[doc.prompt].append((case, doc))
    labelled = any(label_kind(c) != "none" for c, _ in scored)
    spec = MetricSpec("judge_kappa", None)
    if not labelled and spec not in settings.metrics:
        return  # nothing to compare with: no note for a set without labels
    questions = [_question(p, pairs[p]) for p in AGREEMENT_PROMPTS if p in pairs]
    if not questions:  # judge errors fail the test with their reason; abstentions do not
        if any(t.spec == spec for t in settings.thresholds):
            reason = (
                "the judge has no verdict on a labelled document (none was retrieved, the "
                "judge failed on each, or judge_disagreement='abstain' left each out)"
            )
            trust.add(spec, None, reason, settings)
        return
    # both questions often fail for the same reason: say it once
    undefined = "; ".join(dict.fromkeys(q["undefined"] for q in questions if q["undefined"]))
    value = None if undefined else min(q["kappa"] for q in questions)
    trust.agreement = {"kappa": value, "undefined": undefined or None, "questions": questions}
    trust.add(spec, value, undefined, settings)
    if value is not None:
        trust.metric_notes[spec.name] = "; ".join(_describe(q, len(questions)) for q in questions)
    for q in questions:
        weighted = q.get("weighted")
        if weighted and weighted["undefined"]:
            trust.notes.append(
                f"weighted κ of the llm_ndcg grades is undefined: {weighted['undefined']}"
            )


def _aspect_agreement(
    trust: Trust,
    scored: Sequence[tuple[GoldenCase, CaseResult]],
    specs: Sequence[MetricSpec],
    settings: Settings,
) -> None:
    spec = MetricSpec("aspect_kappa", None)
    question = aspect_question(scored, specs)
    if not question["pairs"] and spec not in settings.metrics:
        return  # no subtopics to compare with; judge errors fail the test with their reason
    trust.aspect_agreement = question
    trust.add(spec, question["kappa"], question["undefined"] or "", settings)
    if question["kappa"] is not None:
        trust.metric_notes[spec.name] = _describe(question, 1)


def _question(prompt: str, found: Sequence[tuple[GoldenCase, JudgedDoc]]) -> dict[str, Any]:
    """κ and its context for one relevance question (``relevance`` or ``grade``)."""
    seen = Counter((int(d.label or 0) >= 1, d.says_relevant) for _, d in found)
    tp, fn, fp, tn = seen[True, True], seen[True, False], seen[False, True], seen[False, False]
    n = len(found)
    question: dict[str, Any] = {
        "question": prompt,
        "metrics": sorted({m for _, d in found for m in d.metrics}),
        "pairs": n,
        "confusion": {"tp": tp, "fp": fp, "fn": fn, "tn": tn},
        "base_rate": (tp + fn) / n if n else None,
        "judge_rate": (tp + fp) / n if n else None,
    }
    reason = _binary_undefined(n, human=tp + fn, judge=tp + fp)
    kappa = None if reason else cohen_kappa([[tn, fp], [fn, tp]])
    question.update(kappa_fields(kappa, reason))
    if prompt == "grade":
        graded = [(c, d) for c, d in found if label_kind(c) == "graded"]
        if graded:
            question["weighted"] = _weighted(graded)
    return question


def _binary_undefined(n: int, *, human: int, judge: int) -> str:
    """Why κ cannot be computed from ``n`` pairs with these counts of "relevant", or ``""``.

    With one class on either side κ is undefined or 0 whatever the judge does: agreement
    cannot be told apart from chance.
    """
    if n == 0:
        return (
            "the judge saw no document with a human label (labels come from cases with "
            "relevance or expected_ids that list retrieved documents; text-span cases have none)"
        )
    if human in (0, n):
        side, other = ("relevant", "not relevant") if human == n else ("not relevant", "relevant")
        return (
            f"all {n} labelled documents the judge saw are {side} for the people, so κ cannot "
            f"tell agreement from chance; label some {other} documents among the retrieved ones"
        )
    if judge in (0, n):
        return (
            f"the judge said {'yes' if judge == n else 'no'} to all {n} labelled documents it "
            "saw, so κ cannot tell agreement from chance"
        )
    return ""


def _weighted(found: Sequence[tuple[GoldenCase, JudgedDoc]]) -> dict[str, Any]:
    """Quadratic weighted κ of human and judge grades (0-3) on graded labels."""
    outside = [(c, d) for c, d in found if d.label not in GRADES]
    base: dict[str, Any] = {"weights": "quadratic", "pairs": len(found)}
    if outside:
        shown = ", ".join(
            f"case {c.id!r} document {d.doc_id!r} grade {d.label}" for c, d in outside[:_LISTED]
        )
        more = f" and {len(outside) - _LISTED} more" if len(outside) > _LISTED else ""
        reason = (
            "human grades outside 0-3 cannot be compared with the judge's 0-3 grades: "
            f"{shown}{more}"
        )
        return {**base, **kappa_fields(None, reason)}
    matrix = [[0] * len(GRADES) for _ in GRADES]
    for _, d in found:
        matrix[int(d.label or 0)][d.grade] += 1  # both 0-3: checked above, and by the schema
    human = {d.label for _, d in found}
    judge = {d.grade for _, d in found}
    if len(human) < 2 or len(judge) < 2:
        who = "people" if len(human) < 2 else "judge"
        only = next(iter(human if who == "people" else judge))
        reason = f"the {who} gave every one of the {len(found)} documents grade {only}"
        return {**base, **kappa_fields(None, reason)}
    return {**base, **kappa_fields(cohen_kappa(matrix, weights="quadratic"), "")}


def _describe(question: Mapping[str, Any], count: int) -> str:
    """``95% CI [0.41, 0.78], 120 pairs, base rate 35%, TP 30 FP 5 FN 8 TN 77``."""
    c = question["confusion"]
    low, high = (format_value(v) for v in question["ci"])
    text = (
        f"95% CI [{low}, {high}], {question['pairs']} pairs, base rate "
        f"{question['base_rate']:.0%}, TP {c['tp']} FP {c['fp']} FN {c['fn']} TN {c['tn']}"
    )
    weighted = question.get("weighted")
    if weighted and weighted["kappa"] is not None:
        text += f", weighted κ of grades {format_value(weighted['kappa'])}"
    if count > 1:
        text = f"{question['question']}: κ {format_value(question['kappa'])}, {text}"
    return text


def _consistency(trust: Trust, judge: Mapping[str, Any], settings: Settings) -> None:
    samples = judge.get("samples") or {}
    items = int(samples.get("items") or 0)
    agreeing = int(samples.get("agreeing") or 0)
    spec = MetricSpec("judge_consistency", None)
    n = settings.judge.samples
    trust.add(
        spec,
        agreeing / items if items else None,
        "no judged item has all of its samples answered",
        settings,
    )
    if items:
        trust.metric_notes[spec.name] = (
            f"{agreeing} of {items} judged items agree across {n} samples"
        )
    abstained = int(samples.get("abstained") or 0)
    if abstained:
        trust.notes.append(
            f"judge_disagreement='abstain': {abstained} of {items} judged items left out "
            f"because their {n} samples disagree (no judge metric counts them)"
        )


def _unscored_gates(
    trust: Trust, judge: Mapping[str, Any], settings: Settings, scored: set[str]
) -> None:
    """A judge-metric floor left without any value by abstaining cannot pass silently."""
    abstained = int((judge.get("samples") or {}).get("abstained") or 0)
    if not abstained or judge.get("failure"):
        return  # a failure already fails the test and says why
    for gate in settings.thresholds:
        if gate.spec.metric.prompt is not None and gate.spec.name not in scored:
            trust.problems.append(
                f"min_{gate.spec.name}={gate.bound:g} cannot be checked: no case has a value, "
                f"every judged item of it was left out ({abstained} items' samples disagree "
                "and judge_disagreement='abstain')."
            )
