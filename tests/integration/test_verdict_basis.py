"""Verdict words carry their basis: a change judged by tolerance alone says so in every output.

When so few cases changed that the paired test cannot reach the significance level, the
tolerance decides; the summary, the ``-q`` line, the failure message, the Markdown, HTML and
JSON reports and the JUnit properties all say "tolerance", never a bare "regressed (p=0.5)".
An improvement of one tag never makes a test IMPROVED nor asks for a re-record on its own.
"""

from __future__ import annotations

import re

from chromium import Browser, needs_chromium
from harness import Suite, ragcheck_module

TOLERANCE = "tolerance; too few changed cases to test"

#: Five cases; q3 has two relevant documents (recall@3 0.5), so the baseline values vary and
#: the test's size has a smallest detectable change.
FIVE = [
    {"id": "q1", "query": "what is alpha", "expected_ids": ["a"]},
    {"id": "q2", "query": "what is beta", "expected_ids": ["b"]},
    {"id": "q3", "query": "gamma and delta", "expected_ids": ["c", "d"]},
    {"id": "q4", "query": "what is epsilon", "expected_ids": ["e"]},
    {"id": "q5", "query": "what is zeta", "expected_ids": ["z"]},
]
BEFORE = {
    "what is alpha": ["a", "x", "y"],
    "what is beta": ["b", "x", "y"],
    "gamma and delta": ["c", "x", "y"],
    "what is epsilon": ["e", "x", "y"],
    "what is zeta": ["z", "x", "y"],
}
#: One case of five loses its document: recall@3 −0.2, p can be no lower than 0.5.
AFTER = {**BEFORE, "what is epsilon": ["x", "y", "w"]}


def test_a_drop_judged_by_tolerance_alone_says_so_everywhere(suite: Suite, tmp_path) -> None:
    suite.make(ragcheck_module('"golden.jsonl", k=3, metrics=["recall@3"]'), cases=FIVE)
    suite.rebaseline(BEFORE, AFTER).assert_outcomes(passed=1)
    result = suite.run("--ragcheck-report=r.json,r.md,r.html", "--junitxml=j.xml")
    result.assert_outcomes(failed=1)
    text = suite.text(result)
    entry = suite.read_json("r.json")["tests"][0]
    check = next(m for m in entry["metrics"] if m["name"] == "recall@3")
    assert (check["status"], check["basis"]) == ("regressed", "tolerance")
    assert check["detectable"] is not None
    detectable = f"smallest detectable change {check['detectable']:.3f}"

    # The message: the headline, and the detail line with why the p-value decided nothing.
    headline = f"recall@3 regressed ({TOLERANCE}) 0.900 → 0.700 (Δ −0.200) (ragcheck failed for"
    assert headline in text
    assert "  recall@3: 0.900 → 0.700 (Δ −0.200, allowed 0.020, p=0.5, 95% CI" in text
    assert (
        "judged by tolerance alone: only 1 case(s) changed, too few for the paired test to " in text
    )
    # The summary table, and the -q line.
    assert re.search(
        rf"  recall@3 +0\.700 +0\.900 +−0\.200 +0\.020  regressed \({TOLERANCE}; {detectable}\)",
        text,
    ), text
    quiet = suite.text(suite.run("-q"))
    assert "recall@3 0.700 (−0.200, allowed 0.020, tolerance alone)" in quiet
    # Markdown and JUnit.
    markdown = (suite.path / "r.md").read_text("utf-8")
    assert f"| **regressed** ({TOLERANCE}; {detectable}) |" in markdown
    assert "recall@3** 0.900 → **0.700** (−0.200, allowed 0.020, tolerance alone)" in markdown
    assert "p=0.5" not in markdown  # its table says what decided: the tolerance
    props = suite.junit_properties("j.xml")["test_rag"]
    assert (props["ragcheck.recall@3.status"], props["ragcheck.recall@3.basis"]) == (
        "regressed",
        "tolerance",
    )


@needs_chromium
def test_the_html_badge_carries_the_basis(suite: Suite, tmp_path) -> None:
    suite.make(ragcheck_module('"golden.jsonl", k=3, metrics=["recall@3"]'), cases=FIVE)
    suite.rebaseline(BEFORE, AFTER)
    suite.run("--ragcheck-report=r.html").assert_outcomes(failed=1)
    with Browser(tmp_path / "profile") as browser:
        browser.open((suite.path / "r.html").as_uri())
        shown = browser.eval(
            """(function () {
              var row = document.querySelector('table.metrics tr[data-metric="recall@3"]');
              return {badge: row.querySelector('.badge').firstChild.textContent,
                      p: row.cells[5].textContent,
                      overview: document.querySelector('#overview tbody td:last-child').textContent};
            })()"""
        )
    assert shown["badge"] == f"regressed ({TOLERANCE})"
    assert shown["p"] == "–"  # no p-value decided this
    assert "recall@3 0.700 (−0.200, tolerance alone)" in shown["overview"]


#: Four cases per tag; in tag "few", q1's document moves from rank 5 to rank 1 (+0.8 for
#: that case: +0.2 for the tag, beyond the 0.15 tolerance; +0.1 overall, within it).
TAGGED = [
    {"id": f"q{i}", "query": f"question {i}", "expected_ids": [f"d{i}"], "tags": [tag]}
    for i, tag in zip(range(1, 9), ["few"] * 4 + ["other"] * 4, strict=True)
]
TAG_BEFORE = {f"question {i}": [f"d{i}", "x"] for i in range(1, 9)}
TAG_BEFORE["question 1"] = ["x1", "x2", "x3", "x4", "d1"]
TAG_AFTER = {**TAG_BEFORE, "question 1": ["d1", "x1"]}


def test_a_tag_that_improved_never_makes_the_test_improved(suite: Suite) -> None:
    marker = '"golden.jsonl", k=5, metrics=["mrr"], per_tag=True, min_tag_cases=4, tolerance=0.15'
    suite.make(ragcheck_module(marker), cases=TAGGED)
    suite.rebaseline(TAG_BEFORE, TAG_AFTER).assert_outcomes(passed=1)
    result = suite.run("--ragcheck-report=r.json,r.md")
    result.assert_outcomes(passed=1)
    text = suite.text(result)
    assert re.search(rf"mrr@5 \[tag few\] .* improved \({TOLERANCE}", text), text
    assert "PASSED         test_rag.py::test_rag" in text
    assert "IMPROVED" not in text
    assert "--snapshot-update" not in text  # nothing to re-record for one slice
    report = suite.read_json("r.json")
    assert report["tests"][0]["status"] == "passed"
    assert report["summary"]["improved"] == 0
    assert "📈" not in (suite.path / "r.md").read_text("utf-8")
