"""Report entries' quick paths give the text ``json.dumps`` gives.

Ids that need no escaping are written as they are (their quotes come with the pieces around
them), the ranks of equally long rankings are one repeat, and baseline value dicts that cases
share are spelled once. Each is checked against the field-by-field reference of
``test_report_fast_entries`` on generated chunks where the quick path applies, and where one
odd case turns it off.
"""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest
from test_report_fast_entries import NUMBERS, WORDS, _reference

from pytest_ragcheck.evaluation.result import CaseResult
from pytest_ragcheck.report.cases import _all_floats, _floats, cases_json
from pytest_ragcheck.run.hits import Hit

CLEAN = ["doc", "é", "日本語", "100%", "%s", "\u2028", "😀", "x y", "\x7f"]


def _cases(seed: int, size: int, *, count: int | None, odd_id: str | None) -> list[CaseResult]:
    rng = random.Random(seed)
    cases = []
    odd_at = size // 2
    for n in range(size):
        hits = [
            Hit(f"d{rng.randrange(40)}{rng.choice(CLEAN)}", None, rng.choice(NUMBERS))
            for _ in range(rng.choice([0, 2, 10]) if count is None else count)
        ]
        if odd_id is not None and n >= odd_at and hits:
            hits[-1] = Hit(odd_id, None, 0.5)
            odd_at = size
        grades = {h.id: rng.choice([0, 1, 2, -1]) for h in hits[::2]}
        cases.append(
            CaseResult(
                id=f"case-{n}",
                query=f"q {n}",
                values={"mrr@10": rng.choice(NUMBERS), "hit_rate@10": 1.0},
                latency_ms=1.5,
                _ranked=(hits, grades),
            )
        )
    return cases


@pytest.mark.parametrize("count", [None, 10, 1, 0])
@pytest.mark.parametrize("odd_id", [None, 'q"uote', "back\\slash", "ctl\x01", "tab\t"])
def test_raw_ids_and_repeated_ranks_give_the_reference_text(
    count: int | None, odd_id: str | None
) -> None:
    cases = _cases(3, 60, count=count, odd_id=odd_id)
    twins = _cases(3, 60, count=count, odd_id=odd_id)
    row = {"mrr@10": 0.5, "hit_rate@10": 1.0}
    baselines: list[Any] = [row if n % 3 else None for n in range(60)]
    expected = [_reference(c, b) for c, b in zip(twins, baselines, strict=True)]
    text = cases_json(cases, baselines)
    assert text == ",".join(expected)
    entries = json.loads(f"[{text}]")
    if odd_id is not None and count != 0:
        assert odd_id in [h["id"] for e in entries for h in e["hits"]]


def test_built_hits_among_raw_ids() -> None:
    cases = _cases(4, 20, count=10, odd_id=None)
    twins = _cases(4, 20, count=10, odd_id=None)
    for case in (cases[3], twins[3]):
        assert len(case.hits) == 10  # built: this case is written from its records
    expected = [_reference(c, None) for c in twins]
    assert cases_json(cases, [None] * 20) == ",".join(expected)


@pytest.mark.parametrize("seed", range(5))
def test_shared_dicts_are_spelled_as_each_on_its_own(seed: int) -> None:
    rng = random.Random(seed)
    pool: list[dict[str, Any] | None] = [
        None,
        {},
        {"m": 0.0, "n": 0.5},
        {"m": -0.0, "n": 0.5},
        {"n": 0.5, "m": 0.0},
        {"m": math.nan},
        {"m": 1, "n": True},
        {'odd "%s"': 0.25},
    ]
    found = [rng.choice(pool) for _ in range(200)]
    found += [dict(d) if d is not None else None for d in found[:50]]  # equal, not shared
    assert _all_floats(found) == ["null" if d is None else _floats(d) for d in found]
    assert [json.loads(t) if t != "null" else None for t in _all_floats(found)] == [
        None if d is None else {k: (None if math.isnan(v) else float(v)) for k, v in d.items()}
        for d in found
    ]
    zeros = [json.loads(t)["m"] for t in _all_floats(found) if '"m":0.0' in t or '"m":-0.0' in t]
    signs = [math.copysign(1, z) for z in zeros]
    assert -1 in signs
    assert 1 in signs


def test_words_of_the_reference_set_need_escaping() -> None:
    """The reference generator's odd words still run through the escaping path."""
    assert any(json.dumps(w, ensure_ascii=False)[1:-1] != w for w in WORDS)
    assert all(json.dumps(w, ensure_ascii=False)[1:-1] == w for w in CLEAN)
