"""The facts about a run read column by column are the facts read case by case: the most hits,
the timeouts, the ids that match nothing (with and without the grades handed in), on many
generated runs of columns, ``Hit`` lists, errors and timeouts."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import chain
from types import MappingProxyType
from typing import Any

import pytest

from pytest_ragcheck.golden import GoldenCase
from pytest_ragcheck.metrics.names import parse_metric
from pytest_ragcheck.run.calls import RetrievalOutcome, timed_out
from pytest_ragcheck.run.columns import HitColumns, hit_id_list
from pytest_ragcheck.run.concurrency import ConcurrencyChoice
from pytest_ragcheck.run.facts import _hit_ids, _id_check, _max_hits, retrieval_info
from pytest_ragcheck.run.hits import Hit
from pytest_ragcheck.run.retrievers import resolve_retriever
from pytest_ragcheck.run.runner import RetrievalRun

_IDS = ["d1", "d2", "ü-1", "🙂", "文書", "x y", "0", "d3", "d4"]
_OTHER = ["u-1", "ü-2", "🙃", "x"]


def _reference_id_check(
    cases: Sequence[GoldenCase], outcomes: Sequence[RetrievalOutcome]
) -> dict[str, Any] | None:
    """The check case by case, as it was written before its column passes."""
    grades = [c._grades for c in cases]
    ids = [hit_id_list(o.hits) if o.error is None else [] for o in outcomes]
    checked = [i for i, (own, found) in enumerate(zip(grades, ids, strict=True)) if own and found]
    misses = [i for i in checked if grades[i].keys().isdisjoint(ids[i])]
    if not misses:
        return None
    known = set(chain.from_iterable(grades))
    unmatched = [(cases[i], outcomes[i]) for i in misses if known.isdisjoint(ids[i])]
    if not known or not unmatched:
        return None
    keys = Counter(
        key
        for _, o in unmatched
        if type(o.hits) is not HitColumns
        for h in o.hits
        for key, value in h.alternatives
        if value in known
    )

    def first(items: Iterable[str]) -> list[str]:
        return list(dict.fromkeys(items))[:3]

    key, matches = keys.most_common(1)[0] if keys else (None, 0)
    return {
        "checked": len(checked),
        "unmatched": len(unmatched),
        "hits": sum(len(ids[i]) for i in checked),
        "known_hits": sum(1 for i in checked for hit_id in ids[i] if hit_id in known),
        "unmatched_ids": [c.id for c, _ in unmatched[:5]],
        "retrieved_sample": first(chain.from_iterable(hit_id_list(o.hits) for _, o in unmatched)),
        "golden_sample": first(chain.from_iterable(c._grades for c, _ in unmatched)),
        "id_key": key,
        "id_key_matches": matches,
    }


def _case(rng: random.Random, n: int) -> GoldenCase:
    kind = rng.random()
    if kind < 0.1:
        return GoldenCase(id=f"c{n}", query=f"q{n}", expected_texts=["span"])
    if kind < 0.2:
        return GoldenCase(id=f"c{n}", query=f"q{n}", relevance={rng.choice(_IDS): 0})
    return GoldenCase(id=f"c{n}", query=f"q{n}", expected_ids=rng.sample(_IDS, rng.randint(1, 3)))


def _outcome(rng: random.Random, pool: list[str], columns: float) -> RetrievalOutcome:
    kind = rng.random()
    if kind < 0.05:
        return RetrievalOutcome([], error="ValueError: boom", latency_ms=1.0)
    if kind < 0.1:
        return timed_out(2.0)
    if kind < 0.15:
        return RetrievalOutcome([], latency_ms=1.0)
    ids = list(dict.fromkeys(rng.choice(pool) for _ in range(rng.randint(1, 6))))
    if rng.random() < columns:
        return RetrievalOutcome(HitColumns(ids), latency_ms=1.0)
    hits = [
        Hit(i, None, None, (("source", rng.choice(_IDS)),) if rng.random() < 0.3 else ())
        for i in ids
    ]
    return RetrievalOutcome(hits, duplicates=rng.randint(0, 1), latency_ms=1.0)


def _generated(seed: int) -> tuple[list[GoldenCase], list[RetrievalOutcome]]:
    rng = random.Random(seed)
    n = rng.randint(1, 60)
    cases = [_case(rng, i) for i in range(n)]
    # mostly unknown ids (the facts are built), mostly the golden set's own, or a mix
    pool = [_OTHER, _IDS, _OTHER + _IDS][seed % 3]
    columns = [0.0, 1.0, 0.7][seed % 4 % 3]
    if seed % 5 == 0:  # a run of columns only: every call returned
        return cases, [RetrievalOutcome(HitColumns([rng.choice(pool)])) for _ in cases]
    return cases, [_outcome(rng, pool, columns) for _ in cases]


@pytest.mark.parametrize("seed", range(120))
def test_the_id_check_is_the_case_by_case_check(seed: int) -> None:
    cases, outcomes = _generated(seed)
    want = _reference_id_check(cases, outcomes)
    grades = [c._grades for c in cases]
    assert _id_check(cases, outcomes) == want
    assert _id_check(cases, outcomes, grades=grades) == want
    proxies = [MappingProxyType(dict(g)) for g in grades]  # mappings that are not dicts
    assert _id_check(cases, outcomes, grades=proxies) == want


def test_the_generated_runs_reach_every_branch() -> None:
    facts = [_id_check(*_generated(seed)) for seed in range(120)]
    assert sum(f is None for f in facts) > 10
    assert sum(f is not None and f["unmatched"] == f["checked"] for f in facts) > 10
    assert sum(f is not None and f["unmatched"] < f["checked"] for f in facts) > 5
    assert sum(f is not None and f["id_key"] is not None for f in facts) > 5


def test_the_lengths_must_agree_with_grades_too() -> None:
    cases = [GoldenCase(id="a", query="qa", expected_ids=["d1"])]
    with pytest.raises(ValueError, match="zip"):
        _id_check(cases, [], grades=[{"d1": 1}])
    with pytest.raises(ValueError, match="zip"):
        _id_check(cases, [RetrievalOutcome([]), RetrievalOutcome([])])


@pytest.mark.parametrize("seed", range(60))
def test_the_ids_and_the_most_hits_read_as_columns(seed: int) -> None:
    _, outcomes = _generated(seed)
    ids = _hit_ids(outcomes)
    assert ids == [hit_id_list(o.hits) if o.error is None else [] for o in outcomes]
    if all(type(o.hits) is HitColumns for o in outcomes):
        assert all(i is o.hits.ids for i, o in zip(ids, outcomes, strict=True))  # type: ignore[attr-defined]
    most = max([len(o.hits) for o in outcomes if o.error is None], default=None)
    assert _max_hits(outcomes) == _max_hits(outcomes, ids) == most
    failed = [RetrievalOutcome([], error="x") for _ in outcomes]
    assert _max_hits(failed, _hit_ids(failed)) is None


_SPECS = [parse_metric(name, 5) for name in ("mrr", "recall@10", "latency_p95_ms")]
_JUDGED = [*_SPECS, parse_metric("context_precision", 5)]
_LATENCY = _SPECS[2:]


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("specs", [_SPECS, _JUDGED, _LATENCY], ids=["rank", "judge", "latency"])
def test_the_run_facts_are_the_same_with_the_grades_handed_in(seed: int, specs: Any) -> None:
    cases, outcomes = _generated(seed)
    run = RetrievalRun(
        outcomes,
        resolve_retriever(lambda q: [], depth=None),
        ConcurrencyChoice(1, seed % 2 == 0, "fast: 0.01 ms per call"),
    )
    info = retrieval_info(run, cases, specs, 10)
    assert retrieval_info(run, cases, specs, 10, grades=[c._grades for c in cases]) == info
    ok = [o for o in outcomes if o.error is None]
    assert info["max_hits"] == max([len(o.hits) for o in ok], default=None)
    assert info["timed_out"] == sum(1 for o in outcomes if o.timed_out)
    rank = any(s.kind == "rank" for s in specs)
    assert info["ids"] == (_reference_id_check(cases, outcomes) if rank else None)
    repeated = sum(1 for o in outcomes if o.duplicates)
    said = any("repeat an id" in note for note in info["notes"])
    assert said == (specs is _JUDGED and repeated > 0)
    if said:
        assert f"{repeated} case(s) returned hits that repeat an id" in "".join(info["notes"])
    assert any(n.startswith("concurrency auto") for n in info["notes"]) == bool(
        run.concurrency.auto and ok
    )
    if info["max_hits"] == 0 and specs is not _LATENCY:
        assert f"for any of the {len(ok)} case(s)" in info["problems"][0]
