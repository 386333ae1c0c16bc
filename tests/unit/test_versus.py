"""compare(): retrievers side by side, against running each alone and the stats module."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from pytest_ragcheck import Comparison, compare, evaluate
from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.gate.stats import holm, paired_test

N = 30
CASES = [{"id": f"q{i}", "query": f"query {i}", "expected_ids": [f"d{i}"]} for i in range(N)]
METRICS = ["mrr", "recall@1", "ndcg"]


def _doc(query: str) -> str:
    return "d" + query.split()[1]


def bm25(query: str) -> list[str]:
    """The relevant document second everywhere."""
    return ["x", _doc(query)]


def hybrid(query: str) -> list[str]:
    """First in two cases of three, third in the others: better than bm25."""
    if int(query.split()[1]) % 3:
        return [_doc(query), "x"]
    return ["x", "y", _doc(query)]


def dense(query: str) -> list[str]:
    """Fourth everywhere: worse than bm25."""
    return ["y", "z", "x", _doc(query)]


def almost(query: str) -> list[str]:
    """bm25 with five cases better (q0-q4): one-sided p = 1/32 alone, not after Holm."""
    return [_doc(query), "x"] if int(query.split()[1]) < 5 else bm25(query)


def nudge(query: str) -> list[str]:
    """The same as ``almost`` on other cases (q6-q10)."""
    return [_doc(query), "x"] if 6 <= int(query.split()[1]) < 11 else bm25(query)


OTHERS = ("hybrid", "dense", "almost", "nudge")


@pytest.fixture(scope="module")
def cmp() -> Comparison:
    systems = {"bm25": bm25, "hybrid": hybrid, "dense": dense, "almost": almost, "nudge": nudge}
    return compare(systems, CASES, k=5, metrics=METRICS)


def test_each_system_has_the_numbers_of_running_it_alone(cmp: Comparison) -> None:
    for name, retriever in {"bm25": bm25, "hybrid": hybrid, "dense": dense}.items():
        alone = evaluate(retriever, CASES, k=5, metrics=METRICS)
        quality = {n: v for n, v in alone.metrics.items() if not n.startswith("latency_")}
        assert {n: cmp.results[name].metrics[n] for n in quality} == quality
        assert [c.values for c in cmp.results[name].cases] == [c.values for c in alone.cases]
        for metric in cmp.metrics:
            assert cmp.row(name, metric).value == alone.metrics[metric]


def test_p_values_are_the_gates_one_sided_test_holm_across_systems(cmp: Comparison) -> None:
    """The baseline gate's question, asked the same way: one-sided in the direction of the
    change (``stats.directions``), then Holm across the systems."""
    reference = cmp.results["bm25"]
    for metric in cmp.metrics:
        raw = []
        for name in OTHERS:
            result = cmp.results[name]
            before = [reference.per_case(metric)[c] for c in reference.per_case(metric)]
            after = [result.per_case(metric)[c] for c in reference.per_case(metric)]
            drop = sum(after) < sum(before)
            test = paired_test(before, after, alternative="less" if drop else "greater")
            row = cmp.row(name, metric)
            assert row.p_value == test.p_value
            assert row.delta == test.mean_delta
            assert row.n == N
            raw.append(test.p_value)
        adjusted = holm(raw)
        assert [cmp.row(n, metric).p_holm for n in OTHERS] == adjusted
    # Holm decides here: p = 1/32 alone would be significant at 0.05, corrected it is not
    for name in ("almost", "nudge"):
        row = cmp.row(name, "mrr@5")
        assert row.p_value == pytest.approx(1 / 32)
        assert row.p_holm == pytest.approx(2 / 32)
        assert row.marker == ""
    assert cmp.test == (
        "one-sided paired sign-flip test in the direction of the change (as the baseline "
        "gate), Holm-corrected over 4 systems"
    )
    assert cmp.to_dict()["test"] == cmp.test
    assert f"p ≤ 0.05, {cmp.test})" in str(cmp).splitlines()[-1]
    assert "one-sided" in (type(cmp).better.__doc__ or "")


def test_markers_wins_ties_losses_and_better(cmp: Comparison) -> None:
    assert cmp.row("hybrid", "mrr@5").marker == "win"
    assert cmp.row("dense", "mrr@5").marker == "loss"
    assert cmp.row("almost", "mrr@5").marker == ""
    assert cmp.row("bm25", "mrr@5").marker == ""
    # hybrid: 20 cases first (win), 10 cases third (loss: 1/3 < 1/2); recall@1: 20 wins, 10 ties
    row = cmp.row("hybrid", "mrr@5")
    assert (row.wins, row.ties, row.losses) == (20, 0, 10)
    row = cmp.row("hybrid", "recall@1")
    assert (row.wins, row.ties, row.losses) == (20, 10, 0)
    row = cmp.row("almost", "mrr")  # "mrr" takes the run's k
    assert (row.wins, row.ties, row.losses) == (5, 25, 0)

    assert cmp.better("hybrid", "bm25", "mrr@5")
    assert not cmp.better("bm25", "hybrid", "mrr@5")
    assert cmp.better("bm25", "dense", "ndcg@5")
    assert not cmp.better("almost", "bm25", "mrr@5")  # better on average, not significantly
    assert cmp.better("hybrid", "dense", "mrr@5")  # neither is the reference: a direct test
    assert not cmp.better("dense", "hybrid", "mrr@5")
    assert not cmp.better("hybrid", "hybrid", "mrr@5")


def test_without_significance_better_compares_means() -> None:
    cmp = compare({"bm25": bm25, "almost": almost}, CASES, k=5, metrics=["mrr"], significance=None)
    assert cmp.better("almost", "bm25", "mrr@5")
    assert cmp.row("almost", "mrr@5").marker == ""
    assert "means only" in cmp.table()


def test_the_table_prints_every_system_and_metric(cmp: Comparison) -> None:
    text = str(cmp)
    lines = text.splitlines()
    assert lines[0] == "<cases> (30 cases, k=5): 5 systems against bm25"
    assert lines[1].split() == ["metric", "bm25", "(reference)", *OTHERS]
    mrr = next(line for line in lines if line.startswith("mrr@5"))
    assert "0.500" in mrr
    assert "0.778 ▲ +0.278 p<0.001 20/0/10" in mrr
    assert "▼ −0.250" in mrr
    assert "Holm-corrected over 4 systems); Δ, p and wins/ties/losses" in lines[-1]


def test_to_pandas_round_trips_the_per_case_values(cmp: Comparison) -> None:
    result = cmp.results["hybrid"]
    frame = result.to_pandas()
    assert list(frame.columns) == [
        "id",
        "query",
        "tags",
        "status",
        "latency_ms",
        "error",
        "mrr@5",
        "recall@1",
        "ndcg@5",
    ]
    assert list(frame["id"]) == [c.id for c in result.cases]
    for metric in cmp.metrics:
        assert dict(zip(frame["id"], frame[metric], strict=True)) == result.per_case(metric)
    assert list(frame["latency_ms"]) == [c.latency_ms for c in result.cases]

    summary = cmp.to_pandas()
    assert len(summary) == 5 * len(cmp.metrics)
    row = summary[(summary.system == "hybrid") & (summary.metric == "mrr@5")].iloc[0]
    assert (row.wins, row.ties, row.losses, row.marker) == (20, 0, 10, "win")
    assert row.p_holm == cmp.row("hybrid", "mrr@5").p_holm

    per_case = cmp.to_pandas(per_case=True)
    assert len(per_case) == 5 * N
    dense_rows = per_case[per_case.system == "dense"]
    assert dict(zip(dense_rows["id"], dense_rows["ndcg@5"], strict=True)) == cmp.results[
        "dense"
    ].per_case("ndcg@5")


def test_a_frame_keeps_cases_without_values_as_nan() -> None:
    def flaky(query: str) -> list[str]:
        if query == "query 3":
            raise RuntimeError("index offline")
        return bm25(query)

    result = evaluate(flaky, CASES, k=5, metrics=["mrr"])
    frame = result.to_pandas().set_index("id")
    assert frame.loc["q3", "status"] == "error"
    assert "index offline" in frame.loc["q3", "error"]
    assert math.isnan(frame.loc["q3", "mrr@5"])
    assert frame.loc["q2", "mrr@5"] == 0.5
    assert isinstance(frame, pd.DataFrame)


def test_to_json_is_to_dict_as_text(cmp: Comparison) -> None:
    result = cmp.results["bm25"]
    assert json.loads(result.to_json()) == json.loads(json.dumps(result.to_dict()))
    assert json.loads(json.dumps(cmp.to_dict()))["reference"] == "bm25"


@pytest.mark.parametrize(
    ("retrievers", "message"),
    [
        ({"only": bm25}, "compare() needs at least two retrievers, got 1: only"),
        ([bm25, dense], "compare() takes a dict of named retrievers"),
        ({"": bm25, "b": dense}, "retriever names must be non-empty strings"),
    ],
)
def test_bad_systems_are_clear_errors(retrievers: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        compare(retrievers, CASES, k=5)  # type: ignore[arg-type]


def test_bad_significance_and_unknown_names(cmp: Comparison) -> None:
    with pytest.raises(ConfigError, match="significance must be a level between 0 and 1"):
        compare({"a": bm25, "b": dense}, CASES, significance=5)
    with pytest.raises(KeyError, match="no system 'hybird' \\(did you mean 'hybrid'\\?\\)"):
        cmp.better("hybird", "bm25", "mrr")
    with pytest.raises(KeyError, match="metric 'map' is not in this comparison"):
        cmp.row("bm25", "map")


def test_the_package_name_is_the_function_whatever_was_imported_before() -> None:
    import pytest_ragcheck
    import pytest_ragcheck.gate.against_baseline

    assert pytest_ragcheck.compare is compare
    assert compare.__module__ == "pytest_ragcheck.evaluation.api"
