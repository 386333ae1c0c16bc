"""The HTML drill-down of a pipeline's case: the answer, its claims and the judge's quotes."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from chromium import Browser, needs_chromium
from report_data import sample_document

from pytest_ragcheck.report.html import render_html

ANSWER = "Paris is the capital of France. It has ten airports."
FAITHFULNESS = [
    {"index": 1, "claim": "Paris is the capital of France", "supported": True,
     "judge_supported": True, "quote": "Paris is the capital", "quote_found": True},
    {"index": 2, "claim": "It has ten airports", "supported": False,
     "judge_supported": True, "quote": "ten airports", "quote_found": False},
]  # fmt: skip
COMPLETENESS = [{"index": 1, "claim": "It lies on the Seine", "covered": False}]

READ = """(function () {
  var drill = document.querySelector(".drill:not([hidden])");
  if (!drill) return null;
  return {
    answer: (drill.querySelector(".answer") || {}).textContent,
    headings: Array.from(drill.querySelectorAll("h3")).map(function (h) { return h.textContent; }),
    claims: Array.from(drill.querySelectorAll("ul.claims li")).map(function (li) {
      return {text: li.textContent, ok: li.classList.contains("attributed")};
    })
  };
})()"""


def _document() -> tuple[dict[str, Any], int, str]:
    document = copy.deepcopy(sample_document())
    index, test = next((i, t) for i, t in enumerate(document["tests"]) if t.get("cases"))
    case = test["cases"][0]
    case["answer"] = ANSWER
    case["judge"] = {"faithfulness@10": FAITHFULNESS, "answer_completeness": COMPLETENESS}
    return document, index, str(case["id"])


@needs_chromium
def test_the_drill_down_shows_the_answer_its_claims_and_the_checked_quotes(
    tmp_path: Path,
) -> None:
    document, index, case_id = _document()
    page = tmp_path / "report.html"
    page.write_text(render_html(document), encoding="utf-8")
    with Browser(tmp_path / "profile", width=1280, height=1000) as browser:
        browser.open(f"{page.as_uri()}#case={index}/{case_id}")
        drill = browser.eval(READ)
    assert drill is not None
    assert drill["answer"] == ANSWER
    assert "Answer claims (faithfulness)" in drill["headings"]
    texts = {c["text"]: c["ok"] for c in drill["claims"]}
    assert texts["✓ Paris is the capital of France — quote found: “Paris is the capital”"]
    assert not texts[
        "✗ It has ten airports — the judge's quote “ten airports” is not in the contexts"
    ]
    assert not texts["✗ It lies on the Seine — missing from the answer"]


GRADES = """(function () {
  var drill = document.querySelector(".drill:not([hidden])");
  if (!drill) return null;
  return {
    answer: (drill.querySelector(".answer") || {}).textContent,
    notes: Array.from(drill.querySelectorAll(".meta, .grade")).map(function (n) { return n.textContent; })
  };
})()"""


@needs_chromium
def test_the_drill_down_says_what_an_unanswerable_case_answered_and_its_grade(
    tmp_path: Path,
) -> None:
    document = copy.deepcopy(sample_document())
    index, test = next((i, t) for i, t in enumerate(document["tests"]) if t.get("cases"))
    case = test["cases"][0]
    case.update(answer="Poseidonia", answerable=False, refusal=None)
    entry = {"answerable": False, "judge_grade": "acceptable", "reason": "names a capital",
             "cached": False, "grade": "incorrect"}  # fmt: skip
    case["judge"] = {"truthfulness": [entry], "hallucination_rate": [entry]}
    page = tmp_path / "report.html"
    page.write_text(render_html(document), encoding="utf-8")
    with Browser(tmp_path / "profile", width=1280, height=1000) as browser:
        browser.open(f"{page.as_uri()}#case={index}/{case['id']}")
        drill = browser.eval(GRADES)
    assert drill is not None
    assert drill["answer"] == "Poseidonia"
    notes = drill["notes"]
    assert "Unanswerable here, but the pipeline answered: Poseidonia" in notes
    assert (
        "truthfulness, hallucination_rate: grade incorrect (the judge said acceptable) — judge: "
        "names a capital"
    ) in notes
