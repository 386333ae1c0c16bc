"""``--snapshot-update`` edge cases: crash safety, floors, selection, overrides, options.

Crash safety and selection depend on how syrupy tracks snapshots across pytest-xdist workers,
so they run in both modes; the others read options the same way everywhere and run once.
"""

from __future__ import annotations

import importlib.metadata

import pytest
from harness import SERIAL_ONLY, Suite, ragcheck_module

import pytest_ragcheck.plugin.snapshots

SYRUPY_MAJOR = int(importlib.metadata.version("syrupy").split(".")[0])
CRASHING = {
    "test_call_crash": """
        import os
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=5)
        def test_call(ragcheck, retriever):
            if os.environ.get("RAGCHECK_TEST_CRASH"):
                raise RuntimeError("crashed before the evaluation")
            ragcheck(retriever)
    """,
    "test_setup_crash": """
        import os
        import pytest
        from pytest_ragcheck import ragcheck
        @pytest.fixture
        def index():
            if os.environ.get("RAGCHECK_TEST_CRASH"):
                raise RuntimeError("the index could not be built")

        @ragcheck("golden.jsonl", k=5)
        def test_setup(index, retriever, ragcheck):
            ragcheck(retriever)
    """,
    "test_module_crash": """
        import os
        from pytest_ragcheck import ragcheck
        def setup_module(module):
            if os.environ.get("RAGCHECK_TEST_CRASH"):
                raise RuntimeError("module setup failed")

        @ragcheck("golden.jsonl", k=5)
        def test_module(ragcheck, retriever):
            ragcheck(retriever)
    """,
    "test_between_calls": """
        import os
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=5)
        def test_twice(ragcheck, retriever):
            ragcheck(retriever)
            if os.environ.get("RAGCHECK_TEST_CRASH"):
                raise RuntimeError("crashed between two evaluations")
            ragcheck(retriever, metrics=["recall"])
    """,
    "test_fine": """
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=5)
        def test_fine(ragcheck, retriever):
            ragcheck(retriever)
    """,
}

#: Baselines of evaluations that never ran in the crashing run.
PROTECTED = {
    "__ragcheck__/test_call_crash/test_call[ragcheck].json",
    "__ragcheck__/test_setup_crash/test_setup[ragcheck].json",
    "__ragcheck__/test_module_crash/test_module[ragcheck].json",
    "__ragcheck__/test_between_calls/test_twice[ragcheck-2].json",
}
#: Baselines of evaluations that did run (and are re-recorded).
UPDATED = {
    "__ragcheck__/test_between_calls/test_twice[ragcheck].json",
    "__ragcheck__/test_fine/test_fine[ragcheck].json",
}


def crash_project(suite: Suite) -> dict[str, bytes]:
    suite.golden()
    suite.retriever()
    for name, source in CRASHING.items():
        suite.test(source, name=name)
    suite.update_baselines().assert_outcomes(passed=len(CRASHING))
    created = suite.snapshots()
    assert set(created) == PROTECTED | UPDATED
    return created


def test_crashed_tests_keep_their_baselines(suite, run_mode, monkeypatch) -> None:
    created = crash_project(suite)
    suite.retriever(suite.WORSE)  # the test that runs re-records its baseline
    monkeypatch.setenv("RAGCHECK_TEST_CRASH", "1")
    result = suite.run("--snapshot-update", *run_mode)
    result.assert_outcomes(passed=1, failed=2, errors=2)
    text = suite.text(result)
    for message in (
        "crashed before the evaluation",
        "the index could not be built",
        "module setup failed",
        "crashed between two evaluations",
    ):
        assert message in text
    after = suite.snapshots()
    assert set(after) == set(created), "a crashed test lost its baseline"
    for path in PROTECTED:
        assert after[path] == created[path], f"{path} changed"
    for path in UPDATED:
        assert after[path] != created[path], f"{path} was not re-recorded"
    assert "deleted" not in text.lower()


@SERIAL_ONLY
def test_without_the_protection_syrupy_would_delete_them(suite, run_mode, monkeypatch) -> None:
    """The control: the crash-safety hook is what keeps the files (not luck or selection)."""
    created = crash_project(suite)
    # The run is in this process and uses this module (imported above, before any run):
    # patched here, it is restored after the test. A patch from the project's conftest would
    # outlive the run and break the later runs of this process.
    monkeypatch.setattr(pytest_ragcheck.plugin.snapshots, "keep_baselines", lambda item: 0)
    monkeypatch.setenv("RAGCHECK_TEST_CRASH", "1")
    result = suite.run("--snapshot-update", *run_mode)
    after = suite.snapshots()
    assert "deleted" in suite.text(result).lower()
    lost = set(created) - set(after)
    assert lost >= {
        "__ragcheck__/test_call_crash/test_call[ragcheck].json",
        "__ragcheck__/test_setup_crash/test_setup[ragcheck].json",
        "__ragcheck__/test_module_crash/test_module[ragcheck].json",
        "__ragcheck__/test_between_calls/test_twice[ragcheck-2].json",
    }


@SERIAL_ONLY
def test_floors_still_fail_in_update_mode_after_writing(suite, run_mode) -> None:
    suite.make(ragcheck_module('"golden.jsonl", k=5, min_mrr=0.9', function="test_floor"))
    suite.rebaseline(suite.PERFECT, suite.WORSE).assert_outcomes(passed=1)
    result = suite.run("--snapshot-update", *run_mode)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*Thresholds violated:*", "*mrr@5: 0.708 < 0.900 (floor)*"])
    suite.assert_clean(result)
    stored = suite.read_json("__ragcheck__/test_rag/test_floor[ragcheck].json")
    assert stored["aggregates"]["mrr@5"] == 0.7083  # written first, then failed


