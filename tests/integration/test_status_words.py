"""One status vocabulary: every output names a test's status as pytest reports its outcome."""

from __future__ import annotations

import re

from harness import ragcheck_module

from pytest_ragcheck.report import labels

#: A test without a stored baseline (pytest: FAILED), one whose retriever raises on a case
#: (FAILED), one that passes and one that skips after evaluating (SKIPPED).
TESTS = (
    ragcheck_module('"golden.jsonl"', function="test_no_baseline")
    + """

def broken(query):
    if query == "what is beta":
        raise RuntimeError("index offline")
    return ["a", "b", "c", "d", "e"]

@ragcheck("golden.jsonl", baseline=False)
def test_retriever_error(ragcheck):
    ragcheck(broken)

@ragcheck("golden.jsonl", baseline=False)
def test_clean(ragcheck, retriever):
    ragcheck(retriever)

@ragcheck("golden.jsonl", baseline=False)
def test_skipped_after_evaluating(ragcheck, retriever):
    import pytest

    ragcheck(retriever)
    pytest.skip("not today")
"""
)

EXPECTED = {
    "test_no_baseline": ("failed", "failed"),
    "test_retriever_error": ("failed", "failed"),
    "test_clean": ("passed", "passed"),
    "test_skipped_after_evaluating": ("skipped", "skipped"),
}


def test_every_output_uses_pytests_word_for_the_outcome(suite, run_mode, monkeypatch):
    summary = suite.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    suite.make(TESTS)
    result = suite.run(*run_mode, "-rA", "--ragcheck-report=out/report.json,out/report.md")
    result.assert_outcomes(passed=1, failed=2, skipped=1)
    text = suite.text(result)

    # pytest's own verdict per test, from its short summary (-rA).
    pytest_says = {
        m.group(2): m.group(1).lower()
        for m in re.finditer(
            r"^(PASSED|FAILED|SKIPPED) (?:\[\d+\] )?test_rag\.py(?::\d+)?(?:::(\w+))?", text, re.M
        )
        if m.group(2)
    }
    assert {
        name: pytest_says[name]
        for name in ("test_no_baseline", "test_retriever_error", "test_clean")
    } == {
        name: outcome
        for name, (outcome, _) in EXPECTED.items()
        if name != "test_skipped_after_evaluating"
    }

    report = suite.read_json("out/report.json")
    statuses = {t["nodeid"].split("::")[1]: (t["outcome"], t["status"]) for t in report["tests"]}
    assert statuses == EXPECTED
    assert report["summary"] == {
        "tests": 4,
        **dict.fromkeys(labels.TEST_STATUSES, 0),
        "failed": 2,
        "passed": 1,
        "skipped": 1,
    }
    # The terminal summary, the Markdown report and the job summary say the same words.
    for name, (_, status) in EXPECTED.items():
        assert re.search(rf"^{labels.title(status)} +test_rag\.py::{name}\b", text, re.M), name
        markdown = (suite.path / "out/report.md").read_text()
        assert (
            f"| {labels.ICONS[status]} {labels.word(status)} | `test_rag.py::{name}` |" in markdown
        )
        assert (
            f"| {labels.ICONS[status]} {labels.word(status)} | `test_rag.py::{name}` |"
            in summary.read_text()
        )
    assert "ragcheck: 4 tests — 2 failed, 1 passed, 1 skipped" in text
    assert "ERROR" not in text.split("ragcheck summary", 1)[1]
