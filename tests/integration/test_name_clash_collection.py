"""Baseline names that differ only in case are decided at collection, not as tests run.

``test_Search`` and ``test_search`` (or modules ``test_A.py`` and ``test_a.py``) share one
baseline file on macOS and Windows. The first test collected owns the name and any later one
is told, whatever order the tests run in and on whichever pytest-xdist worker: with the two
tests on different workers, neither used to be told, and each overwrote the other's baseline.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from harness import Suite

#: One process, and two workers that each run one of the tests (one xdist group each).
MODES = (
    pytest.param([], id="serial"),
    pytest.param(["-n", "2", "--dist", "loadgroup"], id="xdist", marks=pytest.mark.slow),
)

TWO_TESTS = """
import pytest
from pytest_ragcheck import ragcheck
@pytest.mark.xdist_group("first")
@ragcheck("golden.jsonl", k=2)
def test_Search(ragcheck, retriever):
    ragcheck(retriever)


@pytest.mark.xdist_group("second")
@ragcheck("golden.jsonl", k=2)
def test_search(ragcheck, retriever):
    ragcheck(retriever)
"""

ONE_TEST = """
import pytest
from pytest_ragcheck import ragcheck
@pytest.mark.xdist_group("{group}")
@ragcheck("golden.jsonl", k=2)
def test_rag(ragcheck, retriever):
    ragcheck(retriever)
"""

#: Run the tests in the reverse of their collection order.
REVERSED = """
def pytest_collection_modifyitems(items):
    items.reverse()
"""
#: Rename the tests after collection, as pytest-xdist's ``--dist loadgroup`` does on pytest 8
#: (``test_rag.py::test_Search@first`` in every report of the run). pytest 9 keeps the node
#: id as ``_id`` (where xdist's renaming no longer reaches).
RENAMED = """
def pytest_collection_modifyitems(items):
    for item in items:
        if hasattr(item, "_nodeid"):
            item._nodeid += "@renamed"
        else:
            item._id = item.nodeid + "@renamed"
"""


def _told(text: str, owner: str, told: str) -> None:
    """``told`` failed, naming ``owner`` as the test that owns the baseline file (``told``
    may carry the ``@group`` suffix older pytest-xdist versions add under loadgroup)."""
    failed = rf"FAILED {re.escape(told)}(@\w+)? - Failed: {re.escape(owner)} "
    assert re.search(failed, text), text
    assert "(names that differ only in case are one file on macOS and Windows)" in text, text


def _workers(text: str) -> set[str]:
    return set(re.findall(r"\[(gw\d)\] \[\s*\d+%\] (?:PASSED|FAILED) ", text))


@pytest.mark.parametrize("mode", MODES)
def test_the_first_collected_test_owns_the_name(suite: Suite, mode: list[str]) -> None:
    suite.make(TWO_TESTS)
    result = suite.run("--snapshot-update", "-v", *mode)
    result.assert_outcomes(passed=1, failed=1)
    text = suite.text(result)
    if mode:
        assert _workers(text) == {"gw0", "gw1"}, text  # one test on each worker
    _told(text, "test_rag.py::test_Search", "test_rag.py::test_search")
    files = sorted(p.name for p in Path(suite.path, "__ragcheck__").rglob("*.json"))
    assert files == ["test_Search[ragcheck].json"]

    again = suite.run("-v", *mode)  # the owner compares with its own baseline; still told
    again.assert_outcomes(passed=1, failed=1)
    _told(suite.text(again), "test_rag.py::test_Search", "test_rag.py::test_search")


@pytest.mark.parametrize("mode", MODES)
def test_modules_differing_only_in_case(suite: Suite, mode: list[str]) -> None:
    suite.golden()
    suite.retriever()
    suite.test(ONE_TEST.format(group="first"), name="test_A")
    suite.test(ONE_TEST.format(group="second"), name="test_a")
    result = suite.run("--snapshot-update", "-v", *mode)
    result.assert_outcomes(passed=1, failed=1)
    text = suite.text(result)
    if mode:
        assert _workers(text) == {"gw0", "gw1"}, text
    _told(text, "test_A.py::test_rag", "test_a.py::test_rag")
    files = sorted(
        p.relative_to(suite.path).as_posix() for p in suite.path.rglob("__ragcheck__/*/*.json")
    )
    assert files == ["__ragcheck__/test_A/test_rag[ragcheck].json"]


def test_run_order_does_not_change_the_owner(suite: Suite) -> None:
    """A plugin that reorders the tests (pytest-randomly, a conftest) runs ``test_search``
    first: ``test_Search``, collected first, still owns the name, run after run."""
    suite.make(TWO_TESTS, extra=REVERSED)
    result = suite.run("--snapshot-update", "-v", "-p", "no:xdist")
    result.assert_outcomes(passed=1, failed=1)
    text = suite.text(result)
    assert text.index("test_rag.py::test_search FAILED") < text.index(
        "test_rag.py::test_Search PASSED"
    ), text
    _told(text, "test_rag.py::test_Search", "test_rag.py::test_search")


def test_tests_renamed_after_collection_keep_their_owner(suite: Suite) -> None:
    """The owner is kept on the test, not by its node id: a plugin that renames the tests
    after collection (pytest-xdist under ``--dist loadgroup`` on pytest 8) used to make every
    test of a shared name told, the owner included, and no baseline was written."""
    suite.make(TWO_TESTS, extra=RENAMED)
    result = suite.run("--snapshot-update", "-v", "-p", "no:xdist")
    result.assert_outcomes(passed=1, failed=1)
    text = suite.text(result)
    assert "test_rag.py::test_Search@renamed PASSED" in text, text
    _told(text, "test_rag.py::test_Search", "test_rag.py::test_search")
    files = sorted(p.name for p in Path(suite.path, "__ragcheck__").rglob("*.json"))
    assert files == ["test_Search[ragcheck].json"]
