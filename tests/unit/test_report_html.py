"""The HTML report: self-contained, safe with hostile text, and drawn right in Chromium."""

from __future__ import annotations

import json
import re

import pytest
from chromium import Browser, needs_chromium
from report_data import regressed_record, sample_document

from pytest_ragcheck.report.document import build_document, sort_for_attention
from pytest_ragcheck.report.html import render_html

RED, GREEN, BLUE = "rgb(198, 40, 40)", "rgb(46, 125, 50)", "rgb(21, 101, 192)"


def _embedded(page: str) -> str:
    match = re.search(
        r'<script id="ragcheck-data" type="application/json">(.*?)</script>', page, re.S
    )
    assert match is not None
    return match.group(1)


def test_html_is_one_self_contained_file():
    page = render_html(sample_document())
    outside_data = page.replace(_embedded(page), "")
    assert "<link" not in outside_data
    assert not re.search(r"<(script|img|iframe)[^>]*\ssrc=", outside_data)
    assert "@import" not in outside_data
    assert "url(" not in outside_data
    urls = set(re.findall(r"https?://[^\s\"')]+", outside_data))
    assert urls == {"http://www.w3.org/2000/svg"}  # an XML namespace, never fetched


def test_hostile_text_cannot_leave_the_data_block():
    record = regressed_record()
    hit = record["result"]["cases"][0]["hits"][0]
    hit["text"] = "</script><script>alert(1)</script><!-- & \u2028"
    document = build_document([record], run={})
    page = render_html(document)
    data = _embedded(page)
    assert "</" not in data
    assert "<!--" not in data
    assert json.loads(data) == document


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One Chromium for the module (only requested by tests marked ``needs_chromium``)."""
    with Browser(tmp_path_factory.mktemp("chromium") / "profile", width=1280, height=1000) as b:
        yield b


@pytest.fixture(scope="module")
def document():
    return sample_document()


@pytest.fixture(scope="module")
def report_url(tmp_path_factory, document):
    path = tmp_path_factory.mktemp("html") / "report.html"
    path.write_text(render_html(document), encoding="utf-8")
    return path.as_uri()


DRAWN = """
Array.from(document.querySelectorAll("section.test")).map(function (card) {
  function box(e) { var r = e.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; }
  return {
    nodeid: card.dataset.nodeid,
    status: card.dataset.status,
    current: Array.from(card.querySelectorAll("rect.bar-current")).map(function (e) {
      return {metric: e.dataset.metric, value: Number(e.dataset.value), box: box(e),
              fill: getComputedStyle(e).fill};
    }),
    baseline: Array.from(card.querySelectorAll("rect.bar-baseline")).map(function (e) {
      return {metric: e.dataset.metric, value: Number(e.dataset.value), box: box(e)};
    }),
    floors: Array.from(card.querySelectorAll("line.floor-mark")).map(function (e) {
      return {metric: e.dataset.metric, bound: Number(e.dataset.bound), box: box(e)};
    }),
    hist: {
      metric: card.querySelector("svg.hist") && card.querySelector("svg.hist").dataset.metric,
      current: Array.from(card.querySelectorAll("rect.hist-current")).map(function (e) { return Number(e.dataset.count); }),
      baseline: Array.from(card.querySelectorAll("rect.hist-baseline")).map(function (e) { return Number(e.dataset.count); }),
      heights: Array.from(card.querySelectorAll("rect.hist-current")).map(function (e) { return e.getBoundingClientRect().height; })
    },
    movers: Array.from(card.querySelectorAll("tr.mover")).map(function (e) { return e.dataset.case; })
  };
})
"""


@needs_chromium
def test_metric_bars_are_drawn_to_scale(browser, report_url, document):
    browser.open(report_url)
    cards = browser.eval(DRAWN)
    expected = sort_for_attention(document["tests"])
    assert [c["nodeid"] for c in cards] == [t["nodeid"] for t in expected]
    overview = browser.eval(
        'Array.from(document.querySelectorAll("#overview tbody tr")).map(function (tr) {'
        "  return [tr.cells[0].textContent, tr.cells[1].textContent]; })"
    )
    assert overview == [[t["status"].replace("_", " "), t["nodeid"]] for t in expected]
    colours = {"regressed": RED, "below_floor": RED, "pass": GREEN, "improved": BLUE}
    for card, test in zip(cards, expected, strict=True):
        quality = [m for m in test["metrics"] if m["kind"] != "latency"]
        assert [b["metric"] for b in card["current"]] == [m["name"] for m in quality]
        scale = None  # pixels per unit, the same for every bar of a chart
        for bar, metric in zip(card["current"], quality, strict=True):
            assert bar["value"] == pytest.approx(metric["value"])
            assert bar["fill"] == colours[metric["status"]], (test["nodeid"], metric["name"])
            assert bar["box"]["h"] > 5
            if metric["value"] > 0.05:
                scale = scale or bar["box"]["w"] / metric["value"]
                assert bar["box"]["w"] == pytest.approx(metric["value"] * scale, abs=1.0)
        with_baseline = [m for m in quality if m["baseline"] is not None]
        assert [b["metric"] for b in card["baseline"]] == [m["name"] for m in with_baseline]
        for bar, metric in zip(card["baseline"], with_baseline, strict=True):
            assert bar["box"]["w"] == pytest.approx(metric["baseline"] * scale, abs=1.0)
            # The baseline bar sits just above its current bar.
            current = next(b for b in card["current"] if b["metric"] == metric["name"])
            assert 0 < current["box"]["y"] - bar["box"]["y"] < 20
        floors = [m for m in quality if m["bound"] is not None]
        assert [f["metric"] for f in card["floors"]] == [m["name"] for m in floors]
        for mark, metric in zip(card["floors"], floors, strict=True):
            left = card["current"][0]["box"]["x"]
            assert mark["box"]["x"] - left == pytest.approx(metric["bound"] * scale, abs=2.0)


@needs_chromium
def test_bars_are_painted_on_top(browser, report_url):
    browser.open(report_url)
    hit = browser.eval(
        """(function () {
          var bar = document.querySelector("section.test rect.bar-current.status-regressed");
          bar.scrollIntoView({block: "center"});
          var r = bar.getBoundingClientRect();
          var top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
          return {same: top === bar, metric: bar.dataset.metric};
        })()"""
    )
    assert hit == {"same": True, "metric": "mrr@10"}


@needs_chromium
def test_case_distribution_and_most_regressed_cases(browser, report_url, document):
    browser.open(report_url)
    cards = browser.eval(DRAWN)
    faq_card = cards[0]
    faq = sort_for_attention(document["tests"])[0]
    assert faq_card["hist"]["metric"] == "mrr@10"  # the regressed metric is shown first
    assert sum(faq_card["hist"]["current"]) == len(faq["cases"])
    assert sum(faq_card["hist"]["baseline"]) == len(faq["cases"])
    counts, heights = faq_card["hist"]["current"], faq_card["hist"]["heights"]
    tallest = max(counts)
    for count, height in zip(counts, heights, strict=True):
        assert height == pytest.approx(heights[counts.index(tallest)] * count / tallest, abs=1.0)
    worse = sorted(
        (c["values"]["mrr@10"] - c["baseline_values"]["mrr@10"], c["id"])
        for c in faq["cases"]
        if c["values"]["mrr@10"] < c["baseline_values"]["mrr@10"]
    )
    assert faq_card["movers"] == [cid for _, cid in worse]
    # Without per-case baselines the lowest-scoring cases are listed instead.
    manual_card = next(c for c in cards if c["nodeid"].endswith("test_manual"))
    manual = next(t for t in document["tests"] if t["nodeid"].endswith("test_manual"))
    lowest = sorted((c["values"]["recall@5"], c["id"]) for c in manual["cases"])
    assert manual_card["movers"] == [cid for _, cid in lowest]


@needs_chromium
def test_choosing_another_metric_redraws_the_distribution(browser, report_url, document):
    browser.open(report_url)
    drawn = browser.eval(
        """(function () {
          var select = document.querySelector("section.test select.metric-select");
          select.value = "recall@10";
          select.dispatchEvent(new Event("change"));
          var svg = document.querySelector("section.test svg.hist");
          return {metric: svg.dataset.metric,
                  counts: Array.from(svg.querySelectorAll("rect.hist-current")).map(function (e) { return Number(e.dataset.count); })};
        })()"""
    )
    faq = sort_for_attention(document["tests"])[0]
    values = [c["values"]["recall@10"] for c in faq["cases"]]
    assert drawn["metric"] == "recall@10"
    assert drawn["counts"][9] == sum(1 for v in values if v == 1.0)
    assert drawn["counts"][5] == sum(1 for v in values if v == 0.5)


DRILL = """(function () {
  var drill = document.querySelector(".drill:not([hidden])");
  if (!drill) return null;
  return {
    case: drill.dataset.case,
    hash: location.hash,
    visible: drill.getBoundingClientRect().height > 100,
    query: drill.querySelector(".query").textContent,
    hits: Array.from(drill.querySelectorAll("li.hit")).map(function (li) {
      return {rank: Number(li.dataset.rank), id: li.dataset.id, relevant: li.classList.contains("relevant"),
              marked: !!li.querySelector(".rel-mark"),
              verdicts: Array.from(li.querySelectorAll(".verdict")).map(function (v) { return v.textContent; })};
    }),
    problems: Array.from(drill.querySelectorAll(".problem")).map(function (p) { return p.textContent; }),
    values: Array.from(drill.querySelectorAll("table.case-values tbody tr")).map(function (tr) {
      return Array.from(tr.cells).map(function (td) { return td.textContent; });
    })
  };
})()"""


@needs_chromium
def test_clicking_a_regressed_case_opens_its_hits(browser, report_url, document):
    browser.open(report_url)
    assert browser.eval(DRILL) is None
    point = browser.eval(
        """(function () {
          var row = document.querySelector("section.test tr.mover:last-child");
          row.scrollIntoView({block: "center"});
          var r = row.getBoundingClientRect();
          return {x: r.x + 20, y: r.y + r.height / 2, id: row.dataset.case};
        })()"""
    )
    browser.click(point["x"], point["y"])
    drill = browser.eval(DRILL)
    assert drill is not None
    faq = sort_for_attention(document["tests"])[0]
    case = next(c for c in faq["cases"] if c["id"] == point["id"])
    assert drill["case"] == case["id"] == "q03"
    assert drill["hash"] == f"#case={document['tests'].index(faq)}/q03"
    assert drill["visible"]
    assert drill["query"] == case["query"]
    assert [(h["rank"], h["id"]) for h in drill["hits"]] == [
        (h["rank"], h["id"]) for h in case["hits"]
    ]
    assert [h["relevant"] for h in drill["hits"]] == [h["grade"] > 0 for h in case["hits"]]
    assert [h["marked"] for h in drill["hits"]] == [h["grade"] > 0 for h in case["hits"]]
    before, after = case["baseline_values"]["mrr@10"], case["values"]["mrr@10"]
    assert [
        "mrr@10",
        f"{after:.3f}",
        f"{before:.3f}",
        f"−{before - after:.3f}",
    ] in drill["values"]
    reasons = [v["reason"] for v in case["judge"]["llm_relevancy@10"]]
    verdicts = [v["verdict"] for v in case["judge"]["llm_relevancy@10"]]
    for hit, reason, verdict in zip(drill["hits"], reasons, verdicts, strict=True):
        assert hit["verdicts"] == [f"llm_relevancy@10: {verdict} — {reason}"]


@needs_chromium
def test_a_link_to_a_case_opens_it(browser, report_url, document):
    index = next(i for i, t in enumerate(document["tests"]) if t["nodeid"].endswith("flaky_api"))
    browser.open(f"{report_url}#case={index}/q02")
    drill = browser.eval(DRILL)
    assert drill is not None
    assert drill["case"] == "q02"
    assert any("TimeoutError: no answer in 60 s" in p for p in drill["problems"])
    assert drill["hits"] == []
    assert ["mrr@10", "0.000"] in drill["values"]  # no per-case baseline: no baseline column
