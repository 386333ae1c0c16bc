"""Two tests whose baseline file names differ only in case share one file on macOS and
Windows (and in a git checkout there): the second is told so, and the first's baseline is
kept, rather than each overwriting the other's numbers."""

from __future__ import annotations

from pathlib import Path

from harness import ragcheck_module

PARAMETRIZED = (
    ragcheck_module(
        '"golden.jsonl", k=2',
        function="test_rag",
        body="ragcheck(retriever)",
    )
    .replace(
        "@ragcheck(",
        '@pytest.mark.parametrize("name", ["BM25", "bm25"])\n@ragcheck(',
    )
    .replace("def test_rag(ragcheck, retriever):", "def test_rag(ragcheck, retriever, name):")
)


def test_names_differing_only_in_case_are_one_baseline(suite):
    suite.golden()
    suite.retriever()
    suite.test("import pytest\n" + PARAMETRIZED)
    result = suite.run("--snapshot-update")
    result.assert_outcomes(passed=1, failed=1)
    text = suite.text(result)
    assert "test_rag.py::test_rag[BM25] and this test map to the same baseline file" in text, text
    assert "(names that differ only in case are one file on macOS and Windows)" in text
    files = sorted(p.name for p in Path(suite.pytester.path, "__ragcheck__").rglob("*.json"))
    assert files == ["test_rag[BM25][ragcheck].json"]
    # the next run compares the first test with its own baseline, and still names the clash
    again = suite.run()
    again.assert_outcomes(passed=1, failed=1)
