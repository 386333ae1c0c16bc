"""A marked test that checked nothing is warned about as its call phase ends.

Made an error (``filterwarnings = error``), the warning used to be raised at teardown: the test
passed, then errored at teardown with no message of its own. It now fails in its call phase
with the warning's message, and its fixtures are torn down in full; without the filter the
warning is in the warnings summary, attributed to the test, as before.
"""

from __future__ import annotations

from harness import Suite

PROJECT = """
from pathlib import Path

import pytest
from pytest_ragcheck import ragcheck
TORN_DOWN = Path(__file__).with_name("torn_down.txt")


@pytest.fixture
def resource():
    yield "index"
    TORN_DOWN.write_text("done")


@ragcheck("golden.jsonl", k=2, baseline=False)
def test_forgot(ragcheck, retriever, resource):
    retriever("what is alpha")


@ragcheck("golden.jsonl", k=2, baseline=False)
def test_called(ragcheck, retriever):
    ragcheck(retriever)


@ragcheck("golden.jsonl", k=2, baseline=False)
def test_skipped(ragcheck):
    pytest.skip("nothing to check here")
"""

MESSAGE = (
    "RagcheckWarning: test_forgot is marked @ragcheck(...) but never called ragcheck(...): "
    "nothing was checked"
)


def test_as_an_error_the_warning_fails_the_call_phase(suite: Suite, run_mode) -> None:
    suite.make(PROJECT)
    result = suite.run(*run_mode)  # the harness's ini: filterwarnings = error
    result.assert_outcomes(passed=1, failed=1, skipped=1)
    text = suite.text(result)
    assert "ERROR at teardown" not in text, text
    assert "_ test_forgot _" in text, text  # a failure's own header, not an error's
    assert f"E   pytest_ragcheck.plugin.{MESSAGE}" in text, text
    assert "FAILED test_rag.py::test_forgot - " in text, text
    assert (suite.path / "torn_down.txt").read_text() == "done"
    suite.assert_clean(result)


def test_without_the_filter_it_is_a_warning_of_the_test(suite: Suite, run_mode) -> None:
    suite.make(PROJECT)
    suite.ini(filterwarnings="error\n    always::pytest_ragcheck.RagcheckWarning")
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=2, skipped=1, warnings=1)
    text = suite.text(result)
    summary = text.split("warnings summary", 1)[1].split("-- Docs", 1)[0]
    assert "test_rag.py::test_forgot\n" in summary, summary
    assert MESSAGE in summary, summary
    assert (suite.path / "torn_down.txt").read_text() == "done"
