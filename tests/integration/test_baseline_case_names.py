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


#: Parametrize ids from 220 to 260 bytes, ASCII and multi-byte UTF-8 (``é`` is two bytes, ``語``
#: three): with the temporary file's additions a name over 255 bytes could not be written.
LONG_IDS = ["a" * 220, "b" * 236, "c" * 241, "d" * 260, "é" * 118, "語" * 80, "x" * 200 + "語" * 15]

LONG = """
import pytest
from pytest_ragcheck import ragcheck

@pytest.mark.parametrize("name", {ids!r}, ids={ids!r})
@ragcheck("golden.jsonl", k=2)
def test_rag(ragcheck, retriever, name):
    ragcheck(retriever)
"""


def test_long_parametrize_ids_are_recorded_and_compared(suite):
    # ids as given, not escaped to ``\u00e9`` (pytest's default): names with multi-byte UTF-8
    suite.ini(disable_test_id_escaping_and_forfeit_all_rights_to_community_support="true")
    suite.golden()
    suite.retriever()
    suite.test(LONG.format(ids=LONG_IDS))
    result = suite.run("--snapshot-update")
    result.assert_outcomes(passed=len(LONG_IDS))
    suite.assert_clean(result)
    names = [p.name for p in Path(suite.path, "__ragcheck__/test_rag").iterdir()]
    assert len(names) == len(LONG_IDS)
    # room for the temporary file a baseline is written to: "." + name + ".<8 hex>.tmp"
    assert max(len(name.encode()) for name in names) <= 255 - len("..01234567.tmp")
    again = suite.run()
    again.assert_outcomes(passed=len(LONG_IDS))
    assert "unused" not in suite.text(again)

    # a test skipped during --snapshot-update keeps its baseline, whatever its name's length
    suite.test(LONG.format(ids=LONG_IDS).replace("ragcheck(retriever)", "pytest.skip('off')"))
    result = suite.run("--snapshot-update")
    result.assert_outcomes(skipped=len(LONG_IDS))
    assert len(list(Path(suite.path, "__ragcheck__/test_rag").iterdir())) == len(LONG_IDS)
