"""The judge metrics' formulas (docs/judge.md, "Metrics"), against hand-computed values and
brute force."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_ragcheck.judge import scoring


def test_fraction_yes() -> None:
    assert scoring.fraction_yes([True, False, True, False]) == 0.5
    assert scoring.fraction_yes([False, False]) == 0.0
    assert scoring.fraction_yes([]) == 0.0


def test_average_precision_hand_computed() -> None:
    # yes at ranks 1 and 3: (1/1 + 2/3) / 2
    assert scoring.average_precision([True, False, True]) == pytest.approx((1 + 2 / 3) / 2)
    # yes only at rank 2: P@2 = 1/2
    assert scoring.average_precision([False, True, False]) == pytest.approx(0.5)
    assert scoring.average_precision([True, True]) == 1.0


def test_average_precision_is_zero_without_yes() -> None:
    assert scoring.average_precision([False, False, False]) == 0.0
    assert scoring.average_precision([]) == 0.0


@given(st.lists(st.booleans(), max_size=30))
def test_average_precision_matches_its_definition(verdicts: list[bool]) -> None:
    yes = sum(verdicts)
    expected = (
        sum(
            (sum(verdicts[: i + 1]) / (i + 1)) * v
            for i, v in enumerate(verdicts)  # Σ_i P@i·v_i
        )
        / yes
        if yes
        else 0.0
    )
    assert scoring.average_precision(verdicts) == pytest.approx(expected)


def test_graded_ndcg_hand_computed() -> None:
    grades = [1, 3, 0, 2]
    dcg = 1 / math.log2(2) + 3 / math.log2(3) + 0 + 2 / math.log2(5)
    ideal = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4) + 0
    assert scoring.graded_ndcg(grades) == pytest.approx(dcg / ideal)
    assert scoring.graded_ndcg([3, 2, 1, 0]) == pytest.approx(1.0)


def test_graded_ndcg_is_zero_when_every_grade_is_zero() -> None:
    assert scoring.graded_ndcg([0, 0, 0]) == 0.0
    assert scoring.graded_ndcg([]) == 0.0


@given(st.lists(st.integers(min_value=0, max_value=3), min_size=1, max_size=20))
def test_graded_ndcg_is_between_0_and_1(grades: list[int]) -> None:
    value = scoring.graded_ndcg(grades)
    assert 0.0 <= value <= 1.0 + 1e-12
    if any(grades):
        assert scoring.graded_ndcg(sorted(grades, reverse=True)) == pytest.approx(1.0)


def test_mean_and_recall() -> None:
    assert scoring.mean([0.25, 0.75, 0.5]) == pytest.approx(0.5)
    assert scoring.mean([]) == 0.0
    assert scoring.recall_of_claims([True, False, True, True]) == 0.75
    with pytest.raises(ValueError, match="no claims"):
        scoring.recall_of_claims([])


def test_majority_needs_a_strict_majority() -> None:
    assert scoring.majority([True, True, False]) is True
    assert scoring.majority([True, False, False]) is False
    assert scoring.majority([True, False]) is False  # a tie is "no"


def test_spread() -> None:
    assert scoring.spread([1.0, 0.0, 1.0]) == 1.0
    assert scoring.spread([2.0, 2.0]) == 0.0
    assert scoring.spread([0.2, 0.5, 0.3]) == pytest.approx(0.3)
