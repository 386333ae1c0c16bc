"""The HTML report: self-contained, safe with hostile text, and drawn right in Chromium."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest
from chromium import SCREEN_WIDTHS, Browser, needs_chromium
from report_data import regressed_record, sample_document, sample_records

from pytest_ragcheck.common.display import format_value
from pytest_ragcheck.report import labels
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


# ---- layout at common screen widths, baseline details, the status vocabulary -------------

LONG_NOTE = (
    "not significant: p=0.31 > significance 0.05 (with 3 changed case(s) no change can reach "
    "p ≤ 0.05; the drop is judged by tolerance alone)"
)


def detailed_record() -> dict:
    """A regressed test carrying everything a comparison can report, with long names and notes:
    cases added/removed/edited since the baseline, how each regressed case's relevant
    documents moved, the baseline's ranking, per-tag means, an improvement on a failing test."""
    record = regressed_record()
    record["nodeid"] = (
        "tests/retrieval/test_product_search.py::test_hybrid_retriever_with_reranker"
        "[bge-large-en-v1.5-cross-encoder-ms-marco-MiniLM-L-12-v2]"
    )
    record["baseline"]["case_diff"] = {
        "added": 7,
        "removed": 1,
        "edited": 2,
        "added_ids": ["q90", "q91", "q92", "q93", "q94", "q95", "q96"],
        "removed_ids": ["q40"],
        "edited_ids": ["q05", "q07"],
    }
    changes = record["verdict"]["case_changes"]
    changes[0]["explain"] = [
        "doc-012 rank 1 → 14",
        "doc-040 rank 3 → gone",
        "came in: doc-099 at 1",
    ]
    changes[0]["baseline_hits"] = ["doc-012", "doc-031", "doc-040", "doc-007"]
    changes[1]["explain"] = ["doc-021 rank 2 → 5"]  # no baseline ranking for this one
    record["per_tag"] = {
        "faq": {"mrr@10": 0.61, "recall@10": 0.72},
        "billing": {"mrr@10": 0.48, "recall@10": None},
    }
    checks = {c["name"]: c for c in record["verdict"]["checks"]}
    checks["ndcg@10"].update(status="pass", p_value=0.31, note=LONG_NOTE)
    checks["recall@10"].update(status="improved", note="improved beyond tolerance")
    record["verdict"]["notes"] = [
        "improved beyond tolerance: recall@10 0.700 → 0.800; run `pytest --snapshot-update` "
        "to record them as the new baseline"
    ]
    long_names = {
        "rerank_relevancy_max@10": (0.412, 0.455, "min"),
        "context_precision@10": (0.700, 0.690, None),
        "hit_rate_granular@10": (0.530, 0.610, None),
    }
    for name, (value, base, bound) in long_names.items():
        record["result"]["metrics"][name] = value
        record["result"]["kinds"][name] = (
            "judge" if "context" in name or "rerank" in name else "rank"
        )
        record["verdict"]["checks"].append(
            {
                "name": name,
                "value": value,
                "higher_is_better": True,
                "bound": 0.45 if bound else None,
                "bound_kind": bound,
                "baseline": base,
                "delta": value - base,
                "allowed": 0.02,
                "p_value": 0.0123,
                "ci": [-0.09, -0.01],
                "status": "below_floor"
                if bound
                else "regressed"
                if base - value > 0.02
                else "pass",
                "note": LONG_NOTE if name.startswith("context") else "",
            }
        )
    return record


@pytest.fixture(scope="module")
def detailed_document():
    records = [*sample_records(), detailed_record()]
    return build_document(records, run=sample_document()["run"])


@pytest.fixture(scope="module")
def detailed_url(tmp_path_factory, detailed_document):
    path = tmp_path_factory.mktemp("html") / "detailed.html"
    path.write_text(render_html(detailed_document), encoding="utf-8")
    return path.as_uri()


def _index(document, suffix):
    return next(i for i, t in enumerate(document["tests"]) if suffix in t["nodeid"])


STATUS_CELLS = """Array.from(document.querySelectorAll("table.metrics td.status")).map(function (td) {
  var badge = td.querySelector(".badge"), ref = badge.querySelector(".ref");
  var text = badge.textContent.slice(0, badge.textContent.length - (ref ? ref.textContent.length : 0));
  return {status: td.parentElement.dataset.status, word: text, badges: td.querySelectorAll(".badge").length,
          lines: badge.getClientRects().length, height: td.getBoundingClientRect().height,
          name: td.parentElement.cells[0].getBoundingClientRect().height, title: badge.title};
})"""


