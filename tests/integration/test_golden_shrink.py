"""A golden set cut by more than half since its baseline passes (removed cases never fail a
test) but says so in the terminal, whatever the verbosity, not only in the reports."""

from __future__ import annotations

import pytest
from harness import ragcheck_module

CASES = [
    {"id": f"q{i:02d}", "query": f"question {i}", "expected_ids": [f"d{i}"]} for i in range(12)
]
RANKINGS = {case["query"]: [case["expected_ids"][0], "x"] for case in CASES}
WARNING = (
    "ragcheck warning: test_rag.py::test_rag: the golden set lost 11 of the baseline's 12 "
    "cases (q01, q02, q03, q04, q05, …); compared on 1 shared case only. If the cases were "
    'removed on purpose, re-record the baseline: `pytest "test_rag.py::test_rag" '
    "--snapshot-update`"
)


@pytest.mark.parametrize("args", [(), ("-q",), ("--ragcheck-no-summary",)], ids=str)
def test_a_golden_set_cut_from_12_cases_to_1_is_a_terminal_warning(suite, args):
    suite.make(ragcheck_module('"golden.jsonl", k=2'), cases=CASES, rankings=RANKINGS)
    suite.update_baselines().assert_outcomes(passed=1)
    suite.golden(CASES[:1])
    result = suite.run(*args)
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    assert WARNING in suite.text(result)
    suite.assert_clean(result)


def test_a_golden_set_cut_by_half_is_no_warning(suite):
    suite.make(ragcheck_module('"golden.jsonl", k=2'), cases=CASES, rankings=RANKINGS)
    suite.update_baselines()
    suite.golden(CASES[:6])
    result = suite.run()
    result.assert_outcomes(passed=1)
    assert "6 removed" in suite.text(result)  # the note in the summary, as before
    assert "ragcheck warning" not in suite.text(result)
