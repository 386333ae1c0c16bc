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


def test_explicit_cutoffs_are_stored_whole_whatever_max_hits() -> None:
    from pytest_ragcheck.baseline.document import hits_depth
    from pytest_ragcheck.evaluation.result import Result
    from pytest_ragcheck.metrics.names import parse_metric

    def depth(*names: str, max_hits: int) -> int:
        specs = tuple(parse_metric(n, 10) for n in names)
        return hits_depth(Result(metrics={}, cases=[], k=10, specs=specs), max_hits=max_hits)

    assert depth("mrr", max_hits=3) == 10
    assert depth("recall@200", max_hits=100) == 200
    assert depth("recall@200", "map@all", max_hits=100) == 200
    assert depth("mrr", "map@all", max_hits=100) == 100
    assert depth("judge_kappa", max_hits=7) == 7


def test_a_metric_given_twice_in_a_case_line_is_a_damaged_file() -> None:
    """The chunked read of a canonical file kept the last of two values, silently."""
    import pytest

    from pytest_ragcheck.baseline.document import BaselineDoc
    from pytest_ragcheck.common.errors import BaselineError

    doc = BaselineDoc(
        k=10,
        metrics=("mrr@10",),
        n_cases=2,
        golden_hash="g",
        aggregates={"mrr@10": 0.75},
        cases={"q1": {"mrr@10": 1.0}, "q2": {"mrr@10": 0.5}},
        case_hashes={"q1": "h1", "q2": "h2"},
        hits={"q1": ("a",), "q2": ("x", "b")},
    )
    text = doc.to_json()
    assert BaselineDoc.from_json(text) == doc
    damaged = text.replace('"values": {"mrr@10": 1.0}', '"values": {"mrr@10": 1.0, "mrr@10": 0.0}')
    assert damaged != text
    with pytest.raises(BaselineError, match="names 'mrr@10' twice"):
        BaselineDoc.from_json(damaged, source="b.json")


def test_a_failed_systems_error_is_printed_without_the_api_key(monkeypatch) -> None:
    monkeypatch.setenv("SEARCH_API_KEY", "sk-live-0123456789abcdef")

    def leaky(query: str) -> Any:
        raise RuntimeError("401 for key sk-live-0123456789abcdef")

    text = str(compare({"good": good, "leaky": leaky}, CASES, k=2, metrics=["mrr"]))
    assert "leaky: the retriever failed on 6 of 6 case(s)" in text
    assert "sk-live" not in text
    assert "[redacted]" in text
