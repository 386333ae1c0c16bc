"""Agreement between two raters on ordered categories: Cohen's kappa, weighted, with its error.

Pure Python (no numpy) over a confusion matrix ``m[i][j]`` = number of items rater A put in
category ``i`` and rater B in category ``j`` (here A = the people, B = the judge).

With cell shares ``p_ij = m_ij / n``, margins ``p_i.`` and ``p_.j`` and agreement weights
``w_ij`` (1 on the diagonal, 0 elsewhere for plain kappa; ``1 - (i - j)² / (c - 1)²`` over
``c`` categories for quadratic weighted kappa, as scikit-learn's
``cohen_kappa_score(..., weights="quadratic")``)::

    p_o = Σ w_ij p_ij        p_e = Σ w_ij p_i. p_.j        κ = (p_o - p_e) / (1 - p_e)

The standard error is the large-sample one of Fleiss, Cohen & Everitt (1969, "Large sample
standard errors of kappa and weighted kappa"), which holds for any true κ (not only κ = 0)::

    var(κ) = [Σ p_ij (w_ij - (w̄_i. + w̄_.j)(1 - κ))² - (κ - p_e (1 - κ))²] / (n (1 - p_e)²)

with ``w̄_i. = Σ_j p_.j w_ij`` and ``w̄_.j = Σ_i p_i. w_ij``; the 95 % confidence interval is
``κ ± 1.96 · SE``, clipped to [-1, 1]. It is an asymptotic interval: with a few dozen pairs it
is a rough guide, which is one more reason to label more than that.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any, Literal

__all__ = ["Kappa", "Weights", "cohen_kappa", "kappa_fields"]

Weights = Literal["none", "quadratic"]

#: The two-sided 95 % normal quantile (1.959964...).
Z95 = NormalDist().inv_cdf(0.975)


@dataclass(frozen=True, slots=True)
class Kappa:
    """κ with its large-sample standard error and 95 % confidence interval."""

    value: float
    se: float
    ci: tuple[float, float]
    #: Observed and chance-expected (weighted) agreement.
    observed: float
    expected: float


def _weights(c: int, kind: Weights) -> list[list[float]]:
    if kind == "none":
        return [[1.0 if i == j else 0.0 for j in range(c)] for i in range(c)]
    span = (c - 1) ** 2
    return [[1.0 - (i - j) ** 2 / span for j in range(c)] for i in range(c)]


def cohen_kappa(matrix: Sequence[Sequence[int]], *, weights: Weights = "none") -> Kappa | None:
    """κ of a square confusion matrix, or ``None`` when it is undefined.

    Undefined: no item at all, or chance alone explains every agreement (``p_e = 1``: both
    raters used a single, identical category). Callers that want a reason say which.
    """
    c = len(matrix)
    if c < 2 or any(len(row) != c for row in matrix):
        raise ValueError(f"a confusion matrix must be square with >= 2 categories, got {matrix!r}")
    n = sum(sum(row) for row in matrix)
    if n == 0:
        return None
    p = [[cell / n for cell in row] for row in matrix]
    rows = [sum(row) for row in p]
    cols = [sum(p[i][j] for i in range(c)) for j in range(c)]
    w = _weights(c, weights)
    observed = math.fsum(w[i][j] * p[i][j] for i in range(c) for j in range(c))
    expected = math.fsum(w[i][j] * rows[i] * cols[j] for i in range(c) for j in range(c))
    if expected >= 1.0 - 1e-12:
        return None
    value = (observed - expected) / (1.0 - expected)
    w_row = [math.fsum(cols[j] * w[i][j] for j in range(c)) for i in range(c)]
    w_col = [math.fsum(rows[i] * w[i][j] for i in range(c)) for j in range(c)]
    spread = math.fsum(
        p[i][j] * (w[i][j] - (w_row[i] + w_col[j]) * (1.0 - value)) ** 2
        for i in range(c)
        for j in range(c)
    )
    variance = (spread - (value - expected * (1.0 - value)) ** 2) / (n * (1.0 - expected) ** 2)
    se = math.sqrt(max(variance, 0.0))
    ci = (max(-1.0, value - Z95 * se), min(1.0, value + Z95 * se))
    return Kappa(value=value, se=se, ci=ci, observed=observed, expected=expected)


def kappa_fields(kappa: Kappa | None, reason: str) -> dict[str, Any]:
    """κ as the reports carry it: value, standard error, interval, or why it is undefined."""
    if kappa is None:
        return {
            "kappa": None,
            "se": None,
            "ci": None,
            "undefined": reason or "chance explains every agreement",
        }
    return {"kappa": kappa.value, "se": kappa.se, "ci": list(kappa.ci), "undefined": None}
