"""Pure pieces behind the answer and judge edge cases of tests/integration/test_answers_edge.py."""

from __future__ import annotations

import math

import pytest

from pytest_ragcheck.judge.client import _vector


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_an_embedding_answer_with_a_non_finite_number_is_malformed(value: float) -> None:
    with pytest.raises(ValueError, match="not a finite number"):
        _vector({"embedding": [0.5, value]})
    assert _vector({"embedding": [0.5, 1]}) == [0.5, 1.0]
