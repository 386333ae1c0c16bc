"""Ids that are one prefix and a number sort naturally by a quicker way: the same order."""

from __future__ import annotations

import random

import pytest

from pytest_ragcheck.common.sorting import natural_key, natural_order, natural_sorted


def _ids(rng: random.Random) -> list[str]:
    prefix = rng.choice(["q", "case-", "", "Q_", "doc ", "é", "q1x"])
    pick = rng.random()
    numbers = [str(rng.randint(0, 10 ** rng.randint(1, 7))) for _ in range(rng.randint(0, 60))]
    if pick < 0.2:  # leading zeros
        numbers = [n.zfill(rng.randint(1, 5)) for n in numbers]
    ids = [prefix + n for n in numbers]
    if pick > 0.9 and ids:  # one id of another shape
        ids[rng.randrange(len(ids))] = rng.choice(["r5", "q", "q٣", "q-1", "Q7", "q 7", ""])
    return list(dict.fromkeys(ids))


@pytest.mark.parametrize("seed", range(40))
def test_the_quick_order_is_the_natural_order(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(50):
        ids = _ids(rng)
        want = sorted(ids, key=natural_key)
        rng.shuffle(ids)
        assert natural_sorted(ids) == want
        assert natural_sorted(set(ids)) == want
        assert natural_order(set(ids)) == want


def test_leading_zeros_and_other_digits_keep_the_natural_key() -> None:
    assert natural_sorted(["q01", "q1", "q2", "q10"]) == ["q01", "q1", "q2", "q10"]
    assert natural_sorted(["q٣", "q2", "q10"]) == sorted(["q٣", "q2", "q10"], key=natural_key)
    assert natural_sorted(["q10", "q9", "q"]) == ["q9", "q10", "q"]  # as natural_key has it
