"""The fast paths of loading and retrieval give what the general paths give, odd input too."""

from __future__ import annotations

import hashlib
import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from pytest_ragcheck.golden import GoldenCase, GoldenSet, files, load_golden
from pytest_ragcheck.golden.files import jsonl_records
from pytest_ragcheck.golden.plain import plain_case
from pytest_ragcheck.run.hits import Hit, normalize_hits, to_hit

ODD = ["a", "é", "日本", 'q"uote', "back\\slash", "tab\t", "\u2028line", "  padded ", "😀"]
VALUES: list[Any] = [None, "", "  ", 0, 1, True, 2.5, [], {}, ["x"], ["", "y"], {"d": 2}]


def _case(rng: random.Random) -> dict[str, Any]:
    raw: dict[str, Any] = {"query": rng.choice([*ODD, "q", "", " ", 3])}
    if rng.random() < 0.7:
        raw["id"] = rng.choice([*ODD, None, "", 7, True])
    fields = ["expected_ids", "relevance", "expected_texts", "reference_answer"]
    fields += ["reference_answers", "tags", "metadata", "unknown"]
    for field in rng.sample(fields, rng.randint(0, 4)):
        if field == "relevance":
            raw[field] = {rng.choice(ODD): rng.choice([0, 1, 3, -1, True]) for _ in range(2)}
        elif field == "metadata":
            raw[field] = {"k": rng.choice(VALUES)}
        elif rng.random() < 0.8:
            raw[field] = [rng.choice(ODD) for _ in range(rng.randint(0, 3))]
        else:
            raw[field] = rng.choice(VALUES)
    return raw


def test_plain_cases_equal_validated_cases() -> None:
    rng = random.Random(7)
    fast = 0
    for _ in range(3000):
        raw = _case(rng)
        plain = plain_case(raw)
        if plain is None:
            continue
        fast += 1
        validated = GoldenCase.model_validate(raw)
        assert plain == validated
        assert plain.__dict__ == validated.__dict__
        assert plain.model_fields_set == validated.model_fields_set
        assert plain.content_hash == validated.content_hash
        assert plain.relevance_map() == validated.relevance_map()
        assert plain.mode == validated.mode
        assert plain.relevant_count == validated.relevant_count
    assert fast > 300  # the generator reaches the fast path


def test_invalid_cases_are_left_to_pydantic() -> None:
    raws: list[dict[str, Any]] = [
        {"query": " "},
        {"query": "q", "id": 5},
        {"query": "q", "expected_ids": ["a", " "]},
        {"query": "q", "relevance": {"a": True}},
        {"query": "q", "expected_texts": ["  "]},
        {"query": "q", "reference_answers": [""]},
        {"query": "q", "tags": ("a",)},
        {"query": "q", "qid": "x"},
    ]
    for raw in raws:
        assert plain_case(raw) is None


def _reference_hash(case: GoldenCase) -> str:
    content = {
        "query": case.query,
        "relevance": case.relevance_map(),
        "expected_texts": case.expected_texts,
        "reference_answer": case.reference_answer,
    }
    if case.reference_answers:
        content["reference_answers"] = case.reference_answers
    blob = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def test_hashes_are_the_canonical_json_ones() -> None:
    rng = random.Random(3)
    cases = [
        GoldenCase(
            id=f"{rng.choice(ODD)}{i}",
            query=rng.choice(ODD) + "q",
            expected_ids=rng.sample(ODD, 2),
            relevance={rng.choice(ODD): rng.choice([0, 2, -3, 10**12])},
            expected_texts=rng.sample([o for o in ODD if o.strip()], rng.randint(0, 2)),
            reference_answer=rng.choice([None, "ans é"]),
            reference_answers=rng.sample(["r1", "ré"], rng.randint(0, 2)),
        )
        for i in range(200)
    ]
    golden = GoldenSet(tuple(cases), "<cases>")
    assert golden.case_hashes == {c.id: _reference_hash(c) for c in cases}
    payload = {
        "version": 1,
        "cases": [
            {
                "id": c.id,
                "query": c.query,
                "relevance": c.relevance_map(),
                "expected_texts": c.expected_texts,
                "reference_answer": c.reference_answer,
                **({"reference_answers": c.reference_answers} if c.reference_answers else {}),
            }
            for c in cases
        ],
    }
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert golden.content_hash == hashlib.sha256(blob.encode()).hexdigest()


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}\n\n  \n{"b": [1, 2]}\r\n"s"\n',
        '{"a": 1}\n1, 2\n',
        '{"a": 1, "a": 2}\n{"b": 1}\n',
        '{"a": 1}\n{"b": \n',
        "1]\n[2\n",
        '{"t": "x\u2028y"}\n{"u": 1}\n',
        "{}\n" + "9" * 5000 + "\n",
    ],
)
@pytest.mark.parametrize("chunk", [2048, 2])
def test_jsonl_lines_read_at_once_as_one_by_one(
    text: str, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "_CHUNK", chunk)
    got_problems: list[str] = []
    got = list(jsonl_records(text, "f.jsonl", got_problems))
    want_problems: list[str] = []
    lines = [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]
    want = []
    for number, line in lines:  # the reference: each line parsed on its own
        one: list[str] = []
        values = list(jsonl_records(line + "\n", "f.jsonl", one))
        want_problems += [p.replace("f.jsonl:1:", f"f.jsonl:{number}:") for p in one]
        want += [(number, f"f.jsonl:{number}", v) for _, _, v in values]
    assert got == want
    assert [p.split(":")[1] for p in got_problems] == [p.split(":")[1] for p in want_problems]


