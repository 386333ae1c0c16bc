"""The engine's quick paths give exactly the general path's values (and the pure functions').

The quick gather (``metrics/dense.py``) takes blocks of ``list`` rankings judged by ``dict``
grades in 0..255; everything else goes through the general gather (``metrics/gather.py``).
Here the same seeded inputs - thousands of rankings of 0..30 ids, with and without repeated
ids, grades 0..3, up to 255 and beyond, cutoffs 1..20 and the whole ranking - go through both
(the general one forced by making the quick one decline) and through the pure functions, and
every value must be equal with ``==``. A spy checks that the quick gather really took the
blocks it should, so that the comparison is not vacuous. The running sums have two forms too
(one ``cumsum`` below ``_FEW_QUERIES`` queries per block, one vector addition per rank above):
blocks of both sizes are compared.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from pytest_ragcheck import metrics as m
from pytest_ragcheck.metrics import block as block_module
from pytest_ragcheck.metrics import dense, engine
from pytest_ragcheck.metrics.names import RANK_METRICS, parse_metric

BASES = [b for b in RANK_METRICS if b != "r_precision"]
#: Groups of cutoffs asked together (the graded matrix is cut at the largest, unless None).
CUTOFF_GROUPS: list[tuple[int | None, ...]] = [
    (1,),
    (2, 3),
    (4, 5, 7),
    (10,),
    (6, 11, 13),
    (15, 20),
    (None,),
    (3, None),
]
_ALPHABET = ["d", "D", "é", "z", "Ω", "a_", "文"]


def _names(cutoffs: tuple[int | None, ...], *, r_precision: bool = False) -> list[str]:
    names = [f"{b}@{'all' if k is None else k}" for b in BASES for k in cutoffs]
    return [*names, "r_precision"] if r_precision else names


def generate(
    n: int,
    *,
    seed: int,
    repeats: float = 0.3,
    top_grade: int = 3,
    negative: bool = False,
    one_grade: int | None = None,
) -> tuple[list[list[str]], list[dict[str, int]]]:
    """``n`` rankings of 0..30 ids (``repeats`` of them repeating some) and their grades
    (with ``one_grade``, every relevant document has that grade: binary judgments)."""
    rng = random.Random(seed)
    rankings: list[list[str]] = []
    grades: list[dict[str, int]] = []
    for q in range(n):
        pool = [f"{rng.choice(_ALPHABET)}{q % 7}-{i}" for i in range(rng.randint(0, 45))]
        size = rng.randint(0, min(len(pool), 30))
        if pool and rng.random() < repeats:  # with repeated ids, anywhere in the ranking
            ranking = [rng.choice(pool[: max(size, 1)]) for _ in range(rng.randint(1, 30))]
        else:
            ranking = rng.sample(pool, size)
        judged = rng.sample(pool, min(len(pool), rng.randint(0, 12)))
        low = -2 if negative else 0
        roll = rng.random()
        if roll < 0.05:
            graded: dict[str, int] = {}
        elif roll < 0.1:
            graded = {d: rng.randint(low, 0) for d in judged}  # nothing relevant
        else:
            graded = {d: rng.choice((low, 0, 1, 1, 2, rng.randint(0, top_grade))) for d in judged}
            if one_grade is not None:
                graded = {d: one_grade if g > 0 else g for d, g in graded.items()}
        # the ids as a run file and a qrels file would give them: distinct str objects
        rankings.append([("" + d + ".")[:-1] for d in ranking])
        grades.append(graded)
    return rankings, grades


def deduplicated(rankings: list[list[str]]) -> list[list[str]]:
    return [list(dict.fromkeys(r)) for r in rankings]


class Spy:
    """Counts the blocks the quick gather took and declined."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, decline: bool = False) -> None:
        self.taken = self.declined = 0
        real = dense.gather_dense

        def spy(*args: Any, **kwargs: Any) -> dense.DenseBlock | None:
            found = None if decline else real(*args, **kwargs)
            if found is None:
                self.declined += 1
            else:
                self.taken += 1
            return found

        monkeypatch.setattr(block_module, "gather_dense", spy)


