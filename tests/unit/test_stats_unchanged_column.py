"""The normal approximation (thousands of changed cases) with a metric no case changed."""

from __future__ import annotations

import warnings

import numpy as np

from pytest_ragcheck.gate.stats import paired_tests


def test_a_metric_no_case_changed_beside_one_that_did() -> None:
    rng = np.random.default_rng(7)
    n = 6_000  # above the resampling budget: the normal approximation
    before = np.column_stack([rng.random(n), np.full(n, 0.5)])
    after = before.copy()
    after[:, 0] -= 0.01 + 0.01 * rng.random(n)  # every case of the first metric dropped
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 0/0 was a RuntimeWarning
        moved, same = paired_tests(before, after, alternatives="less")
    assert moved.method == "sign-flip, normal approximation"
    assert moved.p_value < 1e-6
    assert same.n_changed == 0
    assert same.p_value == 1.0
    assert same.mean_delta == 0.0