SELECTION = """
import os

import pytest
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=5)
def test_alpha(ragcheck, retriever):
    ragcheck(retriever)

@pytest.mark.slow
@ragcheck("golden.jsonl", k=5)
def test_beta(ragcheck, retriever):
    ragcheck(retriever)

@ragcheck("golden.jsonl", k=3)
@pytest.mark.parametrize("source", ["docs/faq.jsonl", "docs/faq"])
def test_gamma(ragcheck, retriever, source):
    if os.environ.get("RAGCHECK_TEST_SKIP"):
        pytest.skip("not today")
    ragcheck(retriever)
"""


def assert_ran(result: pytest.RunResult, *, passed: int) -> None:
    """Outcomes of a run with deselection (xdist's controller does not count deselected)."""
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed") == passed, outcomes
    assert not {"failed", "errors", "error"} & set(outcomes), outcomes


def test_selection_updates_only_what_ran(suite, run_mode, monkeypatch) -> None:
    suite.make(SELECTION)
    suite.ini(markers="\n    slow: slow tests")
    suite.update_baselines().assert_outcomes(passed=4)
    created = suite.snapshots()
    assert set(created) == {
        "__ragcheck__/test_rag/test_alpha[ragcheck].json",
        "__ragcheck__/test_rag/test_beta[ragcheck].json",
        # Distinct, file-system-safe names for ids that differ only in "/" and ".".
        "__ragcheck__/test_rag/test_gamma[docs%2Ffaq.jsonl][ragcheck].json",
        "__ragcheck__/test_rag/test_gamma[docs%2Ffaq][ragcheck].json",
    }
    suite.retriever(suite.WORSE)
    result = suite.run("--snapshot-update", "-k", "alpha", *run_mode)
    assert_ran(result, passed=1)
    after = suite.snapshots()
    assert set(after) == set(created)
    changed = {p for p in created if after[p] != created[p]}
    assert changed == {"__ragcheck__/test_rag/test_alpha[ragcheck].json"}

    result = suite.run("--snapshot-update", "-m", "not slow", *run_mode)
    assert_ran(result, passed=3)
    after_m = suite.snapshots()
    assert set(after_m) == set(created)
    assert (
        after_m["__ragcheck__/test_rag/test_beta[ragcheck].json"]
        == created["__ragcheck__/test_rag/test_beta[ragcheck].json"]
    )
    assert "deleted" not in suite.text(result).lower()

    # Skipped tests keep their baselines, percent-encoded names included (syrupy >= 7 relates
    # those names to their test through the extension; older versions only by its own rules).
    monkeypatch.setenv("RAGCHECK_TEST_SKIP", "1")
    result = suite.run("--snapshot-update", *run_mode)
    assert_ran(result, passed=2)
    after_skip = suite.snapshots()
    gamma = {p for p in created if "test_gamma" in p}
    if SYRUPY_MAJOR >= 7:
        assert set(after_skip) == set(created)
        assert all(after_skip[p] == after_m[p] for p in gamma)


OVERRIDES = """
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=5)
def test_override(ragcheck, retriever):
    ragcheck(retriever, baseline=False)

@ragcheck("golden.jsonl", k=5, baseline=False)
def test_marker(ragcheck, retriever):
    ragcheck(retriever)

@ragcheck("golden.jsonl", k=5)
def test_improves(ragcheck, retriever):
    ragcheck(retriever)
"""


@SERIAL_ONLY
def test_baseline_false_and_fail_on_improvement(suite, run_mode) -> None:
    suite.make(OVERRIDES)
    suite.rebaseline(suite.WORSE, suite.PERFECT).assert_outcomes(passed=3)
    assert set(suite.snapshots()) == {"__ragcheck__/test_rag/test_improves[ragcheck].json"}
    suite.ini(ragcheck_fail_on_improvement="true")
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*Improved beyond tolerance (ragcheck_fail_on_improvement is set*",
            "*mrr@5: 0.708 → 1.000 (Δ +0.292, allowed 0.020*",
            '*Record the improvement: `pytest "test_rag.py::test_improves" --snapshot-update`.*',
        ]
    )
    assert "FAILED test_rag.py::test_improves" in suite.text(result)
    suite.assert_clean(result)


@SERIAL_ONLY
def test_precision_ini(suite, run_mode) -> None:
    suite.make(OVERRIDES, rankings=suite.WORSE)
    suite.ini(ragcheck_baseline_precision="2")
    suite.run("--snapshot-update", *run_mode).assert_outcomes(passed=3)
    stored = suite.read_json("__ragcheck__/test_rag/test_improves[ragcheck].json")
    assert stored["precision"] == 2
    assert stored["aggregates"]["mrr@5"] == 0.71
    suite.ini(ragcheck_baseline_precision="many")
    result = suite.run(*run_mode)
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # refused at start-up, before any test
    assert "ini ragcheck_baseline_precision must be an integer 0-12" in suite.text(result)
    suite.assert_clean(result)


@SERIAL_ONLY
def test_syrupy_disabled_is_a_clear_failure(suite, run_mode) -> None:
    suite.make(OVERRIDES)
    result = suite.run("-p", "no:syrupy", *run_mode)
    result.assert_outcomes(passed=2, failed=1)
    text = suite.text(result)
    assert "baselines are stored with syrupy, but it is not active" in text
    assert "pass baseline=False" in text
    suite.assert_clean(result)