def general(
    monkeypatch: pytest.MonkeyPatch,
    rankings: list[list[str]],
    grades: list[dict[str, int]],
    names: list[str],
) -> dict[str, np.ndarray]:
    """The general path's values (the quick gather declines every block)."""
    with monkeypatch.context() as patch:
        spy = Spy(patch, decline=True)
        values = m.evaluate_rankings(rankings, grades, names)
    assert spy.declined
    assert not spy.taken
    return values


def pure(name: str, ranking: list[str], graded: dict[str, int]) -> float:
    spec = parse_metric(name, None)
    return m.metric_function(spec.base)(ranking, graded, spec.k)


def assert_same(got: dict[str, np.ndarray], expected: dict[str, np.ndarray]) -> None:
    assert list(got) == list(expected)
    for name, values in expected.items():
        assert got[name].dtype == np.float64, name
        assert got[name].shape == values.shape, name
        bad = np.flatnonzero(got[name] != values)
        assert not len(bad), f"{name}: first difference at query {bad[0]}"


def _sample(n: int, step: int) -> Iterator[int]:
    return iter(range(0, n, step))


@pytest.mark.parametrize("one_grade", [None, 1, 3], ids=["graded", "binary", "all-3"])
@pytest.mark.parametrize("cutoffs", CUTOFF_GROUPS, ids=str)
def test_quick_gather_equals_the_general_one_and_the_pure_functions(
    monkeypatch, cutoffs, one_grade
):
    seed = CUTOFF_GROUPS.index(cutoffs)
    rankings, grades = generate(2000, seed=seed, one_grade=one_grade)
    names = _names(cutoffs, r_precision=None in cutoffs)
    expected = general(monkeypatch, rankings, grades, names)
    spy = Spy(monkeypatch)
    got = m.evaluate_rankings(rankings, grades, names)
    assert spy.taken
    assert not spy.declined
    assert_same(got, expected)
    # and both equal the pure functions (a sample: they are slow)
    for i in _sample(len(rankings), 5):
        for name in names:
            assert got[name][i] == pure(name, rankings[i], grades[i]), (name, i)


@pytest.mark.parametrize("cutoffs", CUTOFF_GROUPS, ids=str)
def test_the_distinct_hint_gives_the_values_of_the_deduplicated_rankings(monkeypatch, cutoffs):
    rankings, grades = generate(2000, seed=7 + len(cutoffs))
    names = _names(cutoffs, r_precision=True)
    unique = deduplicated(rankings)
    expected = general(monkeypatch, rankings, grades, names)  # repeated ids dropped there
    spy = Spy(monkeypatch)
    assert_same(m.evaluate_rankings(unique, grades, names, distinct=True), expected)
    assert_same(m.evaluate_rankings(unique, grades, names), expected)
    assert_same(m.evaluate_rankings(rankings, grades, names), expected)
    assert (spy.taken, spy.declined) == (3, 0)


@pytest.mark.parametrize("cutoff", [1, 3, 5, 10])
def test_repeated_ids_beyond_the_cutoff_do_not_change_the_top(monkeypatch, cutoff):
    """With a cutoff only the first ranks are searched for repeated ids; a repeat further
    down changes nothing a metric at that cutoff reads (judged's min(length, k) included)."""
    rng = random.Random(cutoff)
    rankings, grades = generate(1500, seed=cutoff, repeats=0.0)
    for ranking in rankings:  # repeat ids after the cutoff, sometimes also before it
        if len(ranking) > 1:
            for _ in range(rng.randint(1, 4)):
                lowest = 0 if rng.random() < 0.2 else min(cutoff, len(ranking))
                ranking.insert(rng.randint(lowest, len(ranking)), rng.choice(ranking))
    names = _names((cutoff,))
    expected = general(monkeypatch, rankings, grades, names)
    assert_same(m.evaluate_rankings(rankings, grades, names), expected)
    for i in _sample(len(rankings), 3):
        for name in names:
            assert expected[name][i] == pure(name, rankings[i], grades[i]), (name, i)


