"""``significance=``: a drop beyond tolerance fails only when the paired test finds it real."""

from __future__ import annotations

import textwrap

CASES = [
    {"id": f"s{i:02d}", "query": f"question {i}", "expected_ids": [f"d{i}"]} for i in range(10)
]

CONFTEST = """
import os

import pytest

PERFECT = {f"question {i}": [f"d{i}", "x"] for i in range(10)}
# One case of ten loses its hit: MRR drops by 0.1, but a single case is a coin flip.
NOISY = {**PERFECT, "question 0": ["x", "y"]}
# Eight cases of ten slip to rank 2: MRR drops by 0.4, every changed case got worse.
REAL = {**PERFECT, **{f"question {i}": ["x", f"d{i}"] for i in range(8)}}


def make(rankings):
    if os.environ.get("RAGCHECK_TEST_PHASE") == "baseline":
        rankings = PERFECT
    return lambda query: list(rankings.get(query, []))


@pytest.fixture
def noisy():
    return make(NOISY)


@pytest.fixture
def real():
    return make(REAL)
"""

TESTS = """
from pytest_ragcheck import ragcheck

@ragcheck("golden.jsonl", k=5, metrics=["mrr"], significance=0.05)
def test_noisy_gated(ragcheck, noisy):
    ragcheck(noisy)

@ragcheck("golden.jsonl", k=5, metrics=["mrr"])
def test_noisy_ungated(ragcheck, noisy):
    ragcheck(noisy)

@ragcheck("golden.jsonl", k=5, metrics=["mrr"], significance=0.05)
def test_real_gated(ragcheck, real):
    ragcheck(real)
"""


def test_significance_gate(suite, run_mode, monkeypatch) -> None:
    suite.golden(CASES)
    suite.pytester.makeconftest(textwrap.dedent(CONFTEST))
    suite.test(TESTS)
    monkeypatch.setenv("RAGCHECK_TEST_PHASE", "baseline")
    suite.update_baselines().assert_outcomes(passed=3)
    monkeypatch.setenv("RAGCHECK_TEST_PHASE", "changed")

    result = suite.run(*run_mode)
    result.assert_outcomes(passed=1, failed=2)
    text = suite.text(result)
    assert "PASSED test_rag.py::test_noisy_gated" in text
    assert "FAILED test_rag.py::test_noisy_ungated" in text
    assert "FAILED test_rag.py::test_real_gated" in text
    # The same noisy drop, failed without the gate: p and the interval are in the message.
    assert "mrr@5: 1.000 → 0.900 (Δ −0.100, allowed 0.020, p=0.5, 95% CI [−0.300, +0.000])" in text
    # A real drop fails even with the gate; exact sign-flip test: p = 2**-8.
    assert "mrr@5: 1.000 → 0.600 (Δ −0.400, allowed 0.020, p=0.00391, 95% CI [" in text
    # The gated pass says why it passed.
    assert "not significant: p=0.5 > significance 0.05" in text
    suite.assert_clean(result)
