"""compare() on odd but valid input: the numbers stay those of each metric's own cases."""

from __future__ import annotations

import sys
from dataclasses import fields, replace

import pytest
from judge_server import JudgeServer

from pytest_ragcheck import compare
from pytest_ragcheck.common.errors import RagcheckError
from pytest_ragcheck.evaluation.settings import JudgeSettings
from pytest_ragcheck.explore.frames import COMPARISON_COLUMNS
from pytest_ragcheck.explore.systems import SystemRow
from pytest_ragcheck.gate.stats import paired_test

N = 8
CASES = [{"id": f"q{i}", "query": f"query {i}", "expected_ids": [f"d{i}"]} for i in range(N)]


def _text(query: str) -> str:
    # Two cases the judge answers steadily; on the others its samples disagree, so with
    # judge_disagreement="abstain" those cases have no llm_relevancy value (but an mrr).
    return "[g=2]" if int(query.split()[1]) < 2 else "[wobble]"


def first(query: str) -> list[dict[str, str]]:
    return [{"id": "d" + query.split()[1], "text": _text(query)}]


def second(query: str) -> list[dict[str, str]]:
    return [{"id": "x", "text": "[g=0]"}, *first(query)]


def test_a_metric_missing_on_some_cases_does_not_drop_them_from_the_others(
    judge_server: JudgeServer, judge_settings: JudgeSettings
) -> None:
    judge = replace(judge_settings, samples=2, disagreement="abstain")
    cmp = compare(
        {"first": first, "second": second},
        CASES,
        k=2,
        metrics=["mrr", "llm_relevancy"],
        judge=judge,
    )
    judged = [c.id for c in cmp.results["first"].cases if "llm_relevancy@2" in c.values]
    assert judged == ["q0", "q1"]
    ranks = cmp.row("second", "mrr@2")
    assert ranks.n == N
    assert (ranks.wins, ranks.ties, ranks.losses) == (0, 0, N)
    expected = paired_test([1.0] * N, [0.5] * N, alternative="less")
    assert ranks.p_value == pytest.approx(expected.p_value)
    assert ranks.marker == "loss"
    assert cmp.row("second", "llm_relevancy@2").n == 2


def _ranked(query: str) -> list[str]:
    return ["d" + query.split()[1]]


def test_without_pandas_each_to_pandas_names_its_own_to_dict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cmp = compare({"a": _ranked, "b": _ranked}, CASES, k=2, metrics=["mrr"])
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas -> ImportError
    for call, alternative in (
        (cmp.to_pandas, "cmp.to_dict()"),
        (lambda: cmp.to_pandas(per_case=True), "cmp.results[system].to_dict()"),
        (cmp.results["a"].to_pandas, "result.to_dict()"),
    ):
        with pytest.raises(RagcheckError, match="needs pandas") as info:
            call()
        assert alternative in str(info.value)


def test_a_metric_that_is_not_compared_says_where_to_read_it() -> None:
    cmp = compare({"a": _ranked, "b": _ranked}, CASES, k=2, metrics=["latency_p95_ms"])
    assert cmp.metrics == ()
    with pytest.raises(KeyError) as info:
        cmp.better("a", "b", "latency_p95_ms")
    message = str(info.value)
    assert "is not compared" in message
    assert "cmp.results['a'].metrics['latency_p95_ms']" in message
    frame = cmp.to_pandas()
    assert list(frame.columns) == [
        "system",
        "metric",
        "value",
        "delta",
        "p_value",
        "p_holm",
        "wins",
        "ties",
        "losses",
        "n",
        "marker",
    ]
    assert frame.empty


def test_the_frame_columns_are_the_row_fields() -> None:
    assert tuple(f.name for f in fields(SystemRow)) == COMPARISON_COLUMNS


def test_long_system_names_that_differ_at_the_end_stay_apart_in_the_table() -> None:
    stem = "sentence-transformers/all-MiniLM-L6-v2 + bm25 hybrid, reciprocal rank fusion"
    first, second = f"{stem} alpha=0.3", f"{stem} alpha=0.5"
    text = str(compare({first: _ranked, second: _ranked}, CASES, k=2, metrics=["mrr"]))
    assert "alpha=0.3 (reference)" in text
    assert "alpha=0.5" in text
    assert max(len(line) for line in text.splitlines()[1:3]) < 220
    long = str(compare({"x" * 10_000: _ranked, "y\n": _ranked}, CASES, k=2, metrics=["mrr"]))
    assert max(len(line) for line in long.splitlines()) < 400
    assert "y\\n" in long
