"""Answer metrics for a run's cases: what each case's pipeline output allows, and the scores.

Called by the evaluation: :func:`check_references` before the pipeline runs (a case without a
reference answer is a golden-set error naming the cases), :func:`apply_output` per case once
its output is read (the answer is recorded; a case whose output lacks what the metrics need
becomes an error with the reason), :func:`score_lexical` once every case ran.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pytest_ragcheck.answers.lexical import LEXICAL
from pytest_ragcheck.common.errors import GoldenSetError

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import CaseResult
    from pytest_ragcheck.golden import GoldenCase
    from pytest_ragcheck.metrics.names import MetricSpec
    from pytest_ragcheck.run.output import Answer

__all__ = ["apply_output", "check_references", "score_lexical"]

_LISTED = 10


#: The last answer of :func:`_needing`: asked once per case with the same metrics object.
_LAST: list[tuple[Sequence[MetricSpec], str, list[str]]] = []


def _needing(specs: Sequence[MetricSpec], need: str) -> list[str]:
    for known, asked, names in _LAST:
        if known is specs and asked == need:
            return names
    names = [s.name for s in specs if need in s.metric.needs]
    if type(specs) is tuple:  # a list could change under the cache
        _LAST[:] = [(specs, need, names)]
    return names


def check_references(cases: Sequence[GoldenCase], specs: Sequence[MetricSpec], source: str) -> None:
    """Raise :class:`GoldenSetError` naming the cases without a reference answer when an
    answer metric compares with one."""
    names = [s.name for s in specs if {"answer", "reference_answer"} <= s.metric.needs]
    if not names:
        return
    # an unanswerable case has none by definition: these metrics leave it out or judge it so
    missing = [c.id for c in cases if not c.references and c.answerable]
    if missing:
        shown = ", ".join(repr(i) for i in missing[:_LISTED])
        more = f" and {len(missing) - _LISTED} more" if len(missing) > _LISTED else ""
        raise GoldenSetError(
            f"{source}: {len(missing)} case(s) have no reference_answer (or reference_answers), "
            f"which {', '.join(names)} compare the answer with: {shown}{more}"
        )


def _counts_refusals(specs: Sequence[MetricSpec]) -> bool:
    return any("refusal" in s.metric.needs for s in specs)


def apply_output(result: CaseResult, answer: Answer | None, specs: Sequence[MetricSpec]) -> None:
    """Record the pipeline's answer; make the case an error when the metrics need an answer it
    did not give, or contexts it did not return."""
    if answer is not None:
        result.answer = answer.text
    if result.status != "ok":
        return
    wants_answer = _needing(specs, "answer")
    if answer is not None and answer.text is None and _counts_refusals(specs):
        result.answer = ""  # no answer is a refusal (SPEC §13), which these metrics count
    elif wants_answer and (answer is None or answer.text is None):
        result.status = "error"
        result.error = (
            f"{', '.join(wants_answer)} need the pipeline's answer, but it returned "
            + ("only hits" if answer is None else "no answer (None)")
            + ": return {'answer': str, 'contexts': [hits]} (or a LlamaIndex-style response)"
            # a query engine has .retrieve too, which wins as for any retriever
            + ("; to test a LlamaIndex query engine, pass its .query" if answer is None else "")
        )
        return
    if answer is None or answer.has_contexts:  # a plain retriever: its hits are the contexts
        return
    wants_contexts = [
        s.name
        for s in specs
        if s.kind == "rank" or ("texts" in s.metric.needs and s.kind == "judge")
    ]
    if wants_contexts:
        keys = answer.other_keys
        found = (
            f" (the dict's keys besides the answer: {', '.join(map(repr, keys))})" if keys else ""
        )
        if "context" in keys:
            found = (
                " (LangChain's create_retrieval_chain returns them under 'context': return "
                "{'answer': out['answer'], 'contexts': out['context']})"
            )
        result.status = "error"
        result.error = (
            f"the pipeline returned an answer without contexts, but {', '.join(wants_contexts)} "
            "need them: add a 'contexts' key (or documents, source_documents, source_nodes, "
            f"retrieved_contexts) holding the retrieved hits{found}, or ask only for answer "
            "metrics"
        )


def score_lexical(
    cases: Sequence[GoldenCase],
    by_id: Mapping[str, CaseResult],
    specs: Sequence[MetricSpec],
    *,
    zero_errors: bool,
) -> None:
    """Lexical answer metric values for every case (0 for failed cases with ``zero_errors``)."""
    lexical = [s for s in specs if s.base in LEXICAL]
    if not lexical:
        return
    for case in cases:
        result = by_id[case.id]
        if not case.answerable:  # no reference answer to compare with
            continue
        if result.status == "ok" and result.answer is not None:
            for spec in lexical:
                result.values[spec.name] = LEXICAL[spec.base](result.answer, case.references)
        elif result.status == "error" and zero_errors:
            for spec in lexical:
                result.values[spec.name] = 0.0
