"""The HTML report of a real run, read at a laptop's width: ids on one line, long queries
clipped, a page that stays short, and links to a case that open it when pasted."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from chromium import Browser, needs_chromium
from harness import Suite, cranfield_slice

SEVEN = (
    "from pytest_ragcheck import ragcheck\n"
    + "".join(
        f"""
@ragcheck("golden.jsonl", k=10, metrics=["mrr@10", "ndcg@10"], baseline=False, min_mrr_at_10=0.9)
def test_{n}(ragcheck, retriever):
    ragcheck(retriever)
"""
        for n in range(7)
    )
    + """
@ragcheck("large.jsonl", k=10, metrics=["mrr@10"], baseline=False)
def test_large(ragcheck, retriever):
    ragcheck(retriever)
"""
)


@pytest.fixture
def page(suite: Suite) -> tuple[Path, dict[str, Any]]:
    """Seven tests on 30 Cranfield queries written out at CISI length (a query of several
    sentences, ids like ``cisi-32``), and a test of 225 cases the page holds only in part."""
    cases, rankings = cranfield_slice(225)
    long = [
        {**case, "id": f"cisi-{case['id']}", "query": " ".join([case["query"]] * 6)}
        for case in cases[:30]
    ]
    hits = {
        **rankings,
        **{c["query"]: rankings[q["query"]] for c, q in zip(long, cases, strict=False)},
    }
    suite.golden(long)
    suite.golden(cases, name="large.jsonl")
    suite.retriever(hits)
    suite.test(SEVEN)
    suite.run("--ragcheck-report=r.html,r.json").assert_outcomes(failed=7, passed=1)
    return suite.path / "r.html", suite.read_json("r.json")


WRAPPED_IDS = """Array.from(document.querySelectorAll("td.case-id")).filter(function (td) {
  var range = document.createRange(); range.selectNodeContents(td);
  return range.getClientRects().length > 1;
}).map(function (td) { return td.textContent; })"""

OPEN_CASE = """(function () {
  var drill = document.querySelector(".drill:not([hidden])");
  if (!drill) return null;
  var box = drill.getBoundingClientRect();
  return {case: drill.dataset.case || null, text: drill.textContent.slice(0, 200),
          top: box.top, height: innerHeight,
          card: drill.closest("section.test").dataset.nodeid};
})()"""


@needs_chromium
def test_ids_stay_whole_and_long_queries_are_clipped(page, tmp_path: Path) -> None:
    path, _ = page
    with Browser(tmp_path / "profile", width=1280) as browser:
        browser.open(path.as_uri())
        assert browser.eval(WRAPPED_IDS) == []
        height = browser.eval("document.documentElement.scrollHeight")
        query_rows = browser.eval(
            """Array.from(document.querySelectorAll("table.movers td .clip")).map(function (e) {
              return e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight);
            })"""
        )
        assert browser.layout_problems() == {"page": [], "outside_card": [], "outside_svg": []}
    assert query_rows
    assert max(query_rows) <= 2.05  # two lines at most; the drill-down shows the whole query
    assert height < 12_000, height  # unclipped, eight such tests drew ~19,000 px


@needs_chromium
def test_a_pasted_link_opens_its_case(page, tmp_path: Path) -> None:
    path, document = page
    test = next(t for t in document["tests"] if t["nodeid"].endswith("test_3"))
    index = document["tests"].index(test)
    case = test["cases"][17]["id"]
    large = next(t for t in document["tests"] if t["nodeid"].endswith("test_large"))
    html = path.read_text("utf-8")
    shown = json.loads(
        re.search(
            r'<script id="ragcheck-data" type="application/json">(.*?)</script>', html, re.S
        ).group(1)
    )["tests"][document["tests"].index(large)]["cases"]
    missing = next(c["id"] for c in large["cases"] if c["id"] not in {s["id"] for s in shown})
    with Browser(tmp_path / "profile", width=1280) as browser:
        browser.open(f"{path.as_uri()}#case={index}/{case}")
        opened = browser.eval(OPEN_CASE)
        browser.open(f"{path.as_uri()}#case={document['tests'].index(large)}/{missing}")
        absent = browser.eval(OPEN_CASE)
    assert opened is not None
    assert (opened["case"], opened["card"]) == (case, test["nodeid"])
    assert 0 <= opened["top"] < opened["height"]  # on screen, not somewhere above or below
    assert absent is not None
    assert absent["text"].startswith(f"Case {missing} is not on this page (it holds ")
    assert 0 <= absent["top"] < absent["height"]
