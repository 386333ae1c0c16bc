"""Quiet by default, everything on request: ``per_tag=True`` says what moved, not every slice.

Forty Cranfield queries in four tags of ten; a retriever change that ranks one tag's queries
upside down. The summary lists that tag's rows and says the other three held; ``-v`` and the
JSON report keep every row; the failure headline leads with the overall metric; the ``-q``
line stays short; the HTML case drill-down has no empty per-tag rows.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from chromium import Browser, needs_chromium
from harness import Suite, cranfield_slice, ragcheck_module

TAGS = ("alpha", "beta", "gamma", "delta")
TEST = ragcheck_module(
    '"golden.jsonl", k=10, metrics=["mrr@10", "ndcg@10"], per_tag=True', function="test_cf"
)


@pytest.fixture
def one_tag_moved(suite: Suite) -> list[dict[str, Any]]:
    cases, rankings = cranfield_slice(40)
    cases = [{**case, "tags": [TAGS[n // 10]]} for n, case in enumerate(cases)]
    suite.make(TEST, cases=cases, rankings=rankings)
    suite.update_baselines().assert_outcomes(passed=1)
    worse = dict(rankings)
    for case in cases[:10]:  # tag "alpha"
        worse[case["query"]] = rankings[case["query"]][::-1]
    suite.retriever(worse)
    return cases


def test_only_the_slice_that_moved_is_listed(suite: Suite, one_tag_moved) -> None:
    result = suite.run("--ragcheck-report=r.json,r.md", "-p", "no:randomly")
    result.assert_outcomes(failed=1)
    text = suite.text(result)
    summary = text.split("ragcheck summary")[1]
    rows = re.findall(r"^  (\S+ \[tag \w+\]) ", summary, re.M)
    assert rows, summary
    assert all("[tag alpha]" in row for row in rows), rows
    assert "  per tag: 3 tags held on every metric (-v lists every row)" in summary
    # The headline leads with the overall metric, not with the slice that moved most.
    first = next(line for line in text.splitlines() if "(ragcheck failed for" in line)
    assert first.startswith(("mrr@10 regressed", "ndcg@10 regressed")), first
    # The JSON report keeps every row; so does -v.
    names = [m["name"] for m in suite.read_json("r.json")["tests"][0]["metrics"]]
    assert sum("[tag " in n for n in names) == len(TAGS) * 2
    verbose = suite.text(suite.run("-v", "-p", "no:randomly")).split("ragcheck summary")[1]
    assert len(re.findall(r"^  \S+ \[tag \w+\] ", verbose, re.M)) == len(TAGS) * 2
    assert "tags held" not in verbose
    markdown = (suite.path / "r.md").read_text("utf-8")
    assert "per tag: 3 tags held on every metric (the JSON report has every row)" in markdown
    assert "[tag beta]" not in markdown


def test_the_quiet_line_names_only_what_failed(suite: Suite, one_tag_moved) -> None:
    result = suite.run("-q", "-p", "no:randomly")
    line = next(x for x in suite.text(result).splitlines() if x.startswith("REGRESSED"))
    assert "[tag beta]" not in line
    assert len(line) < 300, line


def test_a_passing_run_holds_every_tag_in_one_line(suite: Suite, one_tag_moved) -> None:
    suite.update_baselines()  # the moved retriever is now the baseline
    result = suite.run("-p", "no:randomly")
    result.assert_outcomes(passed=1)
    summary = suite.text(result).split("ragcheck summary")[1]
    assert "[tag " not in summary
    assert "  per tag: 4 tags held on every metric (-v lists every row)" in summary
    quiet = suite.text(suite.run("-q", "-p", "no:randomly"))
    assert "[tag " not in quiet


CASE_ROWS = """(function () {
  var drill = document.querySelector(".drill:not([hidden])");
  return {
    rows: Array.from(drill.querySelectorAll("table.case-values tbody tr")).map(function (r) { return r.dataset.metric; }),
    held: Array.from(document.querySelectorAll("table.metrics tr.held")).filter(function (r) { return !r.hidden; }).length,
    line: document.querySelector("tr.held-line") ? document.querySelector("tr.held-line").textContent : null,
    columns: Array.from(document.querySelectorAll("details.all-cases thead th")).map(function (t) { return t.textContent; })
  };
})()"""


@needs_chromium
def test_the_html_drill_down_has_no_empty_tag_rows(suite: Suite, one_tag_moved, tmp_path) -> None:
    suite.update_baselines()
    suite.run("--ragcheck-report=r.html", "-p", "no:randomly").assert_outcomes(passed=1)
    first = one_tag_moved[0]["id"]
    with Browser(tmp_path / "profile") as browser:
        browser.open((suite.path / "r.html").as_uri() + f"#case=0/{first}")
        shown = browser.eval(CASE_ROWS)
    assert shown["rows"] == ["mrr@10", "ndcg@10", "judged@10"]
    assert shown["held"] == 0
    assert shown["line"] == "per tag: 4 tags held on every metric (show)"
    assert not any("[tag" in c for c in shown["columns"])
