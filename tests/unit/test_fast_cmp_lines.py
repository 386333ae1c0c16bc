"""The baseline check's quick paths give exactly what the general ones give.

A run's stored cases share one values dict per distinct row; the cases block is written (and
compared with the stored file) a piece at a time, at fixed places when every case has as many
ranked ids; natural order is checked on all ids joined; the shared cases are the stored ones
as they are when nothing changed; syrupy's second read of a file is served from the first.
Each is run here against the general path on generated documents with odd content.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from baseline_data import make_result
from test_baseline_fast import _general_text

from pytest_ragcheck.baseline import document as baseline_doc
from pytest_ragcheck.baseline import rows as baseline_rows
from pytest_ragcheck.baseline.decision import BaselineOutcome
from pytest_ragcheck.baseline.document import BaselineDoc
from pytest_ragcheck.baseline.rows import case_block, case_lines, same_cases
from pytest_ragcheck.common.escapes import escapes
from pytest_ragcheck.common.sorting import natural_sorted
from pytest_ragcheck.gate.case_match import match_cases
from pytest_ragcheck.plugin.snapshot_files import RagcheckSnapshotExtension, forget_reads
from pytest_ragcheck.run.hits import Hit

IDS = ["case-ü", 'say "hi"', "back\\slash", "tab\there", "日本", "q1", "q10", "q2", ""]
VALUES = [0.0, 1.0, 0.5, 1 / 3, 0.25, 2 / 3]


def _doc(seed: int, size: int, *, counts: list[int], shared: bool) -> BaselineDoc:
    """A document of ``size`` cases, ranked-id counts drawn from ``counts``; ``shared``: the
    cases with the same values share one dict (as a run's do)."""
    rng = random.Random(seed)
    names = ("mrr@10", "ndcg@10", "odd {name}")
    rows: dict[tuple[float, ...], dict[str, float]] = {}
    cases: dict[str, dict[str, float]] = {}
    hits: dict[str, tuple[str, ...]] = {}
    for n in range(size):
        case_id = f"case-{n:05d}"
        row = tuple(rng.choice(VALUES) for _ in names)
        made = dict(zip(names, row, strict=True))
        cases[case_id] = rows.setdefault(row, made) if shared else made
        hits[case_id] = tuple(f"doc-{rng.randrange(50)}" for _ in range(rng.choice(counts)))
    return BaselineDoc(
        k=10,
        metrics=names,
        n_cases=size,
        golden_hash="ab" * 32,
        aggregates={n: 0.5 for n in names},
        cases=cases,
        case_hashes={i: f"{n:016x}" for n, i in enumerate(cases)},
        hits=hits,
    )


@pytest.mark.parametrize("counts", [[10], [3], [0], [0, 1, 10], [0, 0, 0, 4]])
@pytest.mark.parametrize("shared", [True, False])
@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_lines_in_pieces_are_the_general_text(
    counts: list[int], shared: bool, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(baseline_rows, "_CHUNK", chunk)
    doc = _doc(len(counts) + chunk, 60, counts=counts, shared=shared)
    order = list(doc.cases)
    lines = case_lines(doc, order)
    assert lines is not None
    pieces = list(lines)
    assert len(pieces) == -(-60 // chunk)
    text = doc.to_json()
    assert text == _general_text(doc, monkeypatch)
    assert "".join(pieces) in text
    start = text.index("".join(pieces))
    assert same_cases(doc, text, start, start + len("".join(pieces))) is not None


@pytest.mark.parametrize("chunk", [5, 4096])
def test_a_difference_anywhere_is_found(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(baseline_rows, "_CHUNK", chunk)
    doc = _doc(1, 40, counts=[10], shared=True)
    text = doc.to_json()
    block = case_block(doc, list(doc.cases))
    assert block is not None
    start, end = text.index(block), text.index(block) + len(block)
    assert same_cases(doc, text, start, end) == doc.cases
    for changed in ("case-00000", "case-00023", "case-00039"):
        line = next(x for x in text.split("\n") if f'"{changed}"' in x)
        edited = text.replace(line, line.replace('"doc-', '"dok-', 1))
        assert same_cases(doc, edited, start, end) is None
    assert same_cases(doc, text, start, end - 1) is None
    assert same_cases(doc, text[:end] + ",\n" + text[end:], start, end + 2) is None
    fewer = replace(doc, cases={i: v for i, v in doc.cases.items() if i != "case-00039"})
    assert same_cases(fewer, text, start, end) is None


@pytest.mark.parametrize(
    "odd",
    [
        {"value": -0.0},
        {"value": float("nan")},
        {"value": 1},
        {"hit": 'q"uote'},
        {"hit": "ctl\x01"},
        {"id": "back\\slash"},
    ],
)
def test_odd_content_takes_the_general_path(
    odd: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = _doc(2, 30, counts=[0, 10], shared=True)
    cases = {i: dict(v) for i, v in doc.cases.items()}
    hits = dict(doc.hits)
    if "value" in odd:
        cases["case-00011"]["mrr@10"] = odd["value"]
    if "hit" in odd:
        hits["case-00011"] = ("doc-1", odd["hit"])
    if "id" in odd:
        cases[odd["id"]] = cases.pop("case-00011")
        hits[odd["id"]] = hits.pop("case-00011")
    doc = replace(doc, cases=cases, hits=hits, case_hashes={i: "h" for i in cases})
    assert case_lines(doc, list(doc.cases)) is None
    if "value" not in odd or odd["value"] == -0.0:  # a NaN is never written
        assert doc.to_json() == _general_text(doc, monkeypatch)


def _result(seed: int, size: int, *, built: int = 0, clean: bool = True) -> Any:
    rng = random.Random(seed)
    words = ["q1", "日本", "x"] if clean else IDS
    values = {
        f"c{i:04d}": {"mrr@10": rng.choice([*VALUES, 0.1 + 0.2]), "recall@5": rng.choice(VALUES)}
        for i in range(size)
    }
    result = make_result(values, latency=False)
    for n, case in enumerate(result.cases):
        count = rng.choice([0, 3, 10, 12])
        hits = [Hit(f"d{rng.randrange(30)}{rng.choice(words)}", None, 1.0) for _ in range(count)]
        case._ranked = (hits, {})
        if n < built:
            assert len(case.hits) == count  # built: its ``_ranked`` is gone
    return result


@pytest.mark.parametrize("built", [0, 5])
@pytest.mark.parametrize("clean", [True, False])
def test_a_result_is_stored_and_compared_as_the_general_paths_do(
    built: int, clean: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _result(4, 80, built=built, clean=clean)
    doc = BaselineDoc.from_result(result)
    assert (case_lines(doc, list(doc.cases)) is not None) == clean  # ids to escape: general
    quick = BaselineDoc.from_result(result, precision=3)
    rows = {id(v) for v in quick.cases.values()}
    assert len(rows) < len(quick.cases)  # the cases share their rows' dicts
    with monkeypatch.context() as patch:
        patch.setattr(baseline_doc, "result_cases", lambda *args, **kwargs: None)
        general = BaselineDoc.from_result(result, precision=3)
    assert quick.cases == general.cases
    assert list(quick.cases) == list(general.cases)
    assert dict(quick.hits) == dict(general.hits)
    assert dict(quick.case_hashes) == dict(general.case_hashes)
    text = general.to_json()
    assert quick.to_json() == text == _general_text(general, monkeypatch)
    read = BaselineDoc.from_json(text, expected=quick)
    assert read.cases == general.cases
    assert match_cases(read, quick).whole


def test_the_golden_hashes_are_used_as_they_are_only_when_they_fit() -> None:
    result = _result(5, 20)
    own = {c.id: f"h{c.id}" for c in result.cases}
    result.golden = type("Golden", (), {"case_hashes": own})()
    assert BaselineDoc.from_result(result).case_hashes is own
    more = {**own, "extra": "x"}
    result.golden = type("Golden", (), {"case_hashes": more})()
    doc = BaselineDoc.from_result(result)
    assert doc.case_hashes == own
    assert doc.case_hashes is not more


@pytest.mark.parametrize("change", ["none", "added", "removed", "edited"])
def test_shared_cases_are_the_stored_ones_when_nothing_changed(change: str) -> None:
    stored = _doc(3, 40, counts=[2], shared=True)
    current = stored
    if change == "added":
        current = replace(stored, cases={**stored.cases, "case-99999": {"mrr@10": 1.0}})
    elif change == "removed":
        current = replace(stored, cases=dict(list(stored.cases.items())[1:]))
    elif change == "edited":
        current = replace(stored, case_hashes={**stored.case_hashes, "case-00003": "new"})
    match = match_cases(stored, current)
    common = set(stored.cases) & set(current.cases)
    edited = {i for i in common if stored.case_hashes[i] != current.case_hashes.get(i)}
    assert list(match.shared) == natural_sorted(list(common - edited))
    assert match.whole == (change == "none")


def test_the_outcome_shares_the_value_dicts_it_reports() -> None:
    row = {"mrr@10": 0.5}
    cases = {"a": row, "b": row, "c": {"mrr@10": 1.0}}
    out = BaselineOutcome(status="compared", cases=cases).to_dict()["cases"]
    assert out == {"a": {"mrr@10": 0.5}, "b": {"mrr@10": 0.5}, "c": {"mrr@10": 1.0}}
    assert out is not cases
    assert out["a"] is row
    odd = BaselineOutcome(status="compared", cases={"a": _Values(row)}).to_dict()["cases"]
    assert type(odd["a"]) is dict
    assert odd == {"a": {"mrr@10": 0.5}}


class _Values(dict[str, float]):
    """Not a plain dict: copied into one."""


def test_a_second_read_of_an_unchanged_file_comes_from_the_first(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_text("one\r\ntwo\n", encoding="utf-8")
    ext = RagcheckSnapshotExtension()

    def read() -> str | None:
        return ext.read_snapshot_data_from_location(
            snapshot_location=str(path), snapshot_name="x", session_id=""
        )

    first = read()
    assert first == "one\ntwo\n"
    assert read() is first  # served from the first read, once
    assert read() == first
    assert read() is not first
    read()
    path.write_text("changed, and longer\n", encoding="utf-8")
    assert read() == "changed, and longer\n"
    read()
    forget_reads()
    path.unlink()
    assert read() is None


@pytest.mark.parametrize("seed", range(10))
def test_escapes_tells_what_json_escapes(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = ["a", "1", " ", "é", "日", "😀", "\u2028", "\xa0", "\x7f", "\ud800", '"', "\\"]
    alphabet += [chr(c) for c in range(32)]
    for _ in range(300):
        text = "".join(rng.choice(alphabet[: rng.choice([6, 12, len(alphabet)])]) for _ in range(8))
        assert escapes(text) == (json.dumps(text, ensure_ascii=False)[1:-1] != text)
    assert not escapes("")
