"""Two outputs named the same file (the history and a report, label proposals and a report):
a usage error up front, not a history line appended and then overwritten by the report."""

from __future__ import annotations

import pytest
from harness import ragcheck_module


@pytest.mark.parametrize(
    "args",
    [
        ("--ragcheck-history=same.json", "--ragcheck-report=same.json"),
        ("--ragcheck-propose-labels=out/x.jsonl", "--ragcheck-history=out/../out/x.jsonl"),
    ],
    ids=["history-report", "labels-history"],
)
def test_two_outputs_in_one_file_are_a_usage_error(suite, args):
    suite.golden()
    suite.retriever()
    suite.test(ragcheck_module('"golden.jsonl", k=2, baseline=False'))
    (suite.pytester.path / "out").mkdir()
    result = suite.run(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "name the same file" in suite.text(result)
    assert "give each its own" in suite.text(result)
    assert not (suite.pytester.path / "same.json").exists()


def test_distinct_outputs_are_fine(suite):
    suite.golden()
    suite.retriever()
    suite.test(ragcheck_module('"golden.jsonl", k=2, baseline=False'))
    result = suite.run("--ragcheck-history=h.jsonl", "--ragcheck-report=r.json")
    result.assert_outcomes(passed=1)
    assert (suite.pytester.path / "h.jsonl").exists()
    assert (suite.pytester.path / "r.json").exists()
