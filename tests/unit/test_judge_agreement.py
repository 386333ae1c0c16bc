"""Cohen's kappa, weighted kappa and their large-sample error, against independent references.

* the value: scikit-learn's ``cohen_kappa_score`` (a dev-only reference), unweighted and
  with quadratic weights, on seeded random confusion matrices;
* the standard error: Fleiss, Cohen & Everitt (1969) written out independently with numpy
  (``tests/kappa_reference.py``), and two values computed with statsmodels' ``cohens_kappa``
  (which implements the same formula) kept as literals, so statsmodels is not a dependency.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from kappa_reference import fleiss_cohen_everitt, quadratic_weights, ratings
from sklearn.metrics import cohen_kappa_score

from pytest_ragcheck.judge.agreement import Z95, cohen_kappa


def _matrices(count: int, size: int, seed: int) -> list[list[list[int]]]:
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        matrix = [[rng.randint(0, 25) for _ in range(size)] for _ in range(size)]
        if cohen_kappa(matrix) is not None:
            found.append(matrix)
    return found


def test_binary_kappa_equals_sklearn_and_the_1969_standard_error():
    for matrix in _matrices(100, 2, seed=1):
        ours = cohen_kappa(matrix)
        assert ours is not None
        reference = cohen_kappa_score(*ratings(matrix))
        assert ours.value == pytest.approx(reference, abs=1e-12), matrix
        kappa, se = fleiss_cohen_everitt(matrix, np.eye(2))
        assert ours.value == pytest.approx(kappa, abs=1e-12), matrix
        assert ours.se == pytest.approx(se, abs=1e-12), matrix
        low, high = ours.ci
        assert low == pytest.approx(max(-1.0, kappa - Z95 * se), abs=1e-12), matrix
        assert high == pytest.approx(min(1.0, kappa + Z95 * se), abs=1e-12), matrix


def test_quadratic_weighted_kappa_equals_sklearn_and_the_1969_standard_error():
    for matrix in _matrices(100, 4, seed=2):
        ours = cohen_kappa(matrix, weights="quadratic")
        assert ours is not None
        reference = cohen_kappa_score(*ratings(matrix), labels=[0, 1, 2, 3], weights="quadratic")
        assert ours.value == pytest.approx(reference, abs=1e-12), matrix
        kappa, se = fleiss_cohen_everitt(matrix, quadratic_weights(4))
        assert ours.value == pytest.approx(kappa, abs=1e-12), matrix
        assert ours.se == pytest.approx(se, abs=1e-12), matrix


def test_standard_errors_equal_statsmodels_on_two_tables():
    """statsmodels.stats.inter_rater.cohens_kappa(table, wt=...) computed these values."""
    plain = cohen_kappa([[20, 5], [10, 15]])
    assert plain is not None
    assert plain.value == pytest.approx(0.4, abs=1e-12)
    assert plain.se == pytest.approx(0.12699606293110033, abs=1e-12)
    assert plain.ci == pytest.approx((0.151092290476661, 0.6489077095233389), abs=1e-12)
    table = [[11, 3, 1, 0], [2, 9, 4, 1], [0, 3, 8, 2], [0, 1, 2, 6]]
    weighted = cohen_kappa(table, weights="quadratic")
    assert weighted is not None
    assert weighted.value == pytest.approx(0.7584635416666667, abs=1e-12)
    assert weighted.se == pytest.approx(0.06668504018423528, abs=1e-12)
    assert weighted.ci == pytest.approx((0.6277632645979593, 0.8891638187353742), abs=1e-12)


def test_perfect_agreement_and_a_clipped_interval():
    perfect = cohen_kappa([[7, 0], [0, 5]])
    assert perfect is not None
    assert (perfect.value, perfect.se, perfect.ci) == (1.0, 0.0, (1.0, 1.0))
    small = cohen_kappa([[2, 0], [1, 2]])  # five pairs: a wide interval, cut at 1
    assert small is not None
    assert small.ci[1] == 1.0
    assert small.ci[0] < small.value < 1.0


@pytest.mark.parametrize(
    "matrix",
    [
        [[0, 0], [0, 0]],  # no pair
        [[9, 0], [0, 0]],  # both raters used one category only: chance explains everything
        [[0, 0], [0, 4]],
    ],
)
def test_undefined_kappa_is_none_never_nan(matrix):
    assert cohen_kappa(matrix) is None
    assert cohen_kappa(matrix, weights="quadratic") is None


def test_a_matrix_must_be_square():
    with pytest.raises(ValueError, match="square"):
        cohen_kappa([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ValueError, match="square"):
        cohen_kappa([[1]])
