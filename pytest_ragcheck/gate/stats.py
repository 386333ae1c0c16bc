"""Paired significance for baseline comparisons: sign-flip test and bootstrap CI.

A golden set is small and its per-case scores are lumpy (MRR is 1, 1/2, 1/3...), so an
aggregate can move by more than the tolerance because two cases swapped ranks. The same cases
are scored before and after a change, so the natural question is paired: is the mean per-case
difference ``after - before`` different from 0?

* p-value: a paired **randomisation (sign-flip) test**. Under "no change" each case's
  difference is as likely to be ``+d`` as ``-d``, so the observed sum is compared with the sums
  of every sign pattern (exactly, when at most ``EXACT_MAX_CASES`` cases changed) or of
  ``resamples`` random patterns (Monte Carlo, p = (1 + hits) / (1 + resamples)).
* Confidence interval: a **paired percentile bootstrap** of the mean difference (cases resampled
  with replacement).
* Sets too large for ``DEFAULT_RESAMPLES`` resamples within the draw budget (over 4,000 cases)
  use the normal approximation of both, which is excellent at that size.

Both are seeded (same inputs -> same numbers, on every run and machine with the same numpy),
vectorised, and computed for many metrics at once on the same resampling draws. Pure: numpy
only, no pytest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np
import numpy.typing as npt

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "EXACT_MAX_CASES",
    "TEST_NAME",
    "Alternative",
    "PairedTest",
    "detectable_drop",
    "directions",
    "holm",
    "paired_test",
    "paired_tests",
]

Alternative = Literal["less", "greater", "two-sided"]
FloatArray = npt.NDArray[np.float64]

#: Random sign patterns / bootstrap resamples when exact enumeration is too big.
DEFAULT_RESAMPLES = 10_000
#: Fixed seed: a regression gate must give the same answer on every run.
DEFAULT_SEED = 20_240_601
#: Enumerate all 2**n sign patterns when at most this many cases changed (65,536 patterns).
EXACT_MAX_CASES = 16
#: Upper bound on random draws per resampling method; larger sets use fewer resamples.
_DRAW_BUDGET = 4_000_000
#: Fewer resamples than this would be too coarse: such large sets (over 4,000 cases) use the
#: normal approximation of both the sign-flip statistic and the mean, which is excellent there.
_MIN_RESAMPLES = 1_000
#: Rows of random draws generated at once (bounds memory to a few tens of MB).
_CHUNK_CELLS = 2_000_000


@dataclass(frozen=True, slots=True)
class PairedTest:
    """The paired comparison of one metric: ``after - before`` over the same cases."""

    #: Mean of the per-case differences (``after - before``).
    mean_delta: float
    #: p-value of the sign-flip test for ``alternative``.
    p_value: float
    #: Bootstrap confidence interval of ``mean_delta``.
    ci: tuple[float, float]
    #: Number of paired cases, and how many of them changed.
    n: int
    n_changed: int
    alternative: Alternative
    #: ``"exact sign-flip"`` or ``"sign-flip, N resamples"``.
    method: str
    #: The smallest p-value this test could give with these cases (``2**-n_changed`` when
    #: exact): a significance level below it can never be reached.
    min_p_value: float


#: The question the baseline gate and ``compare()`` both ask of two sides: is one worse (or
#: better) than the other, each direction its own one-sided question at the level.
TEST_NAME = "one-sided paired sign-flip test"
#: Sums of differences closer to 0 than this are no change (float noise of equal scores).
_NO_CHANGE = 1e-9


def directions(sums: Sequence[float] | npt.ArrayLike) -> list[Alternative]:
    """Each metric's one-sided alternative: the direction of its observed change (the sum of
    ``after - before``), so a drop asks "is it worse?" and a gain "is it better?";
    ``"two-sided"`` (p = 1) for no change. The baseline gate and ``compare()`` both use it."""
    return [
        "less" if d < -_NO_CHANGE else "greater" if d > _NO_CHANGE else "two-sided"
        for d in np.asarray(sums, dtype=np.float64).ravel().tolist()
    ]


def _resamples_for(n: int, resamples: int) -> int:
    return max(1, min(resamples, _DRAW_BUDGET // max(n, 1)))


def _use_normal(n: int, resamples: int) -> bool:
    return _resamples_for(n, resamples) < min(resamples, _MIN_RESAMPLES)


def _chunks(total: int, width: int) -> list[int]:
    rows = max(1, _CHUNK_CELLS // max(width, 1))
    sizes = [rows] * (total // rows)
    if total % rows:
        sizes.append(total % rows)
    return sizes


def _sign_flip(
    diffs: FloatArray, *, resamples: int, rng: np.random.Generator
) -> tuple[FloatArray, FloatArray, str, float]:
    """Fractions of sign patterns with a sum <= / >= the observed one, per column.

    Returns ``(p_less, p_greater, method, min_p)``. Rows that are zero in every column are
    dropped first: they do not move any sum, so the test is the same without them.
    """
    changed = diffs[np.any(diffs != 0.0, axis=1)]
    m = changed.shape[0]
    columns = diffs.shape[1]
    if m == 0:
        ones = np.ones(columns)
        return ones, ones, "exact sign-flip", 1.0
    observed = changed.sum(axis=0)
    # Sums of lumpy scores tie often; count a pattern as "as extreme" up to rounding noise.
    eps = 1e-9 * np.maximum(1.0, np.abs(changed).sum(axis=0))
    if m <= EXACT_MAX_CASES:
        patterns = ((np.arange(2**m)[:, None] >> np.arange(m)[None, :]) & 1) * 2.0 - 1.0
        sums = patterns @ changed
        p_less = np.mean(sums <= observed + eps, axis=0)
        p_greater = np.mean(sums >= observed - eps, axis=0)
        return p_less, p_greater, "exact sign-flip", 2.0**-m
    if _use_normal(m, resamples):
        # Under H0 the sum of sign-flipped differences has mean 0 and variance sum(d**2).
        # A metric no case changed (others did) has sum 0 over variance 0: z 0, not 0/0 (a
        # RuntimeWarning, an error under ``filterwarnings = error``); its p is 1 below.
        variance = np.sum(changed**2, axis=0)
        z = observed / np.sqrt(np.where(variance > 0.0, variance, 1.0))
        cdf = np.array([NormalDist().cdf(float(v)) for v in z])
        return cdf, 1.0 - cdf, "sign-flip, normal approximation", 0.0
    draws = _resamples_for(m, resamples)
    below = np.zeros(columns)
    above = np.zeros(columns)
    for size in _chunks(draws, m):
        signs = rng.integers(0, 2, size=(size, m), dtype=np.int8).astype(np.float64) * 2.0 - 1.0
        sums = signs @ changed
        below += np.sum(sums <= observed + eps, axis=0)
        above += np.sum(sums >= observed - eps, axis=0)
    # The observed pattern counts as one of the draws (Phipson & Smyth): p is never 0.
    p_less = (below + 1.0) / (draws + 1.0)
    p_greater = (above + 1.0) / (draws + 1.0)
    return p_less, p_greater, f"sign-flip, {draws} resamples", 1.0 / (draws + 1.0)


def _bootstrap_ci(
    diffs: FloatArray, *, confidence: float, resamples: int, rng: np.random.Generator
) -> FloatArray:
    """Percentile bootstrap interval of the column means; shape ``(2, columns)``."""
    n = diffs.shape[0]
    if n == 1 or not np.any(diffs != diffs[0]):
        # Every resample has the same mean: the interval is a point.
        return np.vstack([diffs[0], diffs[0]]).astype(np.float64)
    alpha = (1.0 - confidence) / 2.0
    if _use_normal(n, resamples):
        center = diffs.mean(axis=0)
        half = NormalDist().inv_cdf(1.0 - alpha) * diffs.std(axis=0, ddof=1) / np.sqrt(n)
        return np.vstack([center - half, center + half])
    draws = _resamples_for(n, resamples)
    means = np.empty((draws, diffs.shape[1]))
    start = 0
    for size in _chunks(draws, n):
        picks = rng.integers(0, n, size=(size, n))
        offsets = (np.arange(size) * n)[:, None]
        counts = np.bincount((picks + offsets).ravel(), minlength=size * n)
        means[start : start + size] = (counts.reshape(size, n).astype(np.float64) @ diffs) / n
        start += size
    bounds: FloatArray = np.quantile(means, [alpha, 1.0 - alpha], axis=0)
    return bounds


def paired_tests(
    before: npt.ArrayLike,
    after: npt.ArrayLike,
    *,
    alternatives: Sequence[Alternative] | Alternative = "two-sided",
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> list[PairedTest]:
    """Paired tests for several metrics at once.

    ``before`` and ``after`` are ``(cases, metrics)`` arrays (or 1-D for one metric) with the
    rows in the same case order. ``alternatives`` gives, per metric, the direction the test
    looks for: ``"less"`` (after < before), ``"greater"`` or ``"two-sided"``.
    """
    b = np.asarray(before, dtype=np.float64)
    a = np.asarray(after, dtype=np.float64)
    if b.ndim == 1:
        b = b[:, None]
    if a.ndim == 1:
        a = a[:, None]
    if b.shape != a.shape or b.ndim != 2:
        raise ValueError(f"before and after must have the same shape, got {b.shape} and {a.shape}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("paired test: values must be finite (no NaN or inf)")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples!r}")
    n, columns = b.shape
    directions: list[Alternative] = (
        [alternatives] * columns if isinstance(alternatives, str) else list(alternatives)
    )
    if len(directions) != columns:
        raise ValueError(f"{len(directions)} alternatives for {columns} metrics")
    for direction in directions:
        if direction not in ("less", "greater", "two-sided"):
            raise ValueError(
                f"alternative must be 'less', 'greater' or 'two-sided', got {direction!r}"
            )
    if n == 0:
        return [PairedTest(0.0, 1.0, (0.0, 0.0), 0, 0, d, "no cases", 1.0) for d in directions]

    diffs = a - b
    rng = np.random.default_rng(seed)
    p_less, p_greater, method, min_p = _sign_flip(diffs, resamples=resamples, rng=rng)
    ci = _bootstrap_ci(diffs, confidence=confidence, resamples=resamples, rng=rng)
    means = diffs.mean(axis=0)
    changed = np.sum(diffs != 0.0, axis=0)
    tests: list[PairedTest] = []
    for j, direction in enumerate(directions):
        if direction == "less":
            p = float(p_less[j])
        elif direction == "greater":
            p = float(p_greater[j])
        else:
            p = min(1.0, 2.0 * min(float(p_less[j]), float(p_greater[j])))
        n_changed = int(changed[j])
        if n_changed == 0:
            p = 1.0
        floor = 2.0**-n_changed if method == "exact sign-flip" else min_p
        column_min_p = floor if direction != "two-sided" else min(1.0, 2.0 * floor)
        tests.append(
            PairedTest(
                mean_delta=_clean(float(means[j])),
                p_value=min(1.0, p),
                ci=(_clean(float(ci[0, j])), _clean(float(ci[1, j]))),
                n=n,
                n_changed=n_changed,
                alternative=direction,
                method=method,
                min_p_value=column_min_p if n_changed else 1.0,
            )
        )
    return tests


def paired_test(
    before: Sequence[float] | npt.ArrayLike,
    after: Sequence[float] | npt.ArrayLike,
    *,
    alternative: Alternative = "two-sided",
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> PairedTest:
    """One metric: the sign-flip p-value and bootstrap CI of ``mean(after - before)``."""
    b = np.asarray(before, dtype=np.float64)
    a = np.asarray(after, dtype=np.float64)
    if b.ndim != 1 or a.ndim != 1:
        raise ValueError("paired_test takes two 1-D sequences; use paired_tests for a matrix")
    return paired_tests(
        b, a, alternatives=alternative, resamples=resamples, confidence=confidence, seed=seed
    )[0]


def _clean(value: float) -> float:
    """Drop float noise (1e-17) so that reports show 0.0 for no change."""
    cleaned = round(value, 12)
    return 0.0 if cleaned == 0.0 else cleaned


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in input order: compare each with the level as it is.

    The smallest p-value is multiplied by ``m``, the next by ``m - 1``..., each kept at least
    as large as the one before (step-down), so the chance of any false alarm over the ``m``
    tests stays at most the level.
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    adjusted = [1.0] * m
    running = 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (m - step) * p_values[i]))
        adjusted[i] = running
    return adjusted


#: Power assumed by :func:`detectable_drop`.
DETECTION_POWER = 0.8


def detectable_drop(values: Sequence[float], *, level: float) -> float | None:
    """The smallest drop of the mean a paired test on these cases detects reliably.

    A power analysis from the baseline's per-case values: with ``n`` cases whose values have
    standard deviation ``s``, a one-sided test at ``level`` detects a drop of
    ``(z[1 - level] + z[power]) * s / sqrt(n)`` with 80 % power, taking ``s`` as the size of
    the per-case differences a real change brings (cases move about as much as they vary
    across the set). ``None`` when fewer than ``ceil(log2(1 / level))`` cases exist: the
    sign-flip test then cannot reach ``level`` at all; ``None`` too when every case has the
    same value, which leaves nothing to size a change by (it is not "any drop").
    """
    n = len(values)
    if n == 0 or 2.0**-n > level:
        return None
    data = np.asarray(values, dtype=np.float64)
    if n < 2 or data.min() == data.max():  # np.std of equal values can be ~1e-17, not 0
        return None
    spread = float(np.std(data, ddof=1))
    z = NormalDist().inv_cdf
    return (z(1.0 - level) + z(DETECTION_POWER)) * spread / float(np.sqrt(n))
