"""The pure metric functions: hand-worked examples, conventions, bad input, latency percentiles.

The expected values are derived by hand from the definitions (docs/metrics.md) and written as the
arithmetic that produces them, so a reader can check every number.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from pytest_ragcheck import metrics as m
from pytest_ragcheck.metrics.names import RANK_METRICS

ALL = [m.metric_function(name) for name in RANK_METRICS]
log2 = math.log2

# One worked example used by most tests below.
#   rank:   1    2    3    4    5
#   doc:    a    b    c    d    e          judged: a=0, b=2, c=0, d=1, x=3 (x not retrieved)
#   grade:  0    2    0    1    -          relevant (grade >= 1): b, d, x  ->  R = 3
RETRIEVED = ["a", "b", "c", "d", "e"]
GRADES = {"a": 0, "b": 2, "c": 0, "d": 1, "x": 3}


@pytest.mark.parametrize(
    ("fn", "k", "expected"),
    [
        (m.hit_rate, 1, 0.0),
        (m.hit_rate, 2, 1.0),
        (m.hit_rate, None, 1.0),
        (m.mrr, 1, 0.0),
        (m.mrr, 5, 1 / 2),
        (m.mrr, None, 1 / 2),
        (m.mrr_granular, 3, (1 / 2) / 1),
        (m.mrr_granular, 5, (1 / 2 + 1 / 4) / 2),
        (m.mrr_granular, 1, 0.0),
        (m.hit_rate_granular, 5, 2 / 3),
        (m.hit_rate_granular, 2, 1 / 3),
        (m.precision, 3, 1 / 3),
        (m.precision, 5, 2 / 5),
        (m.precision, 10, 2 / 10),  # divides by k even though only 5 were retrieved
        (m.precision, None, 2 / 5),  # whole list: divides by the number retrieved
        (m.recall, 2, 1 / 3),
        (m.recall, 5, 2 / 3),
        (m.recall, None, 2 / 3),
        (m.f1, 5, 2 * (2 / 5) * (2 / 3) / (2 / 5 + 2 / 3)),
        (m.f1, 1, 0.0),
        (m.map, 5, (1 / 2 + 2 / 4) / 3),  # divides by R = 3, not by the relevant retrieved
        (m.map, 3, (1 / 2) / 3),
        (m.map, None, (1 / 2 + 2 / 4) / 3),
        (m.r_precision, None, 1 / 3),  # top R = 3: a, b, c
        (m.r_precision, 1, 1 / 3),  # k is ignored
    ],
)
def test_worked_example(fn, k, expected):
    assert fn(RETRIEVED, GRADES, k) == pytest.approx(expected, rel=1e-15)


def test_ndcg_uses_grade_as_gain_and_all_judged_grades_for_the_ideal():
    dcg = 2 / log2(3) + 1 / log2(5)  # b at rank 2, d at rank 4
    ideal_5 = 3 / log2(2) + 2 / log2(3) + 1 / log2(4)  # x, b, d best first (x not retrieved)
    assert m.ndcg(RETRIEVED, GRADES, 5) == pytest.approx(dcg / ideal_5, rel=1e-15)
    assert m.ndcg(RETRIEVED, GRADES, None) == pytest.approx(dcg / ideal_5, rel=1e-15)
    ideal_2 = 3 / log2(2) + 2 / log2(3)  # the ideal is cut at k too
    assert m.ndcg(RETRIEVED, GRADES, 2) == pytest.approx((2 / log2(3)) / ideal_2, rel=1e-15)
    assert m.ndcg(RETRIEVED, GRADES, 1) == 0.0


def test_ndcg_exp_uses_two_to_the_grade_minus_one():
    dcg = (2**2 - 1) / log2(3) + (2**1 - 1) / log2(5)
    ideal = (2**3 - 1) / log2(2) + (2**2 - 1) / log2(3) + (2**1 - 1) / log2(4)
    assert m.ndcg_exp(RETRIEVED, GRADES, 5) == pytest.approx(dcg / ideal, rel=1e-15)
    # with binary grades both gains coincide
    binary = {"b": 1, "d": 1, "x": 1}
    assert m.ndcg_exp(RETRIEVED, binary, 3) == m.ndcg(RETRIEVED, binary, 3)


def test_perfect_ranking_scores_one_everywhere():
    grades = {"a": 3, "b": 2, "c": 1}
    ranking = ["a", "b", "c", "z"]
    for fn in ALL:
        if fn is m.precision:
            assert fn(ranking, grades, 3) == 1.0
            assert fn(ranking, grades, 4) == 3 / 4
        elif fn is m.mrr_granular:  # the mean of 1/rank over the found docs, by definition
            assert fn(ranking, grades, 3) == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
        else:
            assert fn(ranking, grades, 3) == 1.0, fn.__name__


def test_iterable_of_ids_means_grade_one():
    for fn in ALL:
        for k in (1, 2, 5, None):
            expected = fn(RETRIEVED, {"b": 1, "d": 1, "x": 1}, k)
            assert fn(RETRIEVED, ["b", "d", "x"], k) == expected
            assert fn(RETRIEVED, {"x", "d", "b"}, k) == expected
            assert fn(RETRIEVED, ("b", "d", "x"), k) == expected


@pytest.mark.parametrize("relevance", [{}, {"a": 0, "b": -1}, [], {"zz": 0}])
def test_no_relevant_document_scores_zero(relevance):
    for fn in ALL:
        if fn is m.judged:  # the share of judged documents: grade-0 judgments count too
            continue
        for k in (1, 3, None):
            assert fn(RETRIEVED, relevance, k) == 0.0, fn.__name__


def test_empty_ranking_scores_zero():
    for fn in ALL:
        for k in (1, 10, None):
            assert fn([], GRADES, k) == 0.0, fn.__name__


def test_negative_grades_are_not_relevant_and_not_in_the_ideal():
    with_negative = {"a": -3, "b": 2, "x": -1}
    without = {"b": 2}
    for fn in ALL:
        if fn is m.judged:  # a negative grade is still a judgment
            continue
        for k in (1, 2, 5, None):
            assert fn(RETRIEVED, with_negative, k) == fn(RETRIEVED, without, k), fn.__name__


def test_repeated_id_counts_once_at_its_first_position():
    noisy = ["a", "b", "a", "b", "c", "d", "a", "e"]
    for fn in ALL:
        for k in (1, 2, 3, 4, 5, 8, None):
            assert fn(noisy, GRADES, k) == fn(RETRIEVED, GRADES, k), (fn.__name__, k)


def test_k_larger_than_the_ranking():
    assert m.recall(RETRIEVED, GRADES, 100) == m.recall(RETRIEVED, GRADES, None)
    assert m.ndcg(RETRIEVED, GRADES, 100) == m.ndcg(RETRIEVED, GRADES, None)
    assert m.precision(RETRIEVED, GRADES, 100) == 2 / 100


def test_generators_are_accepted_as_rankings():
    assert m.mrr(iter(RETRIEVED), GRADES, 5) == m.mrr(RETRIEVED, GRADES, 5)


def test_numpy_integer_k_is_accepted():
    for fn in ALL:
        assert fn(RETRIEVED, GRADES, np.int64(3)) == fn(RETRIEVED, GRADES, 3)


def test_numpy_integer_grades_are_accepted():
    grades = {d: np.int64(g) for d, g in GRADES.items()}
    assert m.ndcg(RETRIEVED, grades, 5) == m.ndcg(RETRIEVED, GRADES, 5)


# ---- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [0, -1, -10])
def test_k_below_one_is_rejected(k):
    for fn in ALL:
        with pytest.raises(ValueError, match=rf"k must be an int >= 1 or None.*got {k}"):
            fn(RETRIEVED, GRADES, k)


@pytest.mark.parametrize("k", ["5", 2.0, True, [3]])
def test_k_of_the_wrong_type_is_rejected(k):
    for fn in ALL:
        with pytest.raises(ValueError, match=r"k must be an int >= 1 or None"):
            fn(RETRIEVED, GRADES, k)


def test_non_str_ids_in_the_ranking_are_rejected():
    with pytest.raises(TypeError, match=r"retrieved: document ids must be str, got int 3"):
        m.mrr(["a", 3], GRADES)


def test_non_str_ids_in_the_judgments_are_rejected():
    with pytest.raises(TypeError, match=r"document ids must be str, got int 7"):
        m.mrr(RETRIEVED, {7: 1})
    with pytest.raises(TypeError, match=r"document ids must be str, got int 7"):
        m.recall(RETRIEVED, [7])


@pytest.mark.parametrize("grade", [1.5, 1.0, "2", None])
def test_non_integer_grades_are_rejected(grade):
    with pytest.raises(
        TypeError, match=r"relevance grades must be integers, got .* for document 'b'"
    ):
        m.ndcg(RETRIEVED, {"b": grade})


@pytest.mark.parametrize("ranking", ["abc", b"abc", 42, None])
def test_a_ranking_that_is_not_a_sequence_of_ids_is_rejected(ranking):
    with pytest.raises(TypeError, match=r"retrieved must be a sequence of document ids"):
        m.precision(ranking, GRADES, 3)


def test_a_score_mapping_as_ranking_points_to_evaluate_run():
    with pytest.raises(TypeError, match=r"evaluate_run"):
        m.precision({"a": 1.0, "b": 0.5}, GRADES, 3)


@pytest.mark.parametrize("relevance", ["b", 3, None])
def test_relevance_of_the_wrong_type_is_rejected(relevance):
    with pytest.raises(
        TypeError, match=r"relevance must be a mapping \{id: grade\} or an iterable"
    ):
        m.recall(RETRIEVED, relevance)


def test_ndcg_exp_rejects_grades_beyond_float_range():
    with pytest.raises(ValueError, match=r"grade 2000 is too large"):
        m.ndcg_exp(RETRIEVED, {"b": 2000})
    assert m.ndcg(RETRIEVED, {"b": 2000}) == pytest.approx(1 / log2(3))


# ---- latency --------------------------------------------------------------------------------


def test_latency_percentiles_interpolate_linearly():
    got = m.latency_percentiles([40.0, 10.0, 30.0, 20.0])
    # sorted 10, 20, 30, 40: p50 at position 1.5, p95 at position 2.85
    assert got == {
        "latency_p50_ms": pytest.approx(20 + 0.5 * 10),
        "latency_p95_ms": pytest.approx(30 + 0.85 * 10),
        "latency_max_ms": 40.0,
    }


def test_latency_percentiles_match_numpy_linear_method():
    rng = random.Random(3)
    for n in (1, 2, 3, 7, 100, 1001):
        values = [rng.uniform(0, 500) for _ in range(n)]
        got = m.latency_percentiles(values)
        assert got["latency_p50_ms"] == pytest.approx(np.percentile(values, 50), rel=1e-12)
        assert got["latency_p95_ms"] == pytest.approx(np.percentile(values, 95), rel=1e-12)
        assert got["latency_max_ms"] == max(values)


def test_latency_percentiles_of_nothing_are_zero():
    assert m.latency_percentiles([]) == {
        "latency_p50_ms": 0.0,
        "latency_p95_ms": 0.0,
        "latency_max_ms": 0.0,
    }


def test_latency_percentiles_reject_nan():
    with pytest.raises(ValueError, match="NaN"):
        m.latency_percentiles([1.0, float("nan")])
