"""Hits read as columns (the common shapes) are the hits the general reader makes: same ids,
texts, scores, alternatives, dropped repeats and errors, on many generated hit lists; and a
run of them evaluates, stores and reports as a run of ``Hit`` objects does."""

from __future__ import annotations

import json
import math
import random
from decimal import Decimal
from typing import Any

import numpy as np
import pytest

from pytest_ragcheck import evaluate
from pytest_ragcheck.metrics import evaluate_rankings
from pytest_ragcheck.report.cases import case_json
from pytest_ragcheck.run.columns import HitColumns, hit_id_list, read_columns, read_hits
from pytest_ragcheck.run.hits import Hit, normalize_hits, to_hit

IDS: list[Any] = [
    "a",
    "b",
    "é",
    "日本",
    'q"uote',
    "back\\slash",
    "tab\t",
    " padded ",
    "😀",
    "x" * 300,
]
ODD_IDS: list[Any] = ["", " ", 7, 0, -3, True, None, 2.5, np.str_("np"), b"raw", ("t",)]
SCORES: list[Any] = [0.5, 1.0, -0.0, math.nan, math.inf, -math.inf, 1e-300]
ODD_SCORES: list[Any] = [1, 0, True, None, Decimal("0.25"), np.float64(0.5), "0.5", [1.0]]
TEXTS: list[Any] = ["t", "", "é ünïcode", None]
ODD_TEXTS: list[Any] = [3, b"bytes", ["t"]]


def _item(rng: random.Random, shape: str, odd: float) -> Any:
    """One hit of ``shape``; with probability ``odd`` a part of it is an unusual value."""
    pick_id = rng.choice(ODD_IDS) if rng.random() < odd else rng.choice(IDS)
    if shape == "ids":
        return pick_id
    score = rng.choice(ODD_SCORES) if rng.random() < odd else rng.choice(SCORES)
    if shape == "pairs":
        if rng.random() < odd / 2:
            return rng.choice([(pick_id,), (pick_id, score, 1), [pick_id, score]])
        return (pick_id, score)
    hit: dict[str, Any] = {"id": pick_id}
    if rng.random() < 0.7:
        hit["text"] = rng.choice(ODD_TEXTS) if rng.random() < odd else rng.choice(TEXTS)
    if rng.random() < 0.7:
        hit["score"] = score
    if rng.random() < odd / 2:
        extra = rng.choice(["doc_id", "content", "metadata", "page_content", "meta"])
        hit[extra] = {"source": "s-1"} if extra in ("metadata", "meta") else "other"
    if rng.random() < odd / 4:
        del hit["id"]
    return hit


def _hit_list(rng: random.Random) -> list[Any]:
    shape = rng.choice(["ids", "pairs", "dicts"])
    odd = rng.choice([0.0, 0.0, 0.02, 0.2])
    items = [_item(rng, shape, odd) for _ in range(rng.randint(1, 14))]
    if rng.random() < 0.3:  # repeated ids
        items += [rng.choice(items) for _ in range(rng.randint(1, 4))]
        rng.shuffle(items)
    if rng.random() < 0.05:  # a mixed list
        items.append(_item(rng, rng.choice(["ids", "pairs", "dicts"]), 0.0))
    return items


def _read(reader: Any, raw: list[Any], id_key: str | None) -> tuple[str, Any]:
    try:
        hits, dropped = reader(raw, id_key=id_key)
    except Exception as exc:  # both readers must fail alike
        return "error", (type(exc), str(exc))
    return "ok", (hits, dropped)


def _rows(hits: Any) -> list[tuple[Any, ...]]:
    return [(type(h), h.id, type(h.id), h.text, repr(h.score), h.alternatives) for h in hits]


@pytest.mark.parametrize("id_key", [None, "source"])
def test_columns_read_as_the_general_reader(id_key: str | None) -> None:
    rng = random.Random(32 if id_key is None else 33)
    fast = 0
    for _ in range(4000):
        raw = _hit_list(rng)
        got_kind, got = _read(read_hits, raw, id_key)
        want_kind, want = _read(normalize_hits, raw, id_key)
        assert got_kind == want_kind, raw
        if got_kind == "error":
            assert got == want
            continue
        (hits, dropped), (want_hits, want_dropped) = got, want
        assert dropped == want_dropped, raw
        assert _rows(hits) == _rows(want_hits), raw
        assert hits == want_hits
        assert want_hits == hits
        assert len(hits) == len(want_hits)
        assert hit_id_list(hits) == [h.id for h in want_hits]
        if type(hits) is HitColumns:
            fast += 1
            assert repr(hits) == repr(want_hits)
            for index in range(-len(hits), len(hits)):
                assert _rows([hits[index]]) == _rows([want_hits[index]])
            for cut in (slice(0, 3), slice(2, None), slice(None, None, 2)):
                assert _rows(hits[cut]) == _rows(want_hits[cut])
                assert hits[cut] == want_hits[cut]
            with pytest.raises(IndexError):
                hits[len(hits)]
    assert fast > (1000 if id_key is None else 400)  # the generator reaches the fast path


