"""The unmatched-id check's quick pass gives what checking every case against every judged
id gives, on generated runs (unicode ids, errors, empty hit lists, text cases, duplicates)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from pytest_ragcheck.golden import GoldenCase
from pytest_ragcheck.run.facts import _id_check
from pytest_ragcheck.run.hits import Hit
from pytest_ragcheck.run.runner import RetrievalOutcome

_IDS = ["d1", "d2", "ü-1", "🙂", "文書", "x y", "0", "d3"]


def _general(
    cases: Sequence[GoldenCase], outcomes: Sequence[RetrievalOutcome]
) -> tuple[int, list[str]] | None:
    """Every case's hits against every judged id (the check before its quick pass): how many
    cases were checked and the unmatched ones, or ``None`` when there is nothing to say."""
    known: set[str] = set()
    checked = []
    for case, outcome in zip(cases, outcomes, strict=True):
        if case.mode == "ids":
            known.update(case._grades)
            if outcome.error is None and outcome.hits:
                checked.append((case, outcome))
    unmatched = [c.id for c, o in checked if known.isdisjoint([h.id for h in o.hits])]
    if not known or not unmatched:
        return None
    return len(checked), unmatched


def _assert_same(cases: Sequence[GoldenCase], outcomes: Sequence[RetrievalOutcome]) -> None:
    facts = _id_check(cases, outcomes)
    general = _general(cases, outcomes)
    if general is None:
        assert facts is None
        return
    checked, unmatched = general
    assert facts is not None
    assert (facts["checked"], facts["unmatched"], facts["unmatched_ids"]) == (
        checked,
        len(unmatched),
        unmatched[:5],
    )


def _case(rng: random.Random, n: int) -> GoldenCase:
    kind = rng.random()
    if kind < 0.1:
        return GoldenCase(id=f"c{n}", query=f"q{n}", expected_texts=["span"])
    if kind < 0.2:
        return GoldenCase(id=f"c{n}", query=f"q{n}", relevance={rng.choice(_IDS): 0})
    ids = rng.sample(_IDS, rng.randint(1, 3))
    return GoldenCase(id=f"c{n}", query=f"q{n}", expected_ids=ids)


def _outcome(rng: random.Random, pool: list[str]) -> RetrievalOutcome:
    kind = rng.random()
    if kind < 0.1:
        return RetrievalOutcome([], error="ValueError: boom")
    if kind < 0.2:
        return RetrievalOutcome([])
    hits = []
    for _ in range(rng.randint(1, 5)):
        alternatives = (("source", rng.choice(_IDS)),) if rng.random() < 0.3 else ()
        score = rng.choice([None, 0.5, float("nan")])
        hits.append(Hit(rng.choice(pool), None, score, alternatives))
    return RetrievalOutcome(hits, duplicates=rng.randint(0, 1))


@pytest.mark.parametrize("seed", range(40))
def test_the_quick_pass_matches_the_general_check(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(1, 40)
    cases = [_case(rng, i) for i in range(n)]
    # mostly unknown ids (so the facts are built), or mostly the golden set's own
    pool = ["u-1", "ü-2", "🙃", "x"] + (_IDS if seed % 2 else [])
    outcomes = [_outcome(rng, pool) for _ in range(n)]
    _assert_same(cases, outcomes)


def test_a_case_matched_only_by_another_cases_ids_is_not_unmatched() -> None:
    cases = [
        GoldenCase(id="a", query="qa", expected_ids=["d1"]),
        GoldenCase(id="b", query="qb", expected_ids=["d2"]),
    ]
    outcomes = [RetrievalOutcome([Hit("zz"), Hit("d2")]), RetrievalOutcome([Hit("nope")])]
    _assert_same(cases, outcomes)
    facts = _id_check(cases, outcomes)
    assert facts is not None
    assert facts["unmatched_ids"] == ["b"]
    assert _id_check(cases, [*outcomes[:1], RetrievalOutcome([Hit("d2")])]) is None


def test_no_judged_id_anywhere_is_no_fact() -> None:
    cases = [GoldenCase(id="a", query="qa", expected_texts=["s"])]
    assert _id_check(cases, [RetrievalOutcome([Hit("x")])]) is None


def test_the_lengths_must_agree() -> None:
    cases = [GoldenCase(id="a", query="qa", expected_ids=["d1"])]
    with pytest.raises(ValueError, match="zip"):
        _id_check(cases, [])
