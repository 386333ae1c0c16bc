"""Report entries written as columns: the same text as ``json.dumps`` of the entry's fields.

``report.cases.cases_json`` writes many cases' entries at once (fields as columns, recurring
numbers spelled from a cache, one join). Each generated case here has its entry also built
field by field as a dict and dumped by ``json``, as the report described it before; the two
texts must be equal, for odd cases too: unicode and escapes, NaN/None/inf/-0.0 numbers, ints
and numpy floats, duplicate and missing hits, more than ``MAX_HITS`` hits, long texts, errors,
judge details, built ``HitRecord``s with spans, and baseline values.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

from pytest_ragcheck.evaluation.result import CaseResult, HitRecord
from pytest_ragcheck.report.cases import (
    MAX_HITS,
    QUERY_LIMIT,
    all_cases_json,
    case_entry,
    case_json,
    cases_json,
    clip,
    judge_details,
    tail,
)
from pytest_ragcheck.run.hits import Hit

WORDS = ["doc", "é", "日本語", '"q"', "back\\slash", "100%", "%s", "\u2028", "tab\t", "😀", "\x00"]
NUMBERS: list[Any] = [
    0.0,
    -0.0,
    1.0,
    0.5,
    1 / 3,
    1,
    True,
    2,
    math.nan,
    math.inf,
    -math.inf,
    None,
    1e-300,
    1e300,
    np.float64(0.25),
    np.float32(0.1),
]


def _finite(value: Any) -> float | None:
    return float(value) if value is not None and math.isfinite(value) else None


def _reference(case: CaseResult, baseline: Mapping[str, Any] | None) -> str:
    """The entry as a dict of its fields, dumped by ``json`` (reads ``case.hits``)."""
    hits = case.hits
    entry = {
        "id": case.id,
        "query": clip(case.query, QUERY_LIMIT),
        "tags": list(case.tags),
        "status": case.status,
        "n_relevant": case.n_relevant,
        "values": {str(k): _finite(v) for k, v in case.values.items()},
        "latency_ms": _finite(case.latency_ms),
        "error": clip(case.error, QUERY_LIMIT),
        "traceback": tail(case.traceback),
        "duplicates": case.duplicates,
        "mode": case.mode,
        "hits": [
            {
                "rank": h.rank,
                "id": h.id,
                "text": clip(h.text),
                "score": _finite(h.score),
                "grade": h.grade,
                "spans": list(h.spans),
                "relevant": h.grade > 0,
            }
            for h in hits[:MAX_HITS]
        ],
        "hits_dropped": max(0, len(hits) - MAX_HITS),
        "judge": judge_details(case.judge),
        "judge_errors": [clip(e, QUERY_LIMIT) for e in case.judge_errors],
        "baseline_values": None
        if baseline is None
        else {str(k): _finite(v) for k, v in baseline.items()},
        "answer": clip(case.answer),
        "answerable": case.answerable,
        "refusal": clip(case.refusal, QUERY_LIMIT),
        "facets": case.facets,
    }
    return json.dumps(entry, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def _text(rng: random.Random, size: int) -> str:
    """About ``size`` words (a few distinct ones, repeated)."""
    return " ".join(rng.sample(WORDS, 3) * (size // 3 + 1))


def _case(rng: random.Random, n: int, *, built: bool) -> CaseResult:
    """One odd case; ``built``: its hits were read (``HitRecord``s, spans) before reporting."""
    count = rng.choice([0, 1, 3, 10, 10, 10, MAX_HITS, MAX_HITS + 30])
    ids = [f"d{rng.randrange(40)}{rng.choice(WORDS)}" for _ in range(count)]
    hits = [
        Hit(
            hit_id,
            rng.choice([None, None, _text(rng, 3), _text(rng, 200)]),
            rng.choice(NUMBERS),
        )
        for hit_id in ids
    ]
    grades = {hit_id: rng.choice([0, 1, 2, 3, -1]) for hit_id in ids[::3]}
    grades[f"missing{n}"] = 1
    names = ["hit_rate@10", "mrr@10", 'odd "%s" name']
    values = {name: rng.choice(NUMBERS) for name in rng.sample(names, rng.randrange(4))}
    failed = rng.random() < 0.2
    case = CaseResult(
        id=f"case-{n}-{rng.choice(WORDS)}",
        query=_text(rng, rng.choice([3, 300])),
        tags=tuple(rng.sample(WORDS, rng.randrange(3))),
        status="error" if failed else rng.choice(["ok", "skipped"]),
        n_relevant=rng.randrange(4),
        values=values,
        latency_ms=rng.choice([None, math.nan, 0.0, rng.random() * 100, 12]),
        error=_text(rng, rng.choice([2, 400])) if failed else None,
        traceback=_text(rng, 900) if failed else None,
        duplicates=rng.randrange(3),
        mode=rng.choice(["ids", "texts"]),
        judge={"faithfulness@3": [{"claim": _text(rng, 99), "verdict": "yes", "score": math.nan}]}
        if rng.random() < 0.2
        else {},
        judge_errors=[_text(rng, 500)] if rng.random() < 0.2 else [],
        answer=rng.choice([None, _text(rng, 5), _text(rng, 120)]),
        _ranked=(hits, grades),
        answerable=rng.random() < 0.8,
        refusal=rng.choice([None, None, "empty answer", _text(rng, 400)]),
        facets=rng.choice(
            [
                None,
                None,
                {"subtopics": {_text(rng, 2): {"relevant": 2, "first_rank": None}}},
                {"sources": [{"rank": 1, "id": "d", "source": _text(rng, 2), "weight": 0.5}]},
            ]
        ),
    )
    if built:
        case.hits = [
            HitRecord(h.rank, h.id, h.text, h.score, h.grade, spans=(h.rank, 7)) for h in case.hits
        ]
    return case


def _cases(seed: int, size: int) -> tuple[list[CaseResult], list[CaseResult], list[Any]]:
    """The same odd cases twice (to encode, and for the reference) and their baselines."""
    made = []
    for _ in range(2):
        rng = random.Random(seed)
        made.append([_case(rng, n, built=rng.random() < 0.1) for n in range(size)])
    rng = random.Random(seed + 1)
    baselines = [
        rng.choice([None, {}, {"mrr@10": rng.choice(NUMBERS), "hit_rate@10": 1.0}])
        for _ in range(size)
    ]
    return made[0], made[1], baselines


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_columns_give_the_text_json_dumps_gives(seed: int) -> None:
    cases, twins, baselines = _cases(seed, 150)
    expected = [_reference(c, b) for c, b in zip(twins, baselines, strict=True)]
    assert cases_json(cases, baselines) == ",".join(expected)
    assert [case_json(c, b) for c, b in zip(cases, baselines, strict=True)] == expected
    assert [case_entry(c, b) for c, b in zip(cases, baselines, strict=True)] == [
        json.loads(e) for e in expected
    ]


def test_every_case_a_chunk_at_a_time_with_baselines_by_id() -> None:
    cases, twins, baselines = _cases(7, 300)
    by_id = {c.id: b for c, b in zip(cases, baselines, strict=True) if b is not None}
    expected = [_reference(c, by_id.get(c.id)) for c in twins]
    texts = list(all_cases_json(cases, by_id))
    assert ",".join(texts) == ",".join(expected)
    assert json.loads(f"[{','.join(texts)}]") == [json.loads(e) for e in expected]


def test_a_zero_is_spelled_with_its_sign_whatever_came_before() -> None:
    """``0.0 == -0.0`` (one dict key), so a cache of spellings must never hold a zero."""
    first = CaseResult(id="a", query="q", values={"m": 0.0, "n": 0.5}, _ranked=([], {}))
    second = CaseResult(id="b", query="q", values={"m": -0.0, "n": 0.5}, _ranked=([], {}))
    hits = [Hit("x", None, 0.0), Hit("y", None, -0.0), Hit("z", None, 0.0)]
    third = CaseResult(id="c", query="q", values={"m": -0.0}, _ranked=(hits, {}))
    text = cases_json([first, second, third, first], [None, {"m": -0.0}, {"m": 0.0}, None])
    entries = json.loads(f"[{text}]")
    assert '"values":{"m":0.0,"n":0.5}' in case_json(first, None)
    assert '"values":{"m":-0.0,"n":0.5}' in case_json(second, None)
    assert [math.copysign(1, e["values"]["m"]) for e in entries] == [1, -1, -1, 1]
    assert [h["score"] for h in entries[2]["hits"]] == [0.0, -0.0, 0.0]
    assert [math.copysign(1, h["score"]) for h in entries[2]["hits"]] == [1, -1, 1]
    assert math.copysign(1, entries[1]["baseline_values"]["m"]) == -1


def test_no_cases_no_text() -> None:
    assert cases_json([], []) == ""
    assert list(all_cases_json([], {})) == []


def test_nan_values_and_scores_are_spelled_null_and_not_remembered() -> None:
    """Each nan hashes apart (Python >= 3.10): remembering them would fill the caches."""
    from pytest_ragcheck.report import cases as module

    def case(n: int) -> CaseResult:
        hits = [Hit(f"d{n}", None, float("nan"))]
        return CaseResult(id=f"c{n}", query="q", values={"m": float("nan")}, _ranked=(hits, {}))

    cases = [case(n) for n in range(300)]
    before = len(module._VALUES), len(module._NUMBERS)
    entries = json.loads(f"[{cases_json(cases, [{'m': float('nan')}] * 300)}]")
    assert (len(module._VALUES), len(module._NUMBERS)) == before
    assert {e["values"]["m"] for e in entries} == {None}
    assert {e["hits"][0]["score"] for e in entries} == {None}
    assert {e["baseline_values"]["m"] for e in entries} == {None}
