"""A run with more cases than the HTML holds: the JSON report has every case, the HTML the
cases that matter with a notice, and both stay the same under pytest-xdist."""

from __future__ import annotations

import json
import re

from chromium import Browser, needs_chromium
from harness import ragcheck_module

from pytest_ragcheck.report.cases import SHOWN_CASES
from pytest_ragcheck.report.schema import Report

N = SHOWN_CASES + 60
CASES = [{"id": f"c{i:03d}", "query": f"query {i}", "expected_ids": [f"d{i}"]} for i in range(N)]
PERFECT = {c["query"]: [c["expected_ids"][0], "x"] for c in CASES}
#: The relevant document of every fifth case falls to rank 2.
WORSE = {q: (hits[::-1] if i % 5 == 0 else hits) for i, (q, hits) in enumerate(PERFECT.items())}
TESTS = ragcheck_module('"golden.jsonl", metrics=["mrr"], tolerance=0.5') + (
    "\n\n" + ragcheck_module('"golden.jsonl", metrics=["mrr"], tolerance=0.5', function="test_b")
)


def _html_data(path):
    text = path.read_text(encoding="utf-8")
    match = re.search(r'<script id="ragcheck-data" type="application/json">(.*?)</script>', text)
    assert match is not None
    # the page's data (the script and styles around it are the same at any size)
    return json.loads(match.group(1)), len(match.group(1).encode("utf-8"))


def _run(suite, run_mode):
    suite.make(TESTS, cases=CASES, rankings=PERFECT)
    suite.update_baselines()
    suite.retriever(WORSE)
    result = suite.run(*run_mode, "--ragcheck-report=out/r.json,out/r.html,out/r.md")
    result.assert_outcomes(passed=2)  # within the generous tolerance
    return result


def test_json_has_every_case_and_html_the_ones_that_matter(suite, run_mode):
    _run(suite, run_mode)
    report = suite.read_json("out/r.json")
    Report.model_validate(report)  # the published schema, unchanged
    for test in report["tests"]:
        assert [c["id"] for c in test["cases"]] == [c["id"] for c in CASES]
        assert "cases_shown" not in test
        assert "distribution" not in test
        regressed = {c["id"] for c in test["cases"] if c["values"]["mrr@10"] < 1.0}
        assert len(regressed) == N // 5
        assert all(c["baseline_values"] == {"mrr@10": 1.0} for c in test["cases"])
        assert set(test["timings"]) >= {"load_s", "retrieve_s", "evaluate_s", "compare_s"}

    data, size = _html_data(suite.path / "out" / "r.html")
    json_size = (suite.path / "out" / "r.json").stat().st_size
    assert size < json_size
    for test in data["tests"]:
        shown = {c["id"] for c in test["cases"]}
        assert test["cases_shown"] == len(shown) == SHOWN_CASES
        assert regressed <= shown  # every regressed case keeps its drill-down
        assert sum(test["distribution"]["mrr@10"]["counts"]) == N
        assert sum(test["distribution"]["mrr@10"]["baseline"]) == N
        assert "_cases_packed" not in test
    assert (suite.path / "out" / "r.md").stat().st_size < 1024 * 1024


@needs_chromium
def test_html_of_a_large_run_carries_the_cap_notice(suite, tmp_path):
    _run(suite, [])
    url = (suite.path / "out" / "r.html").as_uri()
    with Browser(tmp_path / "profile", width=1280, height=1000) as browser:
        browser.open(url)
        notices = browser.eval(
            'Array.from(document.querySelectorAll(".cap-notice")).map(e => e.textContent)'
        )
        bins = browser.eval(
            'Array.from(document.querySelector("section.test").querySelectorAll('
            '"rect.hist-current")).map(e => Number(e.dataset.count))'
        )
    assert len(notices) == 2
    assert notices[0].startswith(f"This page holds {SHOWN_CASES} of the {N} cases in full")
    assert f"{N - SHOWN_CASES} cases are left out; the JSON report" in notices[0]
    assert sum(bins) == N  # the histogram counts every case, not only those shown


#: Written into the project's conftest: how many golden sets of this project the process
#: still holds while a test runs, and when pytest unconfigures (after the session's last
#: hook). Sets of other projects don't count: an in-process run shares the process with the
#: tests that ran before it.
CACHE_PROBE = """
import json
import pathlib
import sys


def _ours():
    # the cache of the loader the plugin calls (an in-process run restores sys.modules after
    # it, so the package may hold a loader that sys.modules no longer lists)
    golden = sys.modules["pytest_ragcheck.golden"]
    cache = golden.load_golden.__globals__["_CACHE"]
    here = str(pathlib.Path.cwd())
    return sum(1 for path, _ in cache if str(path).startswith(here))


@pytest.fixture(autouse=True)
def _probe_during():
    yield
    pathlib.Path("during.json").write_text(json.dumps(_ours()))


def pytest_unconfigure(config):
    pathlib.Path("after.json").write_text(json.dumps(_ours()))
"""


def test_golden_sets_are_released_when_the_session_ends(suite):
    """pytest collects garbage as it unconfigures; a large cached golden set would make each
    collection walk every case, so the session lets go of them once the tests have run."""
    suite.make(TESTS, cases=CASES, rankings=PERFECT, extra=CACHE_PROBE)
    suite.update_baselines(None, "-p", "no:randomly").assert_outcomes(passed=2)
    assert json.loads((suite.path / "during.json").read_text()) == 1  # one file, one set
    assert json.loads((suite.path / "after.json").read_text()) == 0
