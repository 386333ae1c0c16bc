"""``--ragcheck-history`` and ``ragcheck.compare(...)`` through real pytest sessions.

History lines come from the controller (also under ``-n 2``); the HTML report draws the trend
in headless Chromium; a damaged history file is reported and left byte for byte as it was.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chromium import Browser, needs_chromium
from harness import Suite

from pytest_ragcheck.explore.history import FORMAT
from pytest_ragcheck.report.schema import Report

SOURCE = """
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=5)
def test_gated(ragcheck, retriever):
    ragcheck(retriever)


@ragcheck("golden.jsonl", k=5, metrics=["mrr", "recall@1"], baseline=False)
def test_two_calls(ragcheck, retriever):
    ragcheck(retriever)
    ragcheck(retriever, k=1)
"""

COMPARE_SOURCE = """
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=5, metrics=["mrr", "ndcg"])
def test_choose(ragcheck, retriever):
    cmp = ragcheck.compare({"old": lambda q: ["x", "y", *retriever(q)], "new": retriever})
    assert cmp.results["new"]["mrr"] == 1.0
    assert not cmp.better("new", "old", "mrr")  # 4 cases: too few for p <= 0.05
"""

LINE_KEYS = {
    "format",
    "timestamp",
    "commit",
    "branch",
    "test",
    "call",
    "source",
    "golden_hash",
    "k",
    "n_cases",
    "status",
    "metrics",
    "judge_model",
}


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_history_lines_from_every_run_are_complete_and_parseable(
    suite: Suite, run_mode: list[str]
) -> None:
    suite.make(SOURCE)
    suite.update_baselines()
    history = suite.path / "runs" / "history.jsonl"
    for _ in range(2):
        result = suite.run(*run_mode, "--ragcheck-history=runs/history.jsonl")
        result.assert_outcomes(passed=2)
        assert "ragcheck history: 3 line(s) appended to" in Suite.text(result)
    lines = _lines(history)
    assert len(lines) == 6
    assert all(set(line) == LINE_KEYS for line in lines)
    tests = sorted((str(line["test"]), line["call"]) for line in lines[:3])
    assert tests == [
        ("test_rag.py::test_gated", 0),
        ("test_rag.py::test_two_calls", 0),
        ("test_rag.py::test_two_calls", 1),
    ]
    gated = next(line for line in lines if line["test"] == "test_rag.py::test_gated")
    assert gated["format"] == FORMAT
    assert gated["k"] == 5
    assert gated["n_cases"] == 4
    assert gated["status"] == "passed"
    assert gated["metrics"]["mrr@5"] == 1.0  # type: ignore[index]
    assert gated["judge_model"] is None
    assert len(str(gated["golden_hash"])) == 64
    # pytester folders are no git checkout: unknown, not made up
    assert (gated["commit"], gated["branch"]) == (None, None)
    one_call = [line for line in lines if line["call"] == 1]
    assert [line["k"] for line in one_call] == [1, 1]


def test_history_records_the_git_commit_and_branch(suite: Suite) -> None:
    suite.make(SOURCE)
    git = suite.pytester
    for args in (
        ["init", "-q", "-b", "trunk"],
        [
            "-c",
            "user.email=t@example.invalid",
            "-c",
            "user.name=t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "start",
        ],
    ):
        assert git.run("git", *args).ret == 0
    commit = git.run("git", "rev-parse", "HEAD").stdout.str().strip()
    suite.run("--ragcheck-history=h.jsonl", "-k", "two_calls").assert_outcomes(passed=1)
    (line, _) = _lines(suite.path / "h.jsonl")
    assert (line["commit"], line["branch"]) == (commit, "trunk")


@needs_chromium
def test_the_html_report_draws_each_metric_trend_with_the_baseline(
    suite: Suite, tmp_path: Path
) -> None:
    suite.make(SOURCE)
    suite.update_baselines()
    for rankings in (suite.PERFECT, suite.WORSE, suite.PERFECT):
        suite.retriever(rankings)
        suite.run("--ragcheck-history=h.jsonl", "--ragcheck-report=r.html,r.json")
    report = suite.read_json("r.json")
    Report.model_validate(report)
    trend = report["history"]
    gated = next(t for t in trend["tests"] if t["nodeid"] == "test_rag.py::test_gated")
    assert [r["metrics"]["mrr@5"] for r in gated["runs"]] == [
        1.0,
        pytest.approx(0.7083, abs=1e-4),
        1.0,
    ]
    assert gated["baseline"]["mrr@5"] == 1.0

    with Browser(tmp_path / "profile", width=1280, height=900) as browser:
        browser.open((suite.path / "r.html").as_uri())
        drawn = browser.eval(
            """(function () {
              var card = document.querySelector('.trend[data-nodeid="test_rag.py::test_gated"]');
              var svg = card.querySelector('svg.sparkline[data-metric="mrr@5"]');
              var dots = svg.querySelectorAll('circle.trend-dot');
              var line = svg.querySelector('line.trend-baseline');
              var box = svg.getBoundingClientRect();
              return {
                charts: document.querySelectorAll('section.history svg.sparkline').length,
                dots: Array.prototype.map.call(dots, function (d) { return Number(d.getAttribute('cy')); }),
                baselineY: Number(line.getAttribute('y1')),
                width: box.width, height: box.height,
                tests: document.querySelectorAll('section.history .trend').length
              };
            })()"""
        )
        problems = browser.layout_problems()
    assert drawn["tests"] == 3  # test_gated and both calls of test_two_calls
    assert drawn["charts"] >= 3 * 2
    first, dip, last = drawn["dots"]
    assert dip > first == last  # lower value, lower on screen (larger y)
    assert drawn["baselineY"] == first  # the baseline (1.0) sits where the 1.0 runs are
    assert drawn["width"] > 100
    assert drawn["height"] > 20
    assert problems == {k: [] for k in problems}


def test_a_damaged_history_file_is_reported_and_left_as_it_is(suite: Suite) -> None:
    suite.make(SOURCE)
    suite.update_baselines()
    damaged = b'{"test": "t", "metrics": {}}\n{"test": "t", "metr\n{"test": "t", "metrics": {}}\n'
    path = suite.write("h.jsonl", "")
    path.write_bytes(damaged)
    result = suite.run("--ragcheck-history=h.jsonl", "--ragcheck-report=r.html")
    result.assert_outcomes(passed=2)
    text = Suite.text(result)
    assert f"history file {path}, line 2 is not JSON" in text
    assert "the file was left as it is and this run was not added" in text
    assert path.read_bytes() == damaged
    assert (suite.path / "r.html").exists()


def test_a_last_line_cut_short_by_a_full_disk_does_not_stop_later_runs(suite: Suite) -> None:
    """What an append that failed part-way left (before appends were all or nothing): the
    next run says so, skips it, and appends its own lines in its place."""
    suite.make(SOURCE)
    suite.update_baselines()
    whole = b'{"test": "t", "metrics": {}}\n'
    path = suite.write("h.jsonl", "")
    path.write_bytes(whole + b'{"test": "t", "metr')
    result = suite.run("--ragcheck-history=h.jsonl", "--ragcheck-report=r.json")
    result.assert_outcomes(passed=2)
    text = Suite.text(result)
    assert f"ragcheck: history file {path}, line 2 is cut short" in text
    assert "skipped; it is dropped when this run's lines are appended" in text
    assert "ragcheck history: 3 line(s) appended" in text
    data = path.read_bytes()
    assert data.startswith(whole)
    assert [json.loads(x)["call"] for x in data[len(whole) :].splitlines()] == [0, 0, 1]
    assert suite.read_json("r.json")["history"]["lines"] == 4
    again = suite.run("--ragcheck-history=h.jsonl")
    again.assert_outcomes(passed=2)
    assert "cut short" not in Suite.text(again)


def test_a_history_path_that_is_a_folder_is_a_usage_error(suite: Suite) -> None:
    suite.make(SOURCE)
    (suite.path / "runs").mkdir()
    result = suite.run("--ragcheck-history=runs")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--ragcheck-history / ragcheck_history=runs" in Suite.text(result)
    assert "is a folder" in Suite.text(result)


def test_compare_in_a_test_reaches_the_summary_and_every_report(
    suite: Suite, run_mode: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.make(COMPARE_SOURCE)
    step_summary = suite.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    result = suite.run(*run_mode, "--ragcheck-report=r.json,r.md,r.html")
    result.assert_outcomes(passed=1)
    text = Suite.text(result)
    assert "COMPARED" in text
    assert "test_rag.py::test_choose" in text
    assert "golden.jsonl (4 cases, k=5): 2 systems against old" in text
    assert "mrr@5   0.333            1.000   +0.667 p=0.062 4/0/0" in text
    report = suite.read_json("r.json")
    Report.model_validate(report)
    (entry,) = report["comparisons"]
    assert entry["nodeid"] == "test_rag.py::test_choose"
    assert entry["systems"] == ["old", "new"]
    mrr = next(m for m in entry["metrics"] if m["name"] == "mrr@5")
    new = next(r for r in mrr["rows"] if r["system"] == "new")
    assert (new["wins"], new["ties"], new["losses"]) == (4, 0, 0)
    assert new["p_value"] == pytest.approx(0.0625)  # one-sided: 1 pattern of 16
    markdown = (suite.path / "r.md").read_text()
    assert "## Compared: `test_rag.py::test_choose`" in markdown
    assert "no gated ragcheck test ran · 1 comparison · " in markdown  # not "no test ran"
    assert "| mrr@5 | 0.333 | 1.000 +0.667 p=0.062 4/0/0 |" in markdown
    html = (suite.path / "r.html").read_text()
    assert '"comparisons":[{' in html
    job = step_summary.read_text()  # a run that only compared still gets its job summary
    assert job.startswith("### ragcheck: no gated ragcheck test ran · 1 comparison")
    assert "## Compared: `test_rag.py::test_choose`" in job
    assert "| mrr@5 | 0.333 | 1.000 +0.667 p=0.062 4/0/0 |" in job


def test_compare_fails_the_test_when_a_system_fails_on_a_case(suite: Suite) -> None:
    suite.make(
        COMPARE_SOURCE.replace('"old": lambda q: ["x", "y", *retriever(q)]', '"old": broken'),
        extra="""
        def broken(query):
            if query == "what is beta":
                raise ConnectionError("index offline")
            return lookup(query)
        """,
    )
    suite.test(
        suite.path.joinpath("test_rag.py")
        .read_text()
        .replace(
            "from pytest_ragcheck import ragcheck",
            "from pytest_ragcheck import ragcheck\nfrom conftest import broken",
        )
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    text = Suite.text(result)
    assert "compare: system 'old' failed on 1 case(s)" in text
    assert "first q2: " in text
    assert "index offline" in text
    Suite.assert_clean(result)


@needs_chromium
def test_the_html_report_shows_the_comparison_table(suite: Suite, tmp_path: Path) -> None:
    suite.make(COMPARE_SOURCE)
    suite.run("--ragcheck-report=r.html").assert_outcomes(passed=1)
    with Browser(tmp_path / "profile", width=1024, height=900) as browser:
        browser.open((suite.path / "r.html").as_uri())
        shown = browser.eval(
            """(function () {
              var card = document.querySelector('section.comparison');
              var row = card.querySelector('tr[data-metric="mrr@5"]');
              return {
                heads: Array.prototype.map.call(card.querySelectorAll('th'), function (t) { return t.textContent; }),
                cells: Array.prototype.map.call(row.querySelectorAll('td'), function (t) { return t.textContent; }),
                overview: document.querySelectorAll('section.overview').length
              };
            })()"""
        )
        problems = browser.layout_problems()
    assert shown["heads"] == ["metric", "old (reference)", "new"]
    # p = 1/16 = 0.0625 reads 0.062 as in the terminal (an exact tie rounds to even there)
    assert shown["cells"] == ["mrr@5", "0.333", "1.000 +0.667 · p 0.062 · 4/0/0"]
    assert shown["overview"] == 0  # no ragcheck(...) call: no empty test overview
    assert problems == {k: [] for k in problems}
