"""The paired sign-flip test and the bootstrap CI behind baseline significance."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pytest

from pytest_ragcheck.gate.stats import (
    EXACT_MAX_CASES,
    Alternative,
    PairedTest,
    paired_test,
    paired_tests,
)


def brute_force_p(diffs: list[float], alternative: str) -> float:
    """Enumerate every sign pattern in plain Python (the definition of the exact test)."""
    observed = sum(diffs)
    patterns = list(itertools.product((1, -1), repeat=len(diffs)))
    sums = [sum(s * d for s, d in zip(signs, diffs, strict=True)) for signs in patterns]
    less = sum(1 for t in sums if t <= observed + 1e-12) / len(sums)
    greater = sum(1 for t in sums if t >= observed - 1e-12) / len(sums)
    if alternative == "less":
        return less
    if alternative == "greater":
        return greater
    return min(1.0, 2 * min(less, greater))


def test_one_changed_case_out_of_five_is_a_coin_flip() -> None:
    result = paired_test([1, 1, 1, 1, 1], [0, 1, 1, 1, 1], alternative="less")
    assert result.mean_delta == pytest.approx(-0.2)
    assert result.p_value == pytest.approx(0.5)
    assert result.n == 5
    assert result.n_changed == 1
    assert result.method == "exact sign-flip"
    assert result.min_p_value == pytest.approx(0.5)


def test_every_case_dropping_is_the_most_extreme_pattern() -> None:
    result = paired_test([1.0] * 8, [0.0] * 8, alternative="less")
    assert result.p_value == pytest.approx(2.0**-8)
    assert result.min_p_value == pytest.approx(2.0**-8)
    assert result.ci == (-1.0, -1.0)  # every resample has the same mean


@pytest.mark.parametrize("alternative", ["less", "greater", "two-sided"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_exact_p_value_equals_full_enumeration(alternative: Any, seed: int) -> None:
    rng = np.random.default_rng(seed)
    before = rng.choice([0.0, 1 / 3, 0.5, 1.0], size=9)
    after = rng.choice([0.0, 1 / 3, 0.5, 1.0], size=9)
    result = paired_test(before, after, alternative=alternative)
    diffs = [float(a - b) for a, b in zip(after, before, strict=True) if a != b]
    assert result.method == "exact sign-flip"
    assert result.p_value == pytest.approx(brute_force_p(diffs, alternative))


def test_monte_carlo_p_value_is_close_to_the_exact_one() -> None:
    n = EXACT_MAX_CASES + 2  # just too many changed cases to enumerate
    rng = np.random.default_rng(7)
    before = rng.random(n)
    after = before + rng.normal(-0.05, 0.2, size=n)
    result = paired_test(before, after, alternative="less")
    assert result.method.startswith("sign-flip, ")
    diffs = after - before
    patterns = ((np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1) * 2.0 - 1.0
    exact = float(np.mean(patterns @ diffs <= diffs.sum() + 1e-12))
    assert result.p_value == pytest.approx(exact, abs=0.02)


def test_directions_mirror_each_other() -> None:
    before = [0.2, 0.5, 0.9, 0.1, 0.7, 0.3]
    after = [0.4, 0.5, 0.6, 0.0, 0.9, 0.8]
    less = paired_test(before, after, alternative="less")
    greater_of_mirror = paired_test(after, before, alternative="greater")
    assert less.p_value == pytest.approx(greater_of_mirror.p_value)
    two = paired_test(before, after, alternative="two-sided")
    greater = paired_test(before, after, alternative="greater")
    assert two.p_value == pytest.approx(min(1.0, 2 * min(less.p_value, greater.p_value)))


def test_no_change_is_p_one_with_a_zero_interval() -> None:
    result = paired_test([0.5, 0.25, 1.0], [0.5, 0.25, 1.0], alternative="less")
    assert result.p_value == 1.0
    assert result.ci == (0.0, 0.0)
    assert result.mean_delta == 0.0
    assert result.n_changed == 0


def test_results_are_deterministic_and_seeded() -> None:
    rng = np.random.default_rng(11)
    before = rng.random(200)
    after = before + rng.normal(0.0, 0.1, size=200)
    first = paired_test(before, after, alternative="less")
    again = paired_test(before.copy(), after.copy(), alternative="less")
    assert first == again
    other_seed = paired_test(before, after, alternative="less", seed=5)
    assert other_seed.ci != first.ci  # the seed really drives the resampling


def test_ci_brackets_the_mean_and_matches_the_normal_approximation() -> None:
    rng = np.random.default_rng(3)
    before = rng.random(400)
    diffs = rng.normal(-0.03, 0.1, size=400)
    result = paired_test(before, before + diffs, alternative="less")
    low, high = result.ci
    assert low < result.mean_delta < high
    half = 1.96 * diffs.std(ddof=1) / math.sqrt(400)
    assert low == pytest.approx(diffs.mean() - half, abs=0.002)
    assert high == pytest.approx(diffs.mean() + half, abs=0.002)


def test_a_real_drop_is_significant_and_noise_is_not() -> None:
    rng = np.random.default_rng(9)
    before = rng.random(60)
    drop = paired_test(before, before - 0.1 + rng.normal(0, 0.05, 60), alternative="less")
    noise = paired_test(before, before + rng.normal(0, 0.05, 60), alternative="less")
    assert drop.p_value < 0.001
    assert drop.ci[1] < 0
    assert noise.p_value > 0.05


def test_type_one_error_and_coverage_are_near_nominal() -> None:
    """Under no change, p <= 0.05 about 5% of the time; the 95% CI covers the truth ~95%."""
    rng = np.random.default_rng(2024)
    rejections = 0
    covered = 0
    runs = 150
    for _ in range(runs):
        before = rng.random(40)
        after = before + rng.normal(0.0, 0.1, size=40)
        result = paired_test(before, after, alternative="less", resamples=2000)
        rejections += result.p_value <= 0.05
        covered += result.ci[0] <= 0.0 <= result.ci[1]
    assert rejections / runs <= 0.11
    assert 0.85 <= covered / runs <= 1.0


def test_many_metrics_at_once_match_one_at_a_time() -> None:
    rng = np.random.default_rng(4)
    before = rng.random((30, 3))
    after = before + rng.normal(0.0, 0.1, size=(30, 3))
    together = paired_tests(before, after, alternatives=["less", "greater", "two-sided"])
    assert len(together) == 3
    assert all(isinstance(t, PairedTest) for t in together)
    directions: list[Alternative] = ["less", "greater", "two-sided"]
    for j, alternative in enumerate(directions):
        alone = paired_tests(before[:, j], after[:, j], alternatives=alternative)[0]
        # The sign flips are shared across metrics, so p agrees up to Monte Carlo error.
        assert together[j].p_value == pytest.approx(alone.p_value, abs=0.03)
        assert together[j].mean_delta == pytest.approx(alone.mean_delta)


def test_large_sets_use_the_normal_approximation() -> None:
    rng = np.random.default_rng(5)
    before = rng.random(20_000)
    diffs = rng.normal(-0.002, 0.1, size=20_000)
    result = paired_test(before, before + diffs, alternative="less")
    assert result.method == "sign-flip, normal approximation"
    z = diffs.sum() / math.sqrt(float(np.sum(diffs**2)))
    assert result.p_value == pytest.approx(0.5 * math.erfc(-z / math.sqrt(2)), rel=1e-6)
    half = 1.959964 * diffs.std(ddof=1) / math.sqrt(20_000)
    assert result.ci[0] == pytest.approx(diffs.mean() - half, abs=1e-6)


def test_empty_input_gives_no_evidence() -> None:
    result = paired_test([], [], alternative="less")
    assert result.p_value == 1.0
    assert result.n == 0


@pytest.mark.parametrize(
    ("before", "after", "kwargs", "message"),
    [
        ([1.0, 2.0], [1.0], {}, "same shape"),
        ([1.0, float("nan")], [1.0, 2.0], {}, "finite"),
        ([1.0], [2.0], {"alternative": "lower"}, "alternative must be"),
        ([1.0], [2.0], {"confidence": 1.5}, "confidence must be between 0 and 1"),
        ([1.0], [2.0], {"resamples": 0}, "resamples must be >= 1"),
    ],
)
def test_bad_input_is_a_clear_error(
    before: list[float], after: list[float], kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        paired_test(before, after, **kwargs)
