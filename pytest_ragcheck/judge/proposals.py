"""``--ragcheck-propose-labels=FILE``: the judge's answers on documents nobody labelled.

Golden sets have holes: a retriever change brings up documents the labellers never saw, and
precision or nDCG count them as not relevant. TREC fills such holes by *pooling* (judging the
union of what the systems retrieved); here the judge pre-grades the pool and a person decides.
Every retrieved document without a human label (:mod:`.labels`) that the judge answered a
relevance question about (``llm_relevancy``, ``llm_precision``, ``llm_ndcg``) becomes one
JSONL line for review; golden files are never edited.

Each ragcheck call collects its lines in its record (so pytest-xdist workers ship them to the
controller); the controller merges the lines of every test, one per (golden set, case,
document, judge model), sorted, and writes the file atomically.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_ragcheck.common.redact import redact
from pytest_ragcheck.judge.labels import judged_docs
from pytest_ragcheck.metrics.registry import AGREEMENT_PROMPTS

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import Result
    from pytest_ragcheck.evaluation.settings import Settings
    from pytest_ragcheck.golden import GoldenSet

__all__ = ["label_proposals", "write_proposals"]

#: Characters of a document's text kept in its line (enough to decide, small enough to diff).
TEXT_LIMIT = 1000


def label_proposals(golden: GoldenSet, result: Result, settings: Settings) -> list[dict[str, Any]]:
    """One line per unlabelled retrieved document the judge answered about, in rank order.

    A line holds ``golden`` (the set's source), ``case_id``, ``query``, ``doc_id``, ``rank``,
    ``text``, the judge's ``verdict`` (yes/no) and/or ``grade`` (0-3; the mean of the samples
    with ``judge_samples`` > 1), its ``reason`` (the grade's when both were asked) and
    ``judge_model``.
    """
    cases = {case.id: case for case in golden.cases}
    specs = [s for s in result.specs if s.metric.prompt in AGREEMENT_PROMPTS]
    lines: list[dict[str, Any]] = []
    for case_result in result.cases:
        case = cases.get(case_result.id)
        if case is None or case_result.status != "ok" or not specs:
            continue
        found: dict[str, dict[str, Any]] = {}
        for doc in judged_docs(case, case_result, specs):
            if doc.label is not None:
                continue
            text = case_result.hits[doc.rank - 1].text or ""
            line = found.setdefault(
                doc.doc_id,
                {
                    "golden": result.golden_source,
                    "case_id": case.id,
                    "query": case.query,
                    "doc_id": doc.doc_id,
                    "rank": doc.rank,
                    "text": text[:TEXT_LIMIT],
                    "judge_model": settings.judge.model,
                },
            )
            line["verdict" if doc.prompt == "relevance" else "grade"] = doc.answer
            if doc.prompt == "grade" or "reason" not in line:
                line["reason"] = doc.reason
        lines.extend(found.values())
    return lines


def write_proposals(path: Path, records: Iterable[Mapping[str, Any]]) -> tuple[str, str]:
    """Merge the proposals of every record and write them; returns ``(level, message)``.

    Written (to a temporary file renamed into place) only when there is something to
    propose: a run without judged unlabelled documents leaves whatever is at ``path`` as it
    is, and says so. An unwritable path is reported, never raised: the run's outcome stays
    as it is.
    """
    from pytest_ragcheck.report.files import write_file

    merged: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for record in records:
        for line in record.get("proposals") or []:
            key = (line["golden"], line["case_id"], line["doc_id"], str(line["judge_model"]))
            merged.setdefault(key, {}).update(line)  # two tests, two questions: one line
    ordered = sorted(merged.values(), key=lambda x: (x["golden"], x["case_id"], x["rank"]))
    if not ordered:
        earlier = f"; the earlier {path} is left as it is" if path.exists() else ""
        return (
            "info",
            "ragcheck label proposals: nothing to propose (no judge metric answered about a "
            f"retrieved document without a human label), so nothing was written{earlier}",
        )
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in ordered)
    try:
        write_file(path, redact(text))
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return "error", f"ragcheck: could not write the label proposals {path}: {reason}"
    cases = len({(x["golden"], x["case_id"]) for x in ordered})
    return (
        "info",
        f"ragcheck label proposals: {len(ordered)} unlabelled document(s) of {cases} case(s) "
        f"to review in {path}",
    )
