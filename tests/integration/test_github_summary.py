"""``$GITHUB_STEP_SUMMARY``: appended (never overwritten), regressions first, once per run."""

from __future__ import annotations

TESTS = """
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", metrics=["mrr"])
def test_regressed(ragcheck, retriever):
    ragcheck(retriever)

@ragcheck("golden.jsonl", baseline=False, metrics=["hit_rate"])
def test_a_plain(ragcheck, retriever):
    ragcheck(retriever)
"""


def test_summary_is_appended_with_regressions_first(suite, run_mode, monkeypatch):
    suite.make(TESTS)
    suite.rebaseline(suite.PERFECT, suite.WORSE)
    summary = suite.path / "step_summary.md"
    summary.write_text("## Lint\n\nok\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=1, failed=1)
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## Lint\n\nok\n\n### ragcheck: 2 tests: 1 regressed, 1 passed\n")
    assert text.count("### ragcheck:") == 1  # the controller writes it, once
    lines = text.splitlines()
    header = lines.index("| Status | Test | Golden set | Metrics |")
    assert lines[header + 2].startswith(
        "| ❌ regressed | `test_rag.py::test_regressed` | golden.jsonl (4 cases, k=10) | "
        "**mrr@10** 1.000 → **0.708** (−0.292, allowed 0.020"
    )
    assert lines[header + 3] == (
        "| ✅ passed | `test_rag.py::test_a_plain` | golden.jsonl (4 cases, k=10) | "
        "hit_rate@10 1.000 |"
    )
    assert "<details open><summary>❌ regressed: test_rag.py::test_regressed</summary>" in text
    assert "<details><summary>✅ passed: test_rag.py::test_a_plain</summary>" in text
    suite.run()  # a second pytest step in the same job appends again
    assert summary.read_text(encoding="utf-8").count("### ragcheck:") == 2


def test_unopenable_summary_file_changes_no_outcome(suite, monkeypatch):
    suite.make(TESTS)
    folder = suite.path / "a_folder"
    folder.mkdir()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(folder))
    result = suite.run("-k", "plain")
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    assert (
        f"ragcheck: could not append to the GitHub job summary (GITHUB_STEP_SUMMARY={folder}): "
        "Is a directory"
    ) in suite.text(result)
    suite.assert_clean(result)


def test_nothing_written_without_ragcheck_tests(suite, monkeypatch):
    suite.test("def test_nothing():\n    pass\n")
    summary = suite.path / "step_summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = suite.run()
    result.assert_outcomes(passed=1)
    assert not summary.exists()
