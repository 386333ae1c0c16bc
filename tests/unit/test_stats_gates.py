"""Holm's correction (``per_tag=True``) and the smallest drop a golden set can detect."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_ragcheck.gate.stats import detectable_drop, holm, paired_test

#: Standard normal quantiles, written out: z[0.95], z[0.99] and z[0.8].
Z95 = 1.6448536269514722
Z99 = 2.3263478740408408
Z80 = 0.8416212335729143


def holm_rejections(p_values: list[float], level: float) -> set[int]:
    """Holm's step-down procedure as defined: reject the k-th smallest p while p ≤ α/(m-k)."""
    order = sorted(range(len(p_values)), key=lambda i: (p_values[i], i))
    rejected: set[int] = set()
    for step, i in enumerate(order):
        if p_values[i] > level / (len(p_values) - step):
            break
        rejected.add(i)
    return rejected


def test_holm_by_hand() -> None:
    # Sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → kept at 0.06.
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    # 0.01·5, 0.02·4, 0.03·3, then 0.04·2 and 0.05·1 are raised to the running maximum.
    assert holm([0.01, 0.02, 0.03, 0.04, 0.05]) == pytest.approx([0.05, 0.08, 0.09, 0.09, 0.09])


def test_holm_rejects_what_the_step_down_procedure_rejects() -> None:
    # The textbook example: at 0.05, the 0.005 and 0.01 hypotheses are rejected, and the
    # procedure stops at 0.03 > 0.05 / 2.
    p = [0.01, 0.04, 0.03, 0.005]
    assert {i for i, q in enumerate(holm(p)) if q <= 0.05} == {0, 3} == holm_rejections(p, 0.05)


def test_holm_edge_cases() -> None:
    assert holm([]) == []
    assert holm([0.03]) == [0.03]  # one test: nothing to correct
    assert holm([0.01, 0.01]) == [0.02, 0.02]  # ties
    assert holm([0.6, 0.9]) == [1.0, 1.0]  # capped at 1


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=12))
def test_holm_properties(p_values: list[float]) -> None:
    adjusted = holm(p_values)
    assert len(adjusted) == len(p_values)
    for raw, adj in zip(p_values, adjusted, strict=True):
        assert raw <= adj <= 1.0
    for i, j in itertools.product(range(len(p_values)), repeat=2):
        if p_values[i] <= p_values[j]:
            assert adjusted[i] <= adjusted[j]
    for level in (0.01, 0.05, 0.1):
        assert {i for i, q in enumerate(adjusted) if q <= level} == holm_rejections(p_values, level)


def test_detectable_drop_by_hand() -> None:
    values = [1.0, 0.0] * 5  # n = 10, s = sqrt(10 · 0.25 / 9)
    s = math.sqrt(2.5 / 9)
    assert detectable_drop(values, level=0.05) == pytest.approx((Z95 + Z80) * s / math.sqrt(10))
    assert detectable_drop(values, level=0.01) == pytest.approx((Z99 + Z80) * s / math.sqrt(10))


def test_detectable_drop_shrinks_with_more_cases() -> None:
    values = [1.0, 0.5, 0.0, 1.0]
    small = detectable_drop(values * 5, level=0.05)
    large = detectable_drop(values * 20, level=0.05)
    assert small is not None
    assert large is not None
    assert large < small
    assert large == pytest.approx(small / 2, rel=0.05)  # about 1/√n


@pytest.mark.parametrize(("level", "needed"), [(0.05, 5), (0.01, 7), (0.2, 3)])
def test_no_figure_when_the_test_cannot_reach_the_level(level: float, needed: int) -> None:
    """With n cases the smallest sign-flip p is 2**-n: fewer than log2(1/level) never reach it."""
    values = [1.0, 0.0] * 10
    assert detectable_drop(values[: needed - 1], level=level) is None
    assert detectable_drop(values[:needed], level=level) is not None


def test_no_figure_without_values_or_without_spread() -> None:
    assert detectable_drop([], level=0.05) is None
    # Every case at 1.0: nothing to size a change by ("0.000" would read as "any drop").
    assert detectable_drop([1.0] * 12, level=0.05) is None


def test_a_drop_of_that_size_is_caught_about_80_percent_of_the_time() -> None:
    """The figure's promise, checked with the gate's own paired test on simulated changes."""
    rng = np.random.default_rng(11)
    before = rng.uniform(0.0, 1.0, size=40)
    drop = detectable_drop(list(before), level=0.05)
    assert drop is not None
    spread = float(np.std(before, ddof=1))
    trials = 200
    caught = 0
    for trial in range(trials):
        after = before + rng.normal(-drop, spread, size=before.size)
        test = paired_test(before, after, alternative="less", resamples=2000, seed=trial)
        caught += test.p_value <= 0.05
    assert 0.7 <= caught / trials <= 0.9
