"""The pytest layer as a user meets it: marked tests that check nothing, and the summary count.

A test with its own ``@ragcheck(...)`` marker that passes without using the fixture checked
nothing: pytest warns (``RagcheckWarning``). Tests covered only by a module or class marker,
and tests that were skipped, failed or xfailed, are left alone.
"""

from __future__ import annotations

import re

from harness import Suite, ragcheck_module

MARKED = """
import pytest
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=2, baseline=False)
def test_forgot_the_call(ragcheck, retriever):
    retriever("what is alpha")


@ragcheck("golden.jsonl", k=2, baseline=False)
def test_without_the_fixture(retriever):
    assert retriever("what is alpha")


@ragcheck("golden.jsonl", k=2, baseline=False)
@pytest.mark.parametrize("n", [1])
def test_parametrized(n):
    pass


@ragcheck("golden.jsonl", k=2, baseline=False)
def test_called(ragcheck, retriever):
    ragcheck(retriever)


@ragcheck("golden.jsonl", k=2)
def test_compared(ragcheck, retriever):
    ragcheck.compare({"a": retriever, "b": retriever})


@ragcheck("golden.jsonl", tolerance=0.1)
def test_reads_its_settings(ragcheck):
    assert ragcheck.settings().tolerance == 0.1


@ragcheck("golden.jsonl")
def test_skipped(ragcheck):
    pytest.skip("no API key on this machine")


@ragcheck("golden.jsonl")
def test_failed(ragcheck):
    assert False, "broken before the call"


@ragcheck("golden.jsonl")
@pytest.mark.xfail(reason="known")
def test_xfailed(ragcheck):
    assert False


@ragcheck("golden.jsonl")
@pytest.mark.xfail(reason="flaky")
def test_xpassed(ragcheck):
    pass


def test_unmarked(ragcheck):
    pass
"""

COVERED = """
import pytest

pytestmark = pytest.mark.ragcheck("golden.jsonl", k=2, baseline=False)


def test_helper_in_a_marked_module():
    pass


@pytest.mark.ragcheck(k=3)
class TestMarkedClass:
    def test_helper_in_a_marked_class(self):
        pass
"""

WARNED = ["test_forgot_the_call", "test_without_the_fixture", "test_parametrized[1]"]


def _project(suite: Suite) -> None:
    suite.make(MARKED)
    suite.test(COVERED, name="test_covered")


def test_a_marked_test_that_never_calls_ragcheck_warns(suite: Suite, run_mode) -> None:
    _project(suite)
    suite.ini(filterwarnings="error\n    always::pytest_ragcheck.plugin.RagcheckWarning")
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=9, skipped=1, failed=1, xfailed=1, xpassed=1, warnings=3)
    text = suite.text(result)
    summary = text.split("warnings summary", 1)[1].split("-- Docs", 1)[0]
    for name in WARNED:
        assert f"test_rag.py::{name}\n" in summary, summary
        assert (
            f"RagcheckWarning: {name} is marked @ragcheck(...) but never called "
            "ragcheck(...): nothing was checked"
        ) in summary, summary
    assert len(re.findall(r"RagcheckWarning: ", summary)) == len(WARNED), summary


def test_as_an_error_the_warning_fails_the_test_cleanly(suite: Suite, run_mode) -> None:
    """``filterwarnings = error`` (this harness's default): the test fails, no traceback."""
    _project(suite)
    result = suite.run(*run_mode, "-p", "no:randomly")
    warned = len(WARNED)
    result.assert_outcomes(passed=9 - warned, skipped=1, failed=1 + warned, xfailed=1, xpassed=1)
    text = suite.text(result)
    assert "ERROR at teardown" not in text, text
    for name in WARNED:
        assert f"FAILED test_rag.py::{name} - " in text, text
        assert f"E   pytest_ragcheck.plugin.RagcheckWarning: {name} is marked" in text, text
    assert "INTERNALERROR" not in text
    assert "pytest_ragcheck/plugin.py" not in text