@needs_chromium
@pytest.mark.parametrize("width", SCREEN_WIDTHS)
def test_layout_holds_at_common_screen_widths(browser, detailed_url, detailed_document, width):
    """Nothing drawn past its card, no label cut at its chart's edge, no page-wide scrolling,
    status cells one short word on one line, at every common screen width."""
    browser.set_width(width, 900)
    try:
        index = _index(detailed_document, "test_hybrid_retriever")
        first = detailed_document["tests"][index]["case_changes"][0]["id"]
        browser.open(f"{detailed_url}#case={index}/{first}")  # the drill-down with both rankings
        opened = browser.eval(
            "(function () { var d = document.querySelectorAll('details');"
            " d.forEach(function (x) { x.open = true; }); return d.length; })()"
        )
        assert opened == len(detailed_document["tests"])  # every case table is measured too
        assert browser.eval("!!document.querySelector('.drill:not([hidden]) .rankings')")
        assert browser.layout_problems() == {"page": [], "outside_card": [], "outside_svg": []}
        cells = browser.eval(STATUS_CELLS)
        assert len(cells) == sum(len(t["metrics"]) for t in detailed_document["tests"])
        for cell in cells:
            assert cell["badges"] == 1
            assert cell["word"] == labels.word(cell["status"])
            assert cell["lines"] == 1
            assert cell["height"] <= cell["name"] + 1  # as tall as the metric name's cell
        # Details are on hover and listed below the table, never inside the cell.
        noted = [c for c in cells if c["title"]]
        assert any(LONG_NOTE in c["title"] for c in noted)
        notes = browser.eval(
            "Array.from(document.querySelectorAll('ol.metric-notes li')).map(function (li) {"
            " return li.textContent; })"
        )
        assert any(LONG_NOTE in n for n in notes)
        # Chart labels end before the bars start (long metric names included).
        overlaps = browser.eval(
            """Array.from(document.querySelectorAll("svg.metric-chart g.metric-row")).filter(function (g) {
              var label = g.querySelector("text.label").getBoundingClientRect();
              var bar = g.querySelector("rect.bar-current").getBoundingClientRect();
              return label.right > bar.left;
            }).map(function (g) { return g.dataset.metric; })"""
        )
        assert overlaps == []
    finally:
        browser.set_width(1280, 1000)


@needs_chromium
def test_wide_screens_show_chart_and_table_side_by_side(browser, report_url):
    def placement(width):
        browser.set_width(width, 900)
        browser.open(report_url)
        return browser.eval(
            """(function () {
              var chart = document.querySelector(".chart-box").getBoundingClientRect();
              var table = document.querySelector("table.metrics").getBoundingClientRect();
              return {beside: table.left >= chart.right, below: table.top >= chart.bottom};
            })()"""
        )

    try:
        assert placement(1920) == {"beside": True, "below": False}
        assert placement(1280) == {"beside": True, "below": False}
    finally:
        browser.set_width(1280, 1000)


BASELINE_DETAILS = """(function () {
  var card = document.querySelector('section.test[data-nodeid*="test_hybrid_retriever"]');
  function texts(sel) { return Array.from(card.querySelectorAll(sel)).map(function (e) { return e.textContent; }); }
  var drill = card.querySelector(".drill:not([hidden])");
  return {
    diff: texts(".case-diff"),
    notes: texts(".note"),
    explain: Array.from(card.querySelectorAll("tr.mover")).map(function (tr) {
      var e = tr.querySelector(".explain"); return [tr.dataset.case, e ? e.textContent : null]; }),
    tags: Array.from(card.querySelectorAll("table.per-tag-table tbody tr")).map(function (tr) {
      return Array.from(tr.cells).map(function (td) { return td.textContent; }); }),
    tagHead: texts("table.per-tag-table th"),
    moved: drill ? texts(".drill .explain-list li") : null,
    now: drill ? Array.from(drill.querySelectorAll(".ranking-now li.hit")).map(function (li) { return li.dataset.id; }) : null,
    before: drill ? Array.from(drill.querySelectorAll("li.baseline-hit")).map(function (li) {
      return [li.dataset.id, li.querySelector(".moved").textContent]; }) : null,
    hint: Array.from(document.querySelectorAll(".hint")).map(function (e) { return e.textContent; })
  };
})()"""


