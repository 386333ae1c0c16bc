"""Turning a judge run's answers into metric values, per-chunk details and error lines.

Verdicts shared by several metrics or cases are summarised once; each metric's value is its
registry formula (``Metric.formula``) over the per-chunk values in rank order. With
``judge_samples`` >= 2 every distinct judged item is tallied once (do its samples all
agree?), and with ``judge_disagreement="abstain"`` an item whose samples disagree is left out
of the formula (marked ``abstained`` in the details); a case whose every item was left out has
no value for the metric.
"""

from __future__ import annotations

from typing import Any

from pytest_ragcheck.answers import judged
from pytest_ragcheck.judge import scoring
from pytest_ragcheck.judge.embeddings import Embeddings, blank
from pytest_ragcheck.judge.planner import Job, Judgment, Plan
from pytest_ragcheck.judge.prompts import ANSWER_KINDS, escape
from pytest_ragcheck.judge.run import JudgeRun

__all__ = ["Scorer"]


class Scorer:
    """Turns planned judgments into values, details and error lines for one run."""

    def __init__(
        self,
        run: JudgeRun,
        *,
        samples: int,
        abstain: bool = False,
        embeddings: Embeddings | None = None,
        blend: bool = False,
        alpha: float = 0.5,
    ) -> None:
        self.run = run
        #: ``diversity_alpha``, for ``llm_alpha_ndcg``.
        self.alpha = alpha
        self.embeddings = embeddings or Embeddings()
        #: answer_correctness: blend the factual F1 with the embedding similarity.
        self.blend = blend
        self.samples = samples
        self.abstain = abstain and samples > 1
        self._reported: set[tuple[str, str]] = set()
        self._summaries: dict[int, tuple[dict[str, Any], float]] = {}
        self._tallied: set[int] = set()

    def _fail(self, case_id: str, metric: str, where: str, job: Job) -> None:
        line = f"{metric}: {where}: {job.error}"
        self.run.add_error(case_id, line)
        if (case_id, job.key) in self._reported:
            return  # one verdict shared by several metrics is reported once in the summary
        self._reported.add((case_id, job.key))
        if job.error_kind == "offline":
            self.run.offline_misses.append((case_id, f"{where} ({job.prompt.id})"))
        elif job.error_kind != "budget":
            self.run.other_errors.append((case_id, line))

    def _problem(self, case_id: str, line: str) -> None:
        self.run.add_error(case_id, line)
        if (case_id, line) not in self._reported:
            self._reported.add((case_id, line))
            self.run.other_errors.append((case_id, line))

    def score(self, case_id: str, plan: Plan) -> None:
        name = plan.spec.name
        details = self.run.details.setdefault(case_id, {})
        if plan.problem is not None:
            self._problem(case_id, f"{name}: {plan.problem}")
            details[name] = []
            return
        if plan.prompt.kind == "claims":
            self._score_claims(case_id, plan)
            return
        if plan.prompt.kind == "truthfulness":
            self._score_truthfulness(case_id, plan)
            return
        if plan.prompt.kind in ANSWER_KINDS:
            self._score_answer(case_id, plan)
            return
        if plan.prompt.kind == "covers":
            self._score_aspects(case_id, plan)
            return
        entries: list[dict[str, Any]] = []
        values: list[float] = []
        ok = True
        for rank, judgment in enumerate(plan.chunks, 1):
            if isinstance(judgment, str):
                ok = False
                entries.append({"rank": rank, "error": judgment, "cached": False})
                self._problem(case_id, f"{name}: chunk {rank}: {judgment}")
                continue
            failed = judgment.failed
            if failed is not None:
                ok = False
                entries.append({"rank": rank, "error": failed.error, "cached": False})
                self._fail(case_id, name, f"chunk {rank}", failed)
                continue
            summary, value = self._summary(judgment)
            entry = {"rank": rank, **summary}
            entries.append(entry)
            if not summary.get("abstained"):
                values.append(value)
        details[name] = entries
        if ok and (values or not entries):
            formula = scoring.formula(plan.spec.metric.formula)
            self.run.values.setdefault(case_id, {})[name] = formula(values)

    def _summary(self, judgment: Judgment) -> tuple[dict[str, Any], float]:
        """One chunk's details (without its rank) and its value (1/0 for yes/no), memoised:
        a verdict is shared by metrics and cases."""
        found = self._summaries.get(id(judgment))
        if found is None:
            found = self._aggregate(judgment)
            self._summaries[id(judgment)] = found
        return found

    def _tally(self, judgment: Judgment, spread: float) -> bool:
        """Count one judged item's samples (once per item); True when it is left out."""
        disagree = spread > 0
        if id(judgment) not in self._tallied:
            self._tallied.add(id(judgment))
            self.run.sampled += 1
            if not disagree:
                self.run.agreeing += 1
            elif self.abstain:
                self.run.abstained += 1
        return disagree and self.abstain

    def _aggregate(self, judgment: Judgment) -> tuple[dict[str, Any], float]:
        answers = judgment.answers
        kind = judgment.prompt.kind
        entry: dict[str, Any] = {}
        if kind == "verdict":
            votes = [a["verdict"] == "yes" for a in answers]
            verdict = scoring.majority(votes)
            chosen = next((a for a in answers if (a["verdict"] == "yes") == verdict), answers[0])
            entry["verdict"] = "yes" if verdict else "no"
            entry["reason"] = chosen["reason"]
            numbers = [1.0 if v else 0.0 for v in votes]
            value = 1.0 if verdict else 0.0
            if self.samples > 1:
                entry["votes"] = [a["verdict"] for a in answers]
        else:
            numbers = [float(a[kind]) for a in answers]
            value = scoring.mean(numbers)
            entry[kind] = answers[0][kind] if self.samples == 1 else value
            entry["reason"] = answers[0]["reason"]
            if self.samples > 1:
                entry["samples"] = [a[kind] for a in answers]
        entry["cached"] = judgment.cached
        if self.samples > 1:
            entry["spread"] = scoring.spread(numbers)
            if self._tally(judgment, entry["spread"]):
                entry["abstained"] = True
        return entry, value

    def _score_claims(self, case_id: str, plan: Plan) -> None:
        name = plan.spec.name
        details = self.run.details.setdefault(case_id, {})
        judgment = plan.claims
        if judgment is None:  # nothing retrieved: no claim can be attributed
            details[name] = []
            self.run.values.setdefault(case_id, {})[name] = 0.0
            return
        failed = judgment.failed
        if failed is not None:
            details[name] = []
            self._fail(case_id, name, "claims of the reference answer", failed)
            return
        formula = scoring.formula(plan.spec.metric.formula)
        recalls = [formula([c["attributed"] for c in a["claims"]]) for a in judgment.answers]
        abstained = self.samples > 1 and self._tally(judgment, scoring.spread(recalls))
        entries: list[dict[str, Any]] = []
        for index, claim in enumerate(judgment.answers[0]["claims"], 1):
            entry: dict[str, Any] = {
                "index": index,
                "claim": claim["claim"],
                "attributed": claim["attributed"],
                "reason": "",
                "cached": judgment.cached,
            }
            if self.samples > 1:
                entry["samples"] = recalls
                entry["spread"] = scoring.spread(recalls)
            if abstained:
                entry["abstained"] = True
            entries.append(entry)
        details[name] = entries
        if not abstained:
            self.run.values.setdefault(case_id, {})[name] = scoring.mean(recalls)

    def _score_aspects(self, case_id: str, plan: Plan) -> None:
        """An aspect metric: the query's aspects, which of them each chunk covers (an aspect
        counts when most samples list it; ids the judge did not list are ignored)."""
        name = plan.spec.name
        details = self.run.details.setdefault(case_id, {})
        details[name] = []
        values = self.run.values.setdefault(case_id, {})
        if plan.aspects is None:  # nothing retrieved
            values[name] = 0.0
            return
        failed = plan.aspects.failed
        if failed is not None:
            self._fail(case_id, name, "the query's aspects", failed)
            return
        ids = [ident for ident, _ in plan.aspect_list]
        index = {ident: j for j, ident in enumerate(ids)}
        covered: list[list[int]] = []
        entries: list[dict[str, Any]] = [{"aspects": [list(a) for a in plan.aspect_list]}]
        ok = True
        for rank, judgment in enumerate(plan.chunks, 1):
            failed = judgment.failed if not isinstance(judgment, str) else None
            if isinstance(judgment, str) or failed is not None:
                ok = False
                error = judgment if isinstance(judgment, str) else failed.error  # type: ignore[union-attr]
                entries.append({"rank": rank, "error": error, "cached": False})
                if isinstance(judgment, str):
                    self._problem(case_id, f"{name}: chunk {rank}: {judgment}")
                else:
                    self._fail(case_id, name, f"chunk {rank}", failed)  # type: ignore[arg-type]
                continue
            answers = judgment.answers
            votes: dict[int, int] = {}
            for answer in answers:
                for j in {index[c.strip()] for c in answer["covers"] if c.strip() in index}:
                    votes[j] = votes.get(j, 0) + 1
            found = sorted(j for j, n in votes.items() if 2 * n > len(answers))
            covered.append(found)
            entries.append(
                {"rank": rank, "covers": [ids[j] for j in found], "cached": judgment.cached}
            )
        details[name] = entries
        if ok:
            formula = getattr(scoring, plan.spec.metric.formula or "")
            values[name] = formula(ids, covered, self.alpha)

    def _score_answer(self, case_id: str, plan: Plan) -> None:
        """A judged answer metric: the formula per sample, their mean, the first's details."""
        name = plan.spec.name
        details = self.run.details.setdefault(case_id, {})
        details[name] = []
        judgment = plan.answer
        if judgment is None:  # pragma: no cover - a plan without a judgment has a problem
            return
        failed = judgment.failed
        if failed is not None:
            self._fail(case_id, name, "the answer", failed)
            return
        scored = [self._answer_value(plan, answer) for answer in judgment.answers]
        error = next((s.error for s in scored if s.error is not None), None)
        if error is not None:
            if self.embeddings.offline:
                self.run.add_error(case_id, f"{name}: {error}")
                self.run.offline_misses.append((case_id, f"embedding ({name})"))
            else:
                self._problem(case_id, f"{name}: {error}")
            return
        values = [s.value for s in scored if s.value is not None]
        abstained = self.samples > 1 and self._tally(judgment, scoring.spread(values))
        details[name] = [{**e, "cached": judgment.cached} for e in scored[0].entries]
        self.run.count_facts(scoring.base_name(name), scored[0].facts)
        if abstained:
            for entry in details[name]:
                entry["abstained"] = True
            return
        self.run.values.setdefault(case_id, {})[name] = scoring.mean(values)

    def _score_truthfulness(self, case_id: str, plan: Plan) -> None:
        """One CRAG grade per answer: ``missing`` without a call for a refusal by the rules,
        else the judge's (the mean of the samples' values)."""
        name = plan.spec.name
        details = self.run.details.setdefault(case_id, {})
        formula = getattr(judged, plan.spec.metric.formula or "")
        answerable = plan.answerable
        entry: dict[str, Any] = {"answerable": answerable}
        judgment = plan.answer
        if judgment is None:  # a refusal by the rules
            grades, entry["refusal"], entry["reason"] = ["missing"], plan.refusal, ""
        else:
            failed = judgment.failed
            if failed is not None:
                details[name] = []
                self._fail(case_id, name, "the answer", failed)
                return
            grades = [a["grade"] for a in judgment.answers]
            entry["judge_grade"] = grades[0]
            entry["reason"] = judgment.answers[0]["reason"]
            entry["cached"] = judgment.cached
        entry["grade"] = judged.crag_grade(grades[0], answerable=answerable)
        values = [formula(g, answerable=answerable) for g in grades]
        if len(grades) > 1:
            entry["samples"] = grades
        details[name] = [entry]
        if (
            judgment is not None
            and self.samples > 1
            and self._tally(judgment, scoring.spread(values))
        ):
            entry["abstained"] = True
            return
        self.run.values.setdefault(case_id, {})[name] = scoring.mean(values)

    def _vectors(self, texts: list[str]) -> tuple[list[list[float]], str | None]:
        """The texts' embeddings; a blank text has none (``[]``, cosine 0 with anything)."""
        problem = self.embeddings.problem(texts)
        if problem is not None:
            return [], problem
        return [[] if blank(t) else self.embeddings.vectors[t] for t in texts], None

    def _answer_value(self, plan: Plan, answer: dict[str, Any]) -> judged.Scored:
        kind = plan.prompt.kind
        if kind == "faithfulness":
            # the judge saw our tags escaped in the passages, and may quote them so
            shown = [escape(text) for text in plan.contexts]
            seen = [*plan.contexts, *(s for s in shown if s not in plan.contexts)]
            return judged.faithfulness(answer, seen)
        if kind == "completeness":
            return judged.completeness(answer)
        if kind == "correctness":
            similarity = None
            if self.blend:
                vectors, problem = self._vectors([plan.answer_text, plan.reference])
                if problem is not None:
                    return judged.Scored(None, error=problem)
                try:
                    similarity = judged.cosine(*vectors)
                except judged.EmbeddingError as exc:
                    return judged.Scored(None, error=str(exc))
            return judged.correctness(answer, similarity)
        if answer["noncommittal"] or not answer["questions"]:
            return judged.relevancy(answer, None, [])
        vectors, problem = self._vectors([plan.query, *answer["questions"]])
        if problem is not None:
            return judged.Scored(None, error=problem)
        return judged.relevancy(answer, vectors[0], vectors[1:])
