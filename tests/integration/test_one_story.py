"""One story per run: the summary, the failure message, the reports and compare() agree.

The scenario of a pull request that adds cases: a baseline recorded on 40 Cranfield queries
(BM25), a golden set grown to 44 and a retriever that ranks half the queries upside down, gated
with ``per_tag=True``, and the same two retrievers side by side with ``ragcheck.compare``.
Every output must carry the same three numbers for a compared metric (the value on the shared
cases, the baseline and their difference), label the all-cases value as such, and the gate and
compare() must answer "is it worse?" with the same test.
"""

from __future__ import annotations

import json
import math
import re
import textwrap
from typing import Any

import pytest
from chromium import Browser, needs_chromium
from harness import Suite, cranfield_slice, ragcheck_module

from pytest_ragcheck.common.display import format_value, signed

RECORDED, GROWN = 40, 44
TEST = ragcheck_module(
    '"golden.jsonl", k=10, metrics=["mrr@10", "ndcg@10"], per_tag=True', function="test_cf"
) + textwrap.dedent(
    """

    @ragcheck("recorded.jsonl", k=10, metrics=["mrr@10", "ndcg@10"])
    def test_choose(ragcheck, retriever, recorded):
        ragcheck.compare({"recorded": recorded, "now": retriever})
    """
)
#: A fixture with the retriever the baseline was recorded with.
RECORDED_FIXTURE = """
RECORDED = json.loads({data!r})


@pytest.fixture
def recorded():
    return lambda query: list(RECORDED.get(query, []))
"""


def _tagged(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**case, "tags": ["odd" if n % 2 else "even"]} for n, case in enumerate(cases)]