@pytest.mark.parametrize(
    ("top_grade", "negative", "quick"),
    [(255, False, True), (1023, False, False), (3, True, False)],
)
def test_grades_outside_a_byte_take_the_general_gather(monkeypatch, top_grade, negative, quick):
    rankings, grades = generate(1200, seed=top_grade, top_grade=top_grade, negative=negative)
    names = _names((3, None), r_precision=True)
    expected = general(monkeypatch, rankings, grades, names)
    spy = Spy(monkeypatch)
    assert_same(m.evaluate_rankings(rankings, grades, names), expected)
    assert (spy.taken, spy.declined) == ((1, 0) if quick else (0, 1))
    for i in _sample(len(rankings), 7):
        for name in names:
            assert expected[name][i] == pure(name, rankings[i], grades[i]), (name, i)


@pytest.mark.parametrize("chunk", [7, 255, 256, 700])
@pytest.mark.parametrize("slice_size", [1, 5, 512])
def test_blocks_and_slices_of_any_size_give_the_same_values(monkeypatch, chunk, slice_size):
    """Blocks below and above ``_FEW_QUERIES`` (the two forms of the running sums), slices of
    equal and of different lengths (the two ways of pairing ranks with their judgments)."""
    rankings, grades = generate(1400, seed=chunk * slice_size)
    names = _names((2, 9, None), r_precision=True)
    whole = m.evaluate_rankings(rankings, grades, names)
    monkeypatch.setattr(m, "CHUNK_QUERIES", chunk)
    monkeypatch.setattr(dense, "_SLICE", slice_size)
    assert_same(m.evaluate_rankings(rankings, grades, names), whole)
    # every ranking of a slice as long: distinct ids, then repeated ones (unequal once dropped)
    kept = [i for i, r in enumerate(deduplicated(rankings)) if len(r) >= 4]
    rels = [grades[i] for i in kept]
    for equal in ([rankings[i][:4] for i in kept], [(rankings[i] * 2)[:12] for i in kept]):
        assert_same(
            m.evaluate_rankings(equal, rels, names), general(monkeypatch, equal, rels, names)
        )


@pytest.mark.parametrize("rows", [1, 5, 255, 256, 300, 2000])
@pytest.mark.parametrize("depth", [1, 2, 10, 101])
def test_running_sums_are_sequential_in_both_forms(rows, depth):
    rng = np.random.default_rng(rows * depth)
    terms = rng.random((depth, rows)) * rng.choice([1e-9, 1.0, 1e9], size=(depth, rows))
    expected = terms.copy()
    for i in range(1, depth):  # the pure functions' order: rank 1 first
        expected[i] = expected[i - 1] + expected[i]
    assert np.array_equal(engine._running_sum(terms.copy()), expected)
    counts = rng.integers(0, 2, size=(depth, rows)).astype(np.int64)
    assert np.array_equal(engine._running_sum(counts.copy()), np.cumsum(counts, axis=0))


def test_equal_lengths_reshape_and_ragged_lengths_pad_alike(monkeypatch):
    rankings, grades = generate(600, seed=3, repeats=0.0)
    names = _names((5, None))
    ten = [r[:10] for r in rankings if len(r) >= 10]
    rels = [g for r, g in zip(rankings, grades, strict=True) if len(r) >= 10]
    assert len(ten) > 100
    spy = Spy(monkeypatch)
    got = m.evaluate_rankings(ten, rels, names, distinct=True)
    assert spy.taken == 1
    assert_same(got, general(monkeypatch, ten, rels, names))
    ragged = [*ten, [], ["x"]]
    rels = [*rels, {"x": 1}, {"x": 2}]
    assert_same(
        m.evaluate_rankings(ragged, rels, names, distinct=True),
        general(monkeypatch, ragged, rels, names),
    )


