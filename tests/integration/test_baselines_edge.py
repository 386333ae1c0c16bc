"""Baselines as a team lives with them: hand-edited and merged files, odd encodings, odd sets.

Each test runs real pytest sessions on a small project and checks what the user sees.
"""

from __future__ import annotations

from harness import SERIAL_ONLY, Suite, ragcheck_module

SNAPSHOT = "__snapshots__/test_rag/test_rag[ragcheck].json"


def _flat(suite: Suite, result: object) -> str:
    return " ".join(suite.text(result).split())  # type: ignore[arg-type]


@SERIAL_ONLY
def test_no_zero_detectable_drop_for_a_metric_every_case_scores_alike(suite, run_mode) -> None:
    """precision@10 of 0.2 on every case: the figure is left out, never shown as 0.000."""
    cases = [
        {"id": f"c{i}", "query": f"q {i}", "expected_ids": [f"d{i}", f"e{i}"]} for i in range(30)
    ]
    rankings = {
        f"q {i}": [*(["x"] * (i % 3)), f"d{i}", f"e{i}", *[f"y{j}" for j in range(8)]]
        for i in range(30)
    }
    suite.make(
        ragcheck_module('"golden.jsonl", k=10, metrics=["precision", "mrr"]'),
        cases=cases,
        rankings=rankings,
    )
    suite.update_baselines().assert_outcomes(passed=1)
    result = suite.run("-v", *run_mode)
    result.assert_outcomes(passed=1)
    text = _flat(suite, result)
    assert "smallest drop this golden set detects" in text
    assert "mrr@10 0." in text
    assert "precision@10" not in text.split("smallest drop this golden set detects")[1]