def _worse(rankings: dict[str, list[Any]], cases: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Half the queries (as many of either tag) with their ten hits in reverse order."""
    out = dict(rankings)
    for n, case in enumerate(cases):
        if n % 4 in (0, 3):
            out[case["query"]] = rankings[case["query"]][::-1]
    return out


@pytest.fixture
def grown(suite: Suite, monkeypatch: pytest.MonkeyPatch) -> tuple[pytest.RunResult, str]:
    """Baseline on RECORDED cases, then a run of the worse retriever on GROWN cases."""
    cases, rankings = cranfield_slice(GROWN)
    cases = _tagged(cases)
    suite.golden(cases[:RECORDED], name="recorded.jsonl")
    extra = RECORDED_FIXTURE.format(data=json.dumps(rankings))
    suite.make(TEST, cases=cases[:RECORDED], rankings=rankings, extra=extra)
    suite.update_baselines().assert_outcomes(passed=2)
    suite.golden(cases)
    suite.retriever(_worse(rankings, cases), extra=extra)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(suite.path / "step.md"))
    result = suite.run(
        "--ragcheck-report=out/r.json,out/r.md,out/r.html",
        "--junitxml=out/junit.xml",
        "-p",
        "no:randomly",
    )
    return result, suite.text(result)


def _means(entry: dict[str, Any], metric: str) -> tuple[float, float, float]:
    """This run's mean on the shared cases, the baseline's, and the all-cases mean, computed
    here from the report's per-case values (rounded as stored)."""
    shared = [c for c in entry["cases"] if c.get("baseline_values")]
    now = math.fsum(c["values"][metric] for c in shared) / len(shared)
    before = math.fsum(c["baseline_values"][metric] for c in shared) / len(shared)
    every = math.fsum(c["values"][metric] for c in entry["cases"]) / len(entry["cases"])
    return round(now, 4), round(before, 4), every


def test_every_output_carries_the_same_three_numbers(suite: Suite, grown) -> None:
    result, text = grown
    result.assert_outcomes(failed=1, passed=1)
    entry = suite.read_json("out/r.json")["tests"][0]
    assert len([c for c in entry["cases"] if c.get("baseline_values")]) == RECORDED
    metric = {m["name"]: m for m in entry["metrics"]}["mrr@10"]
    now, before, every = _means(entry, "mrr@10")
    assert metric["status"] == "regressed"
    assert (metric["current"], metric["baseline"]) == (now, before)
    assert metric["delta"] == pytest.approx(now - before, abs=1e-6)
    assert metric["value"] == pytest.approx(every)
    assert (metric["compared_cases"], metric["all_cases"]) == (RECORDED, GROWN)
    assert now != round(every, 4)  # the scenario is one where the two differ
    cur, base, delta, all_ = (
        format_value(now),
        format_value(before),
        signed(now - before),
        format_value(every),
    )

    # The failure message: the headline leads with the overall metric (not a tag that moved
    # more), and the all-cases value is labelled.
    assert f"mrr@10 regressed {base} → {cur} on {RECORDED} shared (Δ {delta}) (+" in text
    assert re.search(
        rf"  mrr@10: {base} → {cur} on {RECORDED} shared \(Δ {delta}, allowed 0\.020, "
        rf"p=[^)]*\) · {all_} on all {GROWN}\n",
        text,
    ), text
    # The terminal summary: one column per value, headed by what it is over.
    header = re.search(
        r"^  metric +on 40 shared +baseline +Δ +allowed +on all 44 +status$", text, re.M
    )
    assert header, text
    assert re.search(rf"^  mrr@10 +{cur} +{base} +{delta} +0\.020 +{all_} +regressed", text, re.M)
    # Markdown report and step summary: the same columns.
    row = f"| mrr@10 | {cur} | {base} | {delta} | 0.020 | {all_} | **regressed**"
    for name in ("out/r.md", "step.md"):
        page = (suite.path / name).read_text("utf-8")
        assert "| metric | on 40 shared | baseline | Δ | allowed | on all 44 |" in page, name
        assert row in page, name
        assert f"mrr@10** {base} → **{cur}** ({delta}" in page, name  # the overview cell
    # JUnit: the value over every case, and the compared one with its count.
    props = suite.junit_properties("out/junit.xml")["test_cf"]
    assert float(props["ragcheck.mrr@10"]) == pytest.approx(every, abs=1e-6)
    assert float(props["ragcheck.mrr@10.current"]) == now
    assert float(props["ragcheck.mrr@10.baseline"]) == before
    assert float(props["ragcheck.mrr@10.delta"]) == pytest.approx(now - before, abs=1e-6)
    assert props["ragcheck.mrr@10.shared_cases"] == str(RECORDED)


def test_quiet_line_names_the_shared_cases(suite: Suite, grown) -> None:
    result = suite.run("-q", "-p", "no:randomly")
    line = next(x for x in suite.text(result).splitlines() if x.startswith("REGRESSED"))
    assert "compared on 40 shared of 44 cases" in line, line


METRIC_ROWS = """Array.from(document.querySelectorAll("table.metrics")[0].rows).map(function (r) {
  return Array.from(r.cells).map(function (c) { return c.textContent.trim(); });
})"""


@needs_chromium
def test_the_html_report_shows_the_same_numbers(suite: Suite, grown, tmp_path) -> None:
    entry = suite.read_json("out/r.json")["tests"][0]
    now, before, every = _means(entry, "mrr@10")
    with Browser(tmp_path / "profile") as browser:
        browser.open((suite.path / "out/r.html").as_uri())
        rows = browser.eval(METRIC_ROWS)
        bar = browser.eval(
            "Number(document.querySelector(\"rect.bar-current[data-metric='mrr@10']\").dataset.value)"
        )
    assert rows[0][:6] == ["metric", "on 40 shared", "baseline", "Δ", "allowed", "on all 44"]
    mrr = next(r for r in rows if r[0] == "mrr@10")
    assert mrr[1:6] == [
        format_value(now),
        format_value(before),
        signed(now - before),
        "0.020",
        format_value(every),
    ]
    assert bar == now  # the chart's bar is the compared value, beside the baseline's


def test_the_gate_and_compare_ask_the_same_question(suite: Suite, grown) -> None:
    """On the 40 recorded cases, compare() of the recorded and the current retriever gives
    the p-value the gate gave the same pair, one-sided, and the same decision."""
    report = suite.read_json("out/r.json")
    gate = {m["name"]: m for m in report["tests"][0]["metrics"]}
    (data,) = report["comparisons"]
    assert data["test"].startswith("one-sided paired sign-flip test")
    for metric in data["metrics"]:
        now = next(r for r in metric["rows"] if r["system"] == "now")
        checked = gate[metric["name"]]
        assert now["p_value"] == pytest.approx(checked["p_value"], rel=0.05), metric["name"]
        assert now["delta"] == pytest.approx(checked["delta"], abs=1e-3)
        assert (now["marker"] == "loss") == (checked["status"] == "regressed")
        assert checked["status"] == "regressed"  # both say: worse