def test_golden_file_loads_the_same_cases(tmp_path: Path) -> None:
    rng = random.Random(5)
    raws = [_case(rng) for _ in range(400)]
    good = []
    for i, raw in enumerate(raws):
        try:
            GoldenCase.model_validate(raw)
        except Exception:
            continue
        raw["id"] = f"c{i}"
        good.append(raw)
    path = tmp_path / "g.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in good), "utf-8")
    loaded = load_golden(path)
    assert [c.__dict__ for c in loaded] == [GoldenCase.model_validate(r).__dict__ for r in good]


def _general(raw: list[Any]) -> tuple[list[Hit], int]:
    hits: list[Hit] = []
    seen: set[str] = set()
    for item in raw:
        hit = to_hit(item)
        if hit.id not in seen:
            seen.add(hit.id)
            hits.append(hit)
    return hits, len(raw) - len(hits)


def test_plain_hits_equal_the_general_path() -> None:
    rng = random.Random(11)
    items: list[Any] = [*ODD, ("d", 0.5), ("é", math.nan), ("x", math.inf), ("d", -1.0)]
    items += [("y", 1), ("z", None), 5, {"id": "m", "text": "t"}]
    for _ in range(2000):
        raw = [rng.choice(items) for _ in range(rng.randint(0, 8))]
        hits, dropped = normalize_hits(raw)
        want, want_dropped = _general(raw)
        assert dropped == want_dropped
        assert [(h.id, h.text, h.alternatives) for h in hits] == [
            (h.id, h.text, h.alternatives) for h in want
        ]
        assert [repr(h.score) for h in hits] == [repr(h.score) for h in want]
        assert all(type(h) is Hit for h in hits)


def test_hit_equality_ignores_alternatives() -> None:
    plain, other = Hit("a", "t", 1.0), Hit("a", "t", 1.0, (("k", "v"),))
    assert plain == other
    assert (plain != other) is False
    assert hash(plain) == hash(other)
    assert plain != Hit("a", "t", 2.0)
    assert plain != ("a", "t", 1.0, ())
    with pytest.raises(AttributeError):
        plain.id = "b"  # type: ignore[misc]
    with pytest.raises(TypeError, match="not a list of hits"):
        normalize_hits(plain)


def test_cpu_time_is_measured_only_for_auto_first_calls() -> None:
    from pytest_ragcheck.run.runner import RunOptions, run_cases

    queries = [f"q{i}" for i in range(8)]
    fixed = run_cases(lambda q: [q], queries, RunOptions(k=None, concurrency=1, timeout=None))
    assert [o.hits for o in fixed.outcomes] == [[Hit(q)] for q in queries]
    assert all(o.cpu_ms is None for o in fixed.outcomes)
    auto = run_cases(lambda q: [q], queries, RunOptions(k=None, concurrency="auto", timeout=5.0))
    assert auto.outcomes[0].cpu_ms is not None
    assert auto.outcomes[-1].cpu_ms is None
