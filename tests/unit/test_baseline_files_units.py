"""Stored baselines edited by hand: what the chunked reader gives back for an unusual line."""

from __future__ import annotations

import pytest

from pytest_ragcheck.baseline.bulk import LazyHits
from pytest_ragcheck.baseline.document import BaselineDoc

CASES = {f"q{i}": {"mrr@10": 1.0 / i, "recall@10": 0.5} for i in range(1, 5)}
HITS = {case_id: (f"d{case_id}", "x", f"y{case_id}") for case_id in CASES}
DOC = BaselineDoc(
    k=10,
    metrics=("mrr@10", "recall@10"),
    n_cases=len(CASES),
    golden_hash="3f" * 32,
    aggregates={"mrr@10": 0.5208, "recall@10": 0.5},
    cases={
        case_id: {n: round(v, 4) for n, v in values.items()} for case_id, values in CASES.items()
    },
    case_hashes={case_id: f"{n:016x}" for n, case_id in enumerate(CASES)},
    hits=HITS,
)


@pytest.mark.parametrize("blanks", [" ", "\t", "   "])
def test_a_case_line_with_blanks_after_its_comma_gives_its_ranking(blanks: str) -> None:
    """A case's ranking is parsed from its line when a regression is explained; blanks after
    the comma (still valid JSON) made that parse fail with a JSONDecodeError."""
    canonical = DOC.to_json()
    edited = canonical.replace("}},\n", "}}," + blanks + "\n")
    assert edited.count(blanks + "\n") == len(CASES) - 1
    read = BaselineDoc.from_json(edited)
    assert isinstance(read.hits, LazyHits)  # the chunked reader, not the full parse
    assert {case_id: read.hits[case_id] for case_id in read.cases} == HITS
    assert read.cases == DOC.cases