def test_the_warning_can_be_filtered_as_a_pytest_warning(suite: Suite) -> None:
    _project(suite)
    suite.ini(filterwarnings="error\n    ignore::pytest.PytestWarning")
    result = suite.run()
    result.assert_outcomes(passed=9, skipped=1, failed=1, xfailed=1, xpassed=1)
    assert "RagcheckWarning" not in suite.text(result)


COMPARING = """
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=2, baseline=False)
def test_gated(ragcheck, retriever):
    ragcheck(retriever)


@ragcheck("golden.jsonl", k=2)
def test_compared(ragcheck, retriever):
    ragcheck.compare({"a": retriever, "b": retriever})
"""


def test_the_count_line_counts_the_comparisons_it_lists(suite: Suite, run_mode) -> None:
    """A ``ragcheck.compare`` test is listed (``COMPARED``): the last line counts it apart."""
    suite.make(COMPARING)
    for args in ([], ["-q"]):
        result = suite.run(*run_mode, *args)
        result.assert_outcomes(passed=2)
        text = suite.text(result)
        assert "COMPARED" in text
        assert "ragcheck: 1 test — 1 passed · 1 comparison\n" in text, text

    result = suite.run(*run_mode, "-k", "compared")  # only a comparison: still a count line
    result.assert_outcomes(passed=1)
    assert "ragcheck: no gated test ran · 1 comparison\n" in suite.text(result)


BASELINED = """
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=5)
def test_first(ragcheck, retriever):
    ragcheck(retriever)


@ragcheck("golden.jsonl", k=3)
def test_second(ragcheck, retriever):
    ragcheck(retriever)
"""


def test_an_incomplete_update_lets_syrupy_delete_nothing(suite: Suite, run_mode) -> None:
    """``-x`` after an unrelated failure: syrupy used to delete the baselines of the tests that
    never ran (``2 unused snapshots deleted``, ``Deleted ...``) and the plugin wrote them back.
    Now syrupy's clean-up is off for that session: nothing is deleted or rewritten, and its
    summary says "unused"."""
    suite.make(BASELINED)
    suite.update_baselines().assert_outcomes(passed=2)
    unrelated = suite.test("def test_first():\n    assert False\n", name="test_a")  # runs first
    files = sorted((suite.path / "__ragcheck__").rglob("*.json"))
    assert len(files) == 2
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in files}

    result = suite.run("--snapshot-update", "-x", "-p", "no:randomly", *run_mode)
    text = suite.text(result)
    assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in files} == before, text
    # syrupy prints no summary when no snapshot was asserted (the baselines are in a folder
    # of their own, which syrupy's default extension does not scan), nor syrupy 5 of a
    # session that stopped early
    printed = "snapshot report summary" in text
    assert "--snapshot-update deleted no unused snapshot, because the session" in text
    snapshot_summary = text.split("snapshot report summary", 1)[-1] if printed else ""
    assert "deleted" not in snapshot_summary, text
    assert "Deleted" not in snapshot_summary, text
    assert "ragcheck: --snapshot-update deleted no unused snapshot, because " in text, text
    if not run_mode and printed:  # one process: test_a's failure stopped the session first
        assert "2 snapshots unused." in snapshot_summary, text
    assert "kept 2 baseline file(s)" not in text

    # A complete session still deletes the baseline of a test that is gone, as syrupy does.
    unrelated.unlink()
    suite.test(BASELINED.split('@ragcheck("golden.jsonl", k=3)')[0])
    result = suite.run("--snapshot-update", *run_mode)
    result.assert_outcomes(passed=1)
    assert "1 unused snapshot deleted." in suite.text(result)
    assert [p.exists() for p in files] == [True, False]
    assert "deleted no unused snapshot" not in suite.text(result)


def test_a_one_case_golden_set_is_one_case(suite: Suite) -> None:
    """The failure message and the summary said ``(1 cases, k=2)``."""
    suite.make(
        ragcheck_module('"golden.jsonl", k=2, baseline=False, min_mrr=0.9'),
        cases=Suite.GOLDEN[:1],
        rankings={"what is alpha": ["x", "a"]},
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    text = suite.text(result)
    assert "ragcheck failed for golden.jsonl (1 case, k=2)" in text, text
    assert "test_rag.py::test_rag  golden.jsonl (1 case, k=2)" in text, text
    assert "1 cases" not in text
