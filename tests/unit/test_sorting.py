"""Natural order for case ids and tags: ``q2`` before ``q10``."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_ragcheck.baseline.document import BaselineDoc
from pytest_ragcheck.common.sorting import natural_key, natural_order, natural_sorted


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


_SHAPES: list[Callable[[random.Random], str]] = [
    lambda rng: f"case-{rng.randrange(10**6):06d}",
    lambda rng: f"case-{rng.randrange(10**5)}",
    lambda rng: f"q{rng.randrange(1000)}",
    lambda rng: f"{rng.choice('ab')}{rng.randrange(100):02d}",
    lambda rng: f"c{rng.choice('aé1')}{rng.randrange(10)}",
    lambda rng: f"x{rng.choice(['٣', '3', 'ü', 'z'])}{rng.randrange(10)}",
    lambda rng: rng.choice(
        ["case-ü", 'say "hi"', "back\\slash", "tab\there", "日本", "q1", "q10", "q2", ""]
    ),
]


@pytest.mark.parametrize("seed", range(40))
def test_natural_order_is_natural_sorted_with_any_hint(seed: int) -> None:
    """The quick paths of ``natural_order`` (one id shape, a hint already in order) give
    exactly ``natural_sorted``, for ids of one shape and of mixed shapes."""
    rng = random.Random(seed)
    for shapes in ([rng.choice(_SHAPES)], _SHAPES):
        ids = {rng.choice(shapes)(rng): 0 for _ in range(rng.randrange(1, 200))}
        expected = natural_sorted(list(ids))
        hinted = dict.fromkeys(expected)
        for given_ids in (ids, set(ids), list(ids)):
            assert natural_order(given_ids) == expected
            assert natural_order(given_ids, hint=ids) == expected
            assert natural_order(given_ids, hint=hinted) == expected
            assert natural_order(given_ids, hint=expected) == expected
            assert natural_order(given_ids, hint=sorted(ids, reverse=True)) == expected
