"""An independent reference for Cohen's kappa and its standard error (tests only).

Written from the paper's notation with numpy, separately from
:mod:`pytest_ragcheck.judge.agreement`: Fleiss, Cohen & Everitt (1969), "Large sample standard
errors of kappa and weighted kappa". scikit-learn's ``cohen_kappa_score`` checks the value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["fleiss_cohen_everitt", "quadratic_weights", "ratings"]


def quadratic_weights(c: int) -> np.ndarray:
    """Agreement weights ``1 - (i - j)² / (c - 1)²``."""
    i, j = np.indices((c, c))
    return 1 - (i - j) ** 2 / (c - 1) ** 2


def fleiss_cohen_everitt(
    matrix: Sequence[Sequence[int]], weights: np.ndarray | None = None
) -> tuple[float, float]:
    """κ and its large-sample standard error (rows: rater A, columns: rater B)."""
    m = np.asarray(matrix, dtype=float)
    w = np.eye(len(m)) if weights is None else weights
    n = m.sum()
    p = m / n
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    p_o = (w * p).sum()
    p_e = (w * np.outer(rows, cols)).sum()
    kappa = (p_o - p_e) / (1 - p_e)
    w_i = w @ cols  # w̄_i. = Σ_j p_.j w_ij
    w_j = rows @ w  # w̄_.j = Σ_i p_i. w_ij
    inner = (p * (w - (w_i[:, None] + w_j[None, :]) * (1 - kappa)) ** 2).sum()
    variance = (inner - (kappa - p_e * (1 - kappa)) ** 2) / (n * (1 - p_e) ** 2)
    return float(kappa), math.sqrt(variance)


def ratings(matrix: Sequence[Sequence[int]]) -> tuple[list[int], list[int]]:
    """The two raters' labels behind a confusion matrix."""
    a: list[int] = []
    b: list[int] = []
    for i, row in enumerate(matrix):
        for j, count in enumerate(row):
            a += [i] * count
            b += [j] * count
    return a, b
