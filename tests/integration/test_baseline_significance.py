"""``significance=``: a drop beyond tolerance fails only when the paired test finds it real."""

from __future__ import annotations

import textwrap

from harness import SERIAL_ONLY

CASES = [
    {"id": f"s{i:02d}", "query": f"question {i}", "expected_ids": [f"d{i}"]} for i in range(10)
]

CONFTEST = """
import os

import pytest

# Baseline: half the cases find their document at rank 2, half at rank 1 (MRR 0.75).
BASE = {f"question {i}": (["x", f"d{i}"] if i < 5 else [f"d{i}", "x"]) for i in range(10)}
# Two cases move up and three move down: MRR drops by 0.05, but the changes go both ways
# and a coin flip explains them (p = 0.5 with five changed cases).
NOISY = {
    **BASE,
    **{f"question {i}": [f"d{i}", "x"] for i in (0, 1)},
    **{f"question {i}": ["x", f"d{i}"] for i in (5, 6, 7)},
}
# Five cases slip from rank 1 to rank 3: every changed case got worse (p = 2**-5).
REAL = {**BASE, **{f"question {i}": ["x", "y", f"d{i}"] for i in range(5, 10)}}


def make(rankings):
    if os.environ.get("RAGCHECK_TEST_PHASE") == "baseline":
        rankings = BASE
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

@ragcheck("golden.jsonl", k=5, metrics=["mrr"], significance=None)
def test_noisy_ungated(ragcheck, noisy):
    ragcheck(noisy)

@ragcheck("golden.jsonl", k=5, metrics=["mrr"], significance=0.05)
def test_real_gated(ragcheck, real):
    ragcheck(real)
"""


# Not about processes: pytest-xdist is covered by
# test_baseline_lifecycle.py::test_baseline_life_cycle[xdist].
@SERIAL_ONLY
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
    assert "mrr@5: 0.750 → 0.700 (Δ −0.050, allowed 0.020, p=0.5, 95% CI [" in text
    # A real drop fails with the gate; exact sign-flip test: p = 2**-5.
    assert "mrr@5: 0.750 → 0.417 (Δ −0.333, allowed 0.020, p=0.0312, 95% CI [" in text
    # The gated pass says why it passed.
    assert "not significant: p=0.5 > significance 0.05 (5 cases changed)" in text
    suite.assert_clean(result)
