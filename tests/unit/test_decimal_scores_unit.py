"""Scores a SQL driver returns as ``Decimal`` (a ``NUMERIC`` column) are read as numbers;
bools and complex numbers are still refused."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from pytest_ragcheck import evaluate
from pytest_ragcheck.run.hits import normalize_hits


def test_decimal_scores_in_pairs_and_dicts() -> None:
    hits, _ = normalize_hits(
        [("a", Decimal("0.9")), {"id": "b", "score": Decimal("0.25")}, ("c", Fraction(1, 8))]
    )
    assert [(h.id, h.score) for h in hits] == [("a", 0.9), ("b", 0.25), ("c", 0.125)]
    assert all(type(h.score) is float for h in hits)


@pytest.mark.parametrize("score", [True, 1j, "0.9", b"1"])
def test_other_scores_are_refused(score: object) -> None:
    with pytest.raises(TypeError, match="score"):
        normalize_hits([("a", score)])


def test_a_sql_retriever_with_decimal_scores_is_evaluated() -> None:
    cases = [{"id": "q1", "query": "alpha", "expected_ids": ["a"]}]
    result = evaluate(lambda q: [("b", Decimal("2.5")), ("a", Decimal("1.5"))], cases, k=2)
    assert result["mrr@2"] == 0.5
    assert [h.score for h in result.cases[0].hits] == [2.5, 1.5]
