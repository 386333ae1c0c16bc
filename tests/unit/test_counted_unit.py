"""Counts read as English: one case, two cases (messages, summaries, the compare header)."""

from __future__ import annotations

import pytest

from pytest_ragcheck.common.display import counted
from pytest_ragcheck.evaluation.result import CaseResult, Result
from pytest_ragcheck.metrics.names import parse_metric


@pytest.mark.parametrize(("n", "text"), [(0, "0 cases"), (1, "1 case"), (2, "2 cases")])
def test_counted(n: int, text: str) -> None:
    assert counted(n, "case") == text


def test_result_text_of_one_case_with_one_error() -> None:
    result = Result(
        metrics={"mrr@10": 0.0},
        cases=[CaseResult("q1", "what", status="error", error="ValueError: boom")],
        k=10,
        specs=(parse_metric("mrr@10", 10),),
    )
    assert "1 case evaluated, 1 error" in result.table()
    assert repr(result).startswith("<Result 1 case: ")
