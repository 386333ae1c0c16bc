"""Edge cases of the comparison helpers a user meets outside a pytest session."""

from __future__ import annotations

from typing import Any

from pytest_ragcheck import compare

CASES = [{"id": f"q{i}", "query": f"question {i}", "expected_ids": [f"d{i}"]} for i in range(6)]


def good(query: str) -> list[str]:
    return [f"d{query.split()[-1]}", "x"]


def down(query: str) -> Any:
    raise RuntimeError("search backend down")


def test_a_system_that_failed_on_every_case_keeps_the_table() -> None:
    """The table used to come out empty (no metric row at all, the reference's included)."""
    cmp = compare({"good": good, "down": down}, CASES, k=2, metrics=["mrr", "recall"])
    assert cmp.metrics == ("mrr@2", "recall@2")
    assert cmp.row("good", "mrr").value == 1.0
    assert cmp.row("down", "mrr").value is None
    assert not cmp.better("good", "down", "mrr")
    text = str(cmp)
    assert "mrr@2" in text
    assert "1.000" in text
    assert (
        "down: the retriever failed on 6 of 6 case(s), first q0: RuntimeError: search backend "
        "down (left out of the means and the pairs)"
    ) in text


def test_failed_cases_scored_zero_are_named_as_such() -> None:
    cmp = compare({"good": good, "down": down}, CASES, k=2, metrics=["mrr"], on_error="zero")
    assert cmp.row("down", "mrr").value == 0.0
    assert cmp.row("down", "mrr").marker == "loss"
    assert "down: the retriever failed on 6 of 6 case(s), first q0" in str(cmp)
    assert "(scored 0)" in str(cmp)