@needs_chromium
def test_baseline_details_are_shown_when_present(browser, detailed_url, detailed_document):
    index = _index(detailed_document, "test_hybrid_retriever")
    test = detailed_document["tests"][index]
    first = test["case_changes"][0]["id"]
    browser.open(f"{detailed_url}#case={index}/{first}")
    shown = browser.eval(BASELINE_DETAILS)
    assert shown["diff"] == [
        "Golden set changed since the baseline: 7 added (q90, q91, q92, q93, q94, …) · "
        "1 removed (q40) · 2 edited (q05, q07). The comparison uses the cases both share."
    ]
    # A failing test gets no "re-record the baseline" advice for its improved metric...
    assert not any("improved beyond tolerance" in n for n in shown["notes"])
    # ...and the page's hint, after every test card, re-records only the improved tests
    # that passed.
    assert shown["hint"] == [
        'Improved beyond tolerance; to record it: pytest "tests/test_search.py::test_support" '
        "--snapshot-update"
    ]
    explained = dict(shown["explain"])
    assert explained[first] == "doc-012 rank 1 → 14 · doc-040 rank 3 → gone · came in: doc-099 at 1"
    assert explained[test["case_changes"][1]["id"]] == "doc-021 rank 2 → 5"
    assert shown["tagHead"] == ["tag", "mrr@10", "recall@10"]
    assert shown["tags"] == [["billing", "0.480", "–"], ["faq", "0.610", "0.720"]]
    # The drill-down shows the baseline's ranking beside the current one.
    case = next(c for c in test["cases"] if c["id"] == first)
    assert shown["moved"] == test["case_changes"][0]["explain"]
    assert shown["now"] == [h["id"] for h in case["hits"]]
    current = {h["id"]: h["rank"] for h in case["hits"]}
    expected = []
    for rank, doc in enumerate(test["case_changes"][0]["baseline_hits"], start=1):
        where = current.get(doc)
        expected.append(
            [doc, "gone" if where is None else "same rank" if where == rank else f"now #{where}"]
        )
    assert shown["before"] == expected


@needs_chromium
def test_absent_baseline_details_draw_nothing(browser, report_url, document):
    assert all(t["per_tag"] is None for t in document["tests"])
    browser.open(report_url + "#case=0/q03")
    found = browser.eval(
        "['.case-diff', '.per-tag', '.rankings', '.explain', '.explain-list', '.baseline-hit']"
        ".filter(function (s) { return document.querySelector(s); })"
    )
    assert found == []


def test_the_page_reads_the_one_status_vocabulary():
    page = render_html(sample_document())
    match = re.search(
        r'<script id="ragcheck-labels" type="application/json">(.*?)</script>', page, re.S
    )
    assert match is not None
    assert json.loads(match.group(1)) == labels.page_labels()
    script = resources.files("pytest_ragcheck.report").joinpath("report.js").read_text("utf-8")
    for status in (*labels.TEST_STATUSES, *labels.METRIC_STATUSES):
        if "_" in status:  # a status's words are nowhere in the script but in the labels
            assert labels.word(status) not in script


@needs_chromium
def test_numbers_read_as_in_the_terminal(browser, tmp_path):
    """A stored 0.5285 reads 0.529 in the page as in the terminal summary (half-up from the
    baseline's 4 decimals), not 0.528 (binary rounding of 0.5285)."""
    tricky = [0.5285, 0.3685, 0.36852, 0.99995, 0.0004999, 0.1234, 123.456, 1.0]
    document = sample_document()
    test = next(t for t in document["tests"] if t["nodeid"].endswith("test_smoke"))
    metric = next(m for m in test["metrics"] if m["name"] == "mrr@10")
    rows = [
        dict(metric, name=f"mrr@{i + 1}", value=v, current=v, baseline=v)
        for i, v in enumerate(tricky)
    ]
    test["metrics"] = rows
    path = tmp_path / "numbers.html"
    path.write_text(render_html(document), encoding="utf-8")
    browser.open(path.as_uri())
    shown = browser.eval(
        """Array.from(document.querySelectorAll('section.test[data-nodeid$="test_smoke"] table.metrics tbody tr'))
          .map(function (tr) { return [tr.cells[1].textContent, tr.cells[2].textContent]; })"""
    )
    assert shown == [[format_value(v), format_value(v)] for v in tricky]