def test_the_common_shapes_are_columns_and_others_are_not() -> None:
    assert read_columns(["a", "b"]) is not None
    assert read_columns([("a", 0.5), ("b", math.nan)]) is not None
    assert read_columns([{"id": "a", "text": "t", "score": 1.0}, {"id": "b"}]) is not None
    for other in (
        ["a", ("b", 0.5)],  # mixed
        ["a", 3],  # an int id
        [np.str_("a")],  # a str subclass: read as a plain str by the general reader
        [("a", 1)],  # an int score
        [("a", np.float64(0.5))],  # a float subclass
        [{"id": "a", "metadata": {"source": "s"}}],  # metadata: alternatives
        [Hit("a")],
        ["a", ""],
    ):
        assert read_columns(other) is None, other
    assert read_columns([{"id": "a"}], id_key="source") is None


def test_repeats_keep_their_first_position_text_and_score() -> None:
    raw = [{"id": "a", "score": 3.0, "text": "first"}, {"id": "b"}, {"id": "a", "score": 1.0}]
    found = read_columns(raw)
    assert found is not None
    hits, dropped = found
    assert dropped == 1
    assert list(hits) == [Hit("a", "first", 3.0), Hit("b")]
    one = read_columns([("x", 2.0), ("x", 1.0), ("x", 0.0)])
    assert one is not None
    assert list(one[0]) == [Hit("x", None, 2.0)]
    assert one[1] == 2


def test_columns_are_not_the_retrievers_list() -> None:
    ranking = ["a", "b"]
    hits, _ = read_hits(ranking)
    ranking.append("c")  # a retriever reusing its list changes nothing already read
    assert list(hits) == [Hit("a"), Hit("b")]


def _shapes(rng: random.Random, n: int) -> tuple[list[dict[str, Any]], dict[str, list[Any]]]:
    cases = []
    rankings: dict[str, list[Any]] = {}
    for i in range(n):
        query = f"query {i}"
        docs = [f"d{rng.randrange(40)}" for _ in range(rng.randint(0, 30))]
        cases.append({"id": f"c{i}", "query": query, "expected_ids": docs[:2] or ["d0"]})
        rng.shuffle(docs)
        rankings[query] = docs
    return cases, rankings


def test_a_run_of_columns_evaluates_and_reports_as_hit_objects() -> None:
    """Each case's values, hits and report entry: as when the retriever returns ``Hit``
    objects (the general reader); the metrics read only the top 5, the report every hit."""
    rng = random.Random(5)
    cases, rankings = _shapes(rng, 300)
    scores = {q: [rng.choice(SCORES) for _ in r] for q, r in rankings.items()}
    texts = {q: [rng.choice(TEXTS) for _ in r] for q, r in rankings.items()}
    shapes = {
        "ids": lambda q: list(rankings[q]),
        "pairs": lambda q: list(zip(rankings[q], scores[q], strict=True)),
        "dicts": lambda q: [
            {"id": d, "score": s, "text": t}
            for d, s, t in zip(rankings[q], scores[q], texts[q], strict=True)
        ],
    }
    metrics = ["hit_rate", "mrr", "precision", "recall", "ndcg", "map", "judged@20"]
    for shape, retriever in shapes.items():
        as_hits = (lambda r: lambda q: [Hit(*to_hit(item)[:3]) for item in r(q)])(retriever)
        ours = evaluate(retriever, cases, k=5, metrics=metrics, concurrency=1)
        general = evaluate(as_hits, cases, k=5, metrics=metrics, concurrency=1)
        quality = [s.name for s in ours.specs if s.kind == "rank"]
        assert [ours[n] for n in quality] == [general[n] for n in quality], shape
        for mine, theirs in zip(ours.cases, general.cases, strict=True):
            mine.latency_ms = theirs.latency_ms = None  # timed: differs from run to run
            assert case_json(mine, None) == case_json(theirs, None)
            assert json.dumps(mine.values) == json.dumps(theirs.values)
            assert mine.hits == theirs.hits
            assert mine.duplicates == theirs.duplicates
        deduped = [list(dict.fromkeys(rankings[c["query"]])) for c in cases]
        reference = evaluate_rankings(
            deduped, [dict.fromkeys(c["expected_ids"], 1) for c in cases], ours.specs[:6]
        )
        for spec in ours.specs[:6]:
            assert [c.values[spec.name] for c in ours.cases] == reference[spec.name].tolist()
    longest = max(len(c.hits) for c in ours.cases)
    assert longest > 20  # deeper than every cutoff: the report keeps them all
