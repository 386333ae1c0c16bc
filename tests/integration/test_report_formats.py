"""``--ragcheck-report``: JSON (validated with the published model), Markdown, HTML; bad input."""

from __future__ import annotations

import json
import re

from harness import REGRESSED_FLOOR_PLAIN, ragcheck_module

from pytest_ragcheck.report.schema import Report

PASSING = ragcheck_module('"golden.jsonl", baseline=False, metrics=["mrr"]')


def test_json_markdown_and_html_reports(suite, run_mode):
    suite.make(REGRESSED_FLOOR_PLAIN)
    suite.rebaseline(suite.PERFECT, suite.WORSE)
    option = "--ragcheck-report=out/report.json,out/report.md,out/report.html"
    result = suite.run(*run_mode, option)
    result.assert_outcomes(passed=1, failed=2)
    text = suite.text(result)
    for name in ("report.json", "report.md", "report.html"):
        assert f"ragcheck report: {suite.path / 'out' / name}" in text

    report = Report.model_validate_json((suite.path / "out/report.json").read_text())
    assert report.schema_version == 4
    assert report.run.generator.startswith("pytest-ragcheck ")
    assert [(t.nodeid, t.status, t.outcome) for t in report.tests] == [
        ("test_rag.py::test_floor", "below_floor", "failed"),
        ("test_rag.py::test_plain", "passed", "passed"),
        ("test_rag.py::test_regressed", "regressed", "failed"),
    ]
    assert (report.summary.tests, report.summary.regressed, report.summary.passed) == (3, 1, 1)
    regressed = report.tests[2]
    assert regressed.config.metrics == ["mrr@10", "recall@1"]
    assert regressed.config.tolerance == 0.02
    assert regressed.baseline is not None
    assert regressed.baseline["status"] == "compared"
    mrr = next(m for m in regressed.metrics if m.name == "mrr@10")
    assert (mrr.status, mrr.baseline, mrr.allowed) == ("regressed", 1.0, 0.02)
    assert mrr.value is not None
    assert abs(mrr.value - 17 / 24) < 1e-9
    assert mrr.delta is not None
    assert abs(mrr.delta - (17 / 24 - 1)) < 1e-4
    assert regressed.aggregates["mrr@10"] == mrr.value
    q4 = next(c for c in regressed.cases if c.id == "q4")
    assert q4.values["mrr@10"] == 1 / 3
    assert [(h.rank, h.id, h.relevant) for h in q4.hits] == [
        (1, "x", False),
        (2, "y", False),
        (3, "e", True),
    ]
    assert q4.latency_ms is not None
    assert q4.latency_ms >= 0
    assert [c.id for c in regressed.case_changes][:2] == ["q1", "q4"]
    floor = report.tests[0]
    assert floor.config.thresholds["recall@1"].bound == 0.9
    assert floor.baseline is None or floor.baseline["status"] == "disabled"

    markdown = (suite.path / "out/report.md").read_text()
    rows = [
        line for line in markdown.splitlines() if line.startswith("| ❌") or line.startswith("| ✅")
    ]
    assert [row.split("|")[2].strip() for row in rows] == [
        "`test_rag.py::test_regressed`",
        "`test_rag.py::test_floor`",
        "`test_rag.py::test_plain`",
    ]
    assert "**mrr@10** 1.000 → **0.708** (−0.292, allowed 0.020" in rows[0]

    page = (suite.path / "out/report.html").read_text()
    data = re.search(
        r'<script id="ragcheck-data" type="application/json">(.*?)</script>', page, re.S
    )
    assert data is not None
    embedded = json.loads(data.group(1))
    assert embedded["tests"] == suite.read_json("out/report.json")["tests"]


def test_unknown_extension_is_a_usage_error_before_any_test_runs(suite):
    suite.make(PASSING + "\n\ndef test_marker(tmp_path_factory):\n    open('ran', 'w').close()\n")
    result = suite.run("--ragcheck-report=report.txt")
    assert result.ret == 4  # pytest's usage error
    assert (
        "--ragcheck-report=report.txt: unknown report format ('.txt'); use a path ending in "
        ".json, .md or .html"
    ) in suite.text(result)
    assert not (suite.path / "ran").exists()
    suite.assert_clean(result)


def test_unwritable_report_path_changes_no_outcome(suite):
    suite.make(PASSING)
    (suite.path / "blocker").write_text("a file where a folder must be")
    result = suite.run("--ragcheck-report=blocker/report.json")
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    target = suite.path / "blocker" / "report.json"
    assert f"ragcheck: could not write the report {target}: " in suite.text(result)
    assert "ragcheck summary" in suite.text(result)
    suite.assert_clean(result)


def test_ini_report_path_is_relative_to_the_rootdir(suite, monkeypatch):
    suite.make(PASSING)
    suite.ini(ragcheck_report="reports/ragcheck.md")
    sub = suite.path / "sub"
    sub.mkdir()
    monkeypatch.chdir(sub)
    result = suite.run(str(suite.path))
    result.assert_outcomes(passed=1)
    report = suite.path / "reports" / "ragcheck.md"
    assert report.read_text().startswith("# ragcheck report\n\n1 test: 1 passed")
    assert not (sub / "reports").exists()


def test_report_is_written_without_ragcheck_tests(suite):
    suite.test("def test_nothing():\n    pass\n")
    result = suite.run("--ragcheck-report=r.json")
    result.assert_outcomes(passed=1)
    report = Report.model_validate_json((suite.path / "r.json").read_text())
    assert report.tests == []
    assert report.summary.tests == 0
