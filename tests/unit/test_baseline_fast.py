"""The quick baseline paths give exactly what the general ones give.

Writing (``baseline_rows``), reading (``baseline_bulk``) and ordering ids each have a quick path
for the usual large run and fall back to the general one for anything else; these tests run
both on generated documents with odd content (unicode and escaped ids, mixed id shapes, empty
rankings, integer and non-finite values, damaged lines) and compare the results.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

import pytest
from baseline_data import make_result

from pytest_ragcheck.baseline import document as baseline_doc
from pytest_ragcheck.baseline.bulk import LazyHits
from pytest_ragcheck.baseline.document import BaselineDoc, round_value
from pytest_ragcheck.baseline.rows import case_block
from pytest_ragcheck.common.errors import BaselineError

ODD_IDS = [
    "q1",
    "q10",
    "q2",
    "Q-ü-3",
    'say "hi"',
    "back\\slash",
    "tab\there",
    "٣٤",  # Arabic-Indic digits: a natural key reads them as a number
    "q01",
    "",
    "{brace}",
]


def _doc(ids: list[str], *, seed: int = 0, empty_hits: bool = False) -> BaselineDoc:
    rng = random.Random(seed)
    names = ("mrr@10", "ndcg@10", "odd {name}")  # braces: the writer formats lines
    values = {
        i: {n: round_value(rng.choice([0.0, 1.0, 0.5, 1 / 3, rng.random()]), 4) for n in names}
        for i in ids
    }
    hits = {i: () if empty_hits and n % 3 == 0 else (f"d{n}", i, 'ü"x') for n, i in enumerate(ids)}
    return BaselineDoc(
        k=10,
        metrics=names,
        n_cases=len(ids) + 2,
        golden_hash="ab" * 32,
        aggregates={n: 0.5 for n in names},
        cases=values,
        case_hashes={i: f"{n:016x}" for n, i in enumerate(ids)},
        hits=hits,
    )


def _general_text(doc: BaselineDoc, monkeypatch: pytest.MonkeyPatch) -> str:
    with monkeypatch.context() as patch:
        patch.setattr(baseline_doc, "case_block", lambda doc, order: None)
        return doc.to_json()


def _general_read(text: str, monkeypatch: pytest.MonkeyPatch) -> BaselineDoc:
    with monkeypatch.context() as patch:
        patch.setattr(baseline_doc, "read_canonical", lambda *args, **kwargs: None)
        return BaselineDoc.from_json(text, source="b.json")


def _plain(doc: BaselineDoc) -> dict[str, Any]:
    return {
        "k": doc.k,
        "metrics": doc.metrics,
        "n_cases": doc.n_cases,
        "golden_hash": doc.golden_hash,
        "aggregates": dict(doc.aggregates),
        "cases": [(i, list(v.items())) for i, v in doc.cases.items()],
        "hashes": dict(doc.case_hashes),
        "hits": dict(doc.hits),
        "precision": doc.precision,
        "schema_version": doc.schema_version,
    }


@pytest.mark.parametrize(
    "ids",
    [
        [f"case-{i:06d}" for i in range(300)],
        [f"q{i}" for i in range(1, 40)],
        ODD_IDS,
        ["only"],
    ],
    ids=["one-shape", "mixed-widths", "odd", "single"],
)
@pytest.mark.parametrize("empty_hits", [False, True])
def test_written_and_read_back_as_the_general_paths_do(
    ids: list[str], empty_hits: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = _doc(ids, empty_hits=empty_hits)
    text = doc.to_json()
    assert text == _general_text(doc, monkeypatch)
    general = _plain(_general_read(text, monkeypatch))
    assert _plain(BaselineDoc.from_json(text, source="b.json")) == general
    assert _plain(BaselineDoc.from_json(text, source="b.json", expected=doc)) == general
    other = _doc(ids, seed=1, empty_hits=empty_hits)  # the same ids, other values
    assert _plain(BaselineDoc.from_json(text, source="b.json", expected=other)) == general


def test_a_result_is_stored_as_the_general_loop_stores_it(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(3)
    values = {
        f"c{i}": {"mrr@10": rng.choice([0.1 + 0.2, -0.0, 2 / 3, 1.0]), "recall@5": rng.random()}
        for i in range(500)
    }
    result = make_result(values, latency=False)
    quick = BaselineDoc.from_result(result, precision=3)
    with monkeypatch.context() as patch:
        patch.setattr(baseline_doc, "result_cases", lambda *args, **kwargs: None)
        general = BaselineDoc.from_result(result, precision=3)
    assert _plain(quick) == _plain(general)
    assert quick.to_json() == general.to_json()


@pytest.mark.parametrize("value", [1, True, float("nan"), float("inf"), None])
def test_unusual_values_take_the_general_loop(value: Any) -> None:
    values: dict[str, dict[str, Any]] = {f"c{i}": {"mrr@10": 0.5} for i in range(20)}
    values["c7"]["mrr@10"] = value
    result = make_result({i: {"mrr@10": 0.5} for i in values}, latency=False)
    result.cases[7].values["mrr@10"] = value
    if isinstance(value, bool | int):
        assert BaselineDoc.from_result(result).cases["c7"] == {"mrr@10": float(value)}
    else:
        with pytest.raises(BaselineError, match="for case 'c7'"):
            BaselineDoc.from_result(result)


def _corrupt(text: str, old: str, new: str) -> str:
    line = next(n for n, line in enumerate(text.split("\n")) if '"case-000017"' in line)
    lines = text.split("\n")
    assert old in lines[line]
    lines[line] = lines[line].replace(old, new, 1)
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"mrr@10": ', '"mrr@10": NaN, "x": '),
        ('"mrr@10": ', '"mrr@10": 1e400, "x": '),
        ("}},", "}}"),  # a missing comma
        ('"hash": "', '"hash": 7, "h": "'),
        ('"hits": [', '"hits": [3, '),
        ('"values": {', '"values": {"extra": 1.0, '),
        ('"case-000017"', '"case-000016"'),  # an id given twice
        ('"ndcg@10": ', '"ndcg@10": 1, "z": '),
    ],
)
def test_a_damaged_line_gives_the_general_message(
    old: str, new: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = _doc([f"case-{i:06d}" for i in range(9000)])  # more than one chunk of lines
    text = _corrupt(doc.to_json(), old, new)
    try:
        expected: Any = _plain(_general_read(text, monkeypatch))
    except BaselineError as exc:
        expected = str(exc)
    for hint in (None, doc):
        try:
            got: Any = _plain(BaselineDoc.from_json(text, source="b.json", expected=hint))
        except BaselineError as exc:
            got = str(exc)
        assert got == expected


def test_a_hand_edited_layout_is_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = _doc([f"q{i}" for i in range(30)])
    data = json.loads(doc.to_json())
    for text in (json.dumps(data), json.dumps(data, indent=2), json.dumps(data, indent=4)):
        assert _plain(BaselineDoc.from_json(text, expected=doc)) == _plain(
            _general_read(text, monkeypatch)
        )


def test_the_quick_paths_are_taken_for_a_usual_file() -> None:
    doc = _doc([f"case-{i:06d}" for i in range(300)])
    doc = replace(doc, hits={i: ("doc-1", f"doc-{i}") for i in doc.cases})
    text = doc.to_json()
    assert case_block(doc, list(doc.cases)) is not None
    assert isinstance(BaselineDoc.from_json(text).hits, LazyHits)  # read in chunks
    assert BaselineDoc.from_json(text, expected=doc).cases is doc.cases  # not parsed at all
    other = replace(doc, cases=_doc(list(doc.cases), seed=1).cases)
    assert BaselineDoc.from_json(text, expected=other).cases == doc.cases


def test_ranked_ids_of_a_line_with_two_cases_are_still_found() -> None:
    doc = _doc([f"case-{i:06d}" for i in range(50)])
    lines = doc.to_json().split("\n")
    at = next(n for n, line in enumerate(lines) if '"case-000010"' in line)
    # Two cases on one line, an empty line after: still one line per case in number.
    lines[at : at + 2] = [lines[at] + " " + lines[at + 1].strip(), ""]
    text = "\n".join(lines)
    read = BaselineDoc.from_json(text)
    assert isinstance(read.hits, LazyHits)
    assert dict(read.hits) == dict(doc.hits)
    assert read.cases == doc.cases
