"""Natural order for case ids and tags: ``q2`` before ``q10``."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from pytest_ragcheck.baseline_doc import BaselineDoc
from pytest_ragcheck.sorting import natural_key, natural_sorted


def test_numbers_inside_ids_compare_as_numbers() -> None:
    assert natural_sorted(["q10", "q2", "q1", "q100"]) == ["q1", "q2", "q10", "q100"]
    assert natural_sorted(["10", "9", "100", "2"]) == ["2", "9", "10", "100"]
    assert natural_sorted(["v1.10", "v2.1", "v1.9"]) == ["v1.9", "v1.10", "v2.1"]
    assert natural_sorted(["case-10-a", "case-2-b", "case-2-a"]) == [
        "case-2-a",
        "case-2-b",
        "case-10-a",
    ]


def test_digits_sort_before_letters() -> None:
    assert natural_sorted(["b", "a10", "10", "a9", "9"]) == ["9", "10", "a9", "a10", "b"]


def test_leading_zeros_stay_distinct_and_ordered() -> None:
    for order in itertools.permutations(["q1", "q01", "q001", "q2"]):
        assert natural_sorted(list(order)) == ["q001", "q01", "q1", "q2"]
    assert natural_key("q01") != natural_key("q1")


def test_sets_and_tuples_sort_too() -> None:
    assert natural_sorted({"t10", "t9"}) == ["t9", "t10"]
    assert natural_sorted(("t10", "t9")) == ["t9", "t10"]


@given(st.lists(st.text(alphabet="ab01-9 ", max_size=6), max_size=12))
def test_any_ids_sort_without_error_and_independently_of_input_order(ids: list[str]) -> None:
    ordered = natural_sorted(ids)
    assert sorted(ordered) == sorted(ids)  # a permutation
    assert natural_sorted(list(reversed(ids))) == ordered  # a total order
    assert natural_sorted(ordered) == ordered


def test_baseline_files_list_cases_in_natural_order() -> None:
    ids = ["q10", "q2", "q1"]
    text = BaselineDoc(
        k=10,
        metrics=("mrr@10",),
        n_cases=3,
        golden_hash="g",
        aggregates={"mrr@10": 1.0},
        cases={i: {"mrr@10": 1.0} for i in ids},
        case_hashes=dict.fromkeys(ids, "h"),
        hits={i: ("d",) for i in ids},
    ).to_json()
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith('"q')]
    assert [line.split('"')[1] for line in lines] == ["q1", "q2", "q10"]
