"""The whole life of a baseline, in one project, in one process and under pytest-xdist.

no baseline -> ``--snapshot-update`` creates it -> an unchanged rerun passes and leaves the
file byte-identical -> a worse retriever fails with the regression message -> the intentional
change is accepted with ``--snapshot-update`` -> an improvement passes and is pointed out ->
a changed golden set is "not comparable" -> a crashing test under ``--snapshot-update``
keeps its file.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness import SERIAL_ONLY

TESTS = """
import pytest
from pytest_ragcheck import ragcheck
CRASH = {crash!r}


@ragcheck("golden.jsonl", k=5)
def test_faq(ragcheck, retriever):
    if CRASH:
        raise RuntimeError("the index is not built")
    ragcheck(retriever)


class TestVariants:
    @ragcheck("golden.jsonl", k=3, metrics=["mrr", "recall"])
    @pytest.mark.parametrize("variant", ["plain", "odd:name/with space"])
    def test_variant(self, ragcheck, retriever, variant):
        ragcheck(retriever)
"""

FAQ = Path("__ragcheck__/test_rag/test_faq[ragcheck].json")
PLAIN = Path("__ragcheck__/test_rag/TestVariants.test_variant[plain][ragcheck].json")
ODD = Path(
    "__ragcheck__/test_rag/TestVariants.test_variant[odd%3Aname%2Fwith space][ragcheck].json"
)


def test_baseline_life_cycle(suite, run_mode: list[str]) -> None:
    suite.make(TESTS.format(crash=False))

    # 1. No baseline yet: every test fails with syrupy's hint, nothing is written.
    result = suite.run(*run_mode)
    result.assert_outcomes(failed=3)
    text = suite.text(result)
    assert (
        f"No baseline stored for this test yet ({FAQ.as_posix()}): "
        'run `pytest "test_rag.py::test_faq" --snapshot-update` to record it' in text
    )
    suite.assert_clean(result)
    assert not (suite.path / "__ragcheck__").exists()

    # 2. --snapshot-update creates one file per test, with stable, file-system-safe names.
    result = suite.run("--snapshot-update", *run_mode)
    result.assert_outcomes(passed=3)
    assert "3 snapshots generated" in suite.text(result)
    assert set(suite.snapshots()) == {FAQ.as_posix(), PLAIN.as_posix(), ODD.as_posix()}
    stored = suite.read_json(FAQ)
    assert stored["aggregates"]["mrr@5"] == 1.0
    assert stored["n_cases"] == 4
    assert set(stored["cases"]) == {"q1", "q2", "q3", "q4"}
    created = suite.snapshots()

    # 3. An unchanged rerun passes and leaves every file byte-identical.
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=3)
    assert "3 snapshots passed" in suite.text(result)
    assert suite.snapshots() == created

    # 4. A worse retriever fails with the regression message, without a traceback.
    suite.retriever(suite.WORSE)
    result = suite.run("--ragcheck-report=report.json", *run_mode)
    result.assert_outcomes(failed=3)
    text = suite.text(result)
    result.stdout.fnmatch_lines(
        [
            "*ragcheck failed for golden.jsonl (4 cases, k=5)*",
            "*Regressed against the baseline:*",
            "*mrr@5: 1.000 → 0.708 (Δ −0.292, allowed 0.020, p=0.25, 95% CI [[]*",
            "*cases that got worse most (*, before → after):*",
            "*q4  'what is epsilon'  1.000 → 0.333*",
            "*If this change is intended, re-record this test's baseline: "
            '`pytest "test_rag.py::test_faq" --snapshot-update`*',
        ]
    )
    assert "hit_rate@5" not in text.split("Regressed against the baseline:")[1].split("\n\n")[0]
    suite.assert_clean(result)
    assert suite.snapshots() == created  # a failing run never rewrites a baseline
    # The report carries the comparison: status, p-value, interval, per-case baseline values.
    report = suite.read_json("report.json")
    faq = next(t for t in report["tests"] if t["nodeid"] == "test_rag.py::test_faq")
    assert faq["baseline"]["status"] == "compared"
    assert faq["baseline"]["path"] == FAQ.as_posix()
    assert "mrr@5" in faq["baseline"]["regressed"]
    mrr = next(m for m in faq["metrics"] if m["name"] == "mrr@5")
    assert (mrr["status"], mrr["baseline"], mrr["p_value"]) == ("regressed", 1.0, 0.25)
    assert len(mrr["ci"]) == 2
    q4 = next(c for c in faq["cases"] if c["id"] == "q4")
    assert q4["baseline_values"]["mrr@5"] == 1.0

    # 5. The change was intended: --snapshot-update records it.
    result = suite.run("--snapshot-update", *run_mode)
    result.assert_outcomes(passed=3)
    assert "3 snapshots updated" in suite.text(result)
    accepted = suite.snapshots()
    assert json.loads(accepted[FAQ.as_posix()])["aggregates"]["mrr@5"] == 0.7083

    # 6. An improvement (against the accepted baseline) passes, is pointed out with the hint,
    #    and changes nothing on disk.
    suite.retriever()
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=3)
    text = suite.text(result)
    assert "mproved beyond tolerance" in text
    assert "--snapshot-update" in text
    assert "0.708 → 1.000" in text
    assert suite.snapshots() == accepted

    # 7. A grown golden set still compares, on the shared cases, and names the new case.
    suite.golden([*suite.GOLDEN, {"id": "q5", "query": "what is zeta", "expected_ids": ["z"]}])
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=3)
    text = suite.text(result)
    assert (
        "golden set changed since the baseline: 1 added (q5); compared on the 4 shared case(s)"
        in text
    )
    suite.assert_clean(result)
    assert suite.snapshots() == accepted

    # 8. A test that crashes under --snapshot-update keeps its baseline (byte-identical),
    #    while the others are re-recorded for the new golden set.
    suite.test(TESTS.format(crash=True))
    result = suite.run("--snapshot-update", *run_mode)
    result.assert_outcomes(passed=2, failed=1)
    assert "RuntimeError: the index is not built" in suite.text(result)
    after_crash = suite.snapshots()
    assert after_crash[FAQ.as_posix()] == accepted[FAQ.as_posix()]
    assert json.loads(after_crash[PLAIN.as_posix()])["n_cases"] == 5
    assert "deleted" not in suite.text(result).lower()


@SERIAL_ONLY
def test_update_new_only_creates_but_never_rewrites(suite, run_mode: list[str]) -> None:
    """``--snapshot-update-new-only`` records missing baselines and compares existing ones."""
    suite.make(TESTS.format(crash=False))
    result = suite.run("--snapshot-update-new-only", *run_mode)
    result.assert_outcomes(passed=3)
    created = suite.snapshots()
    assert len(created) == 3
    suite.retriever(suite.WORSE)
    result = suite.run("--snapshot-update-new-only", *run_mode)
    result.assert_outcomes(failed=3)
    assert "Regressed against the baseline:" in suite.text(result)
    assert suite.snapshots() == created