def test_what_the_quick_gather_declines_still_gives_the_same_values_or_errors(monkeypatch):
    rankings, grades = generate(300, seed=5)
    names = _names((3, None), r_precision=True)
    expected = general(monkeypatch, rankings, grades, names)
    # tuples, a dict subclass: the general gather takes them, with the same values
    spy = Spy(monkeypatch)
    as_tuples = [tuple(r) for r in rankings]
    assert_same(m.evaluate_rankings(as_tuples, grades, names), expected)  # type: ignore[arg-type]

    class Grades(dict[str, int]):
        pass

    subclassed = [Grades(g) for g in grades]
    assert_same(m.evaluate_rankings(rankings, subclassed, names), expected)
    assert (spy.taken, spy.declined) == (0, 2)


@pytest.mark.parametrize("distinct", [False, True])
def test_bad_input_raises_the_general_errors(distinct):
    def run(rankings: list[Any], grades: list[Any]) -> None:
        m.evaluate_rankings(rankings, grades, ["mrr@3", "ndcg@3"], distinct=distinct)

    good = [["a", "b"]] * 600  # the bad query is in a later slice than the first
    rels = [{"a": 1}] * 600
    with pytest.raises(TypeError, match=r"run: document ids must be str, got int 7 in ranking #"):
        run([*good, [7, "b"]], [*rels, {"b": 1}])
    with pytest.raises(TypeError, match=r"qrels: document ids must be str, got int 7 in ranking"):
        run([*good, ["a"]], [*rels, {7: 1}])
    with pytest.raises(TypeError, match=r"relevance grades must be integers, got float 1.5"):
        run([*good, ["a"]], [*rels, {"a": 1.5}])
    with pytest.raises(TypeError, match=r"relevance grades must be integers, got str '2'"):
        run([*good, ["a"]], [*rels, {"b": 1, "a": "2"}])
    with pytest.raises(TypeError, match=r"unhashable type: 'list'"):
        run([*good, ["a", ["b"]]], [*rels, {"a": 1}])
    with pytest.raises(TypeError, match=r"ranking #600 must be a list of ids in rank order"):
        run([*good, 5], [*rels, {"a": 1}])
    with pytest.raises(TypeError, match=r"ranking #600 is a dict but the first ranking"):
        run([*good, {"a": 1.0}], [*rels, {"a": 1}])
    # a later id that is not a str is not checked (only the first one of each ranking is)
    assert m.evaluate_rankings([["a", 7]], [{"a": 1}], ["mrr@2"])["mrr@2"].tolist() == [1.0]


def test_queries_without_anything_relevant_score_zero_on_every_metric_but_judged():
    rankings = [["a", "b", "c"], [], ["x"], ["a"]]
    grades: list[dict[str, int]] = [{"a": 0, "b": 0}, {"a": 1}, {}, {"z": 2}]
    names = _names((1, 2, None), r_precision=True)
    got = m.evaluate_rankings(rankings, grades, names)
    for name, values in got.items():
        if name.startswith("judged"):
            assert values[0] > 0
        else:
            assert values[[0, 2]].tolist() == [0.0, 0.0], name


@pytest.mark.parametrize(
    ("cutoffs", "distinct", "quick"),
    [
        ((5, 10), False, True),  # only 10 ranks looked up: the quick gather
        ((10, None), False, False),  # 120 ranks that may repeat ids: the general gather
        ((10, None), True, True),  # 120 distinct ranks: the quick gather
    ],
)
def test_long_rankings_take_the_quicker_gather(monkeypatch, cutoffs, distinct, quick):
    rng = random.Random(11)
    rankings = [rng.sample([f"d{i}" for i in range(400)], 120) for _ in range(300)]
    grades = [{d: rng.randint(0, 3) for d in rng.sample(r[:40], 5)} for r in rankings]
    names = _names(cutoffs)
    expected = general(monkeypatch, rankings, grades, names)
    spy = Spy(monkeypatch)
    assert_same(m.evaluate_rankings(rankings, grades, names, distinct=distinct), expected)
    assert (spy.taken, spy.declined) == ((1, 0) if quick else (0, 1))
