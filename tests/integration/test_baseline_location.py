"""Where baselines live: ``__ragcheck__/`` beside the test module, a folder of their own.

syrupy's own ``__snapshots__/`` is scanned by any session with syrupy, this plugin loaded or
not: ``pytest -p no:ragcheck --snapshot-update`` (or a checkout with syrupy but without this
plugin) deleted every baseline kept there as an "unknown snapshot collection". Baselines an
earlier version kept there are still read, and moved by the next complete ``--snapshot-update``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from harness import SERIAL_ONLY, Suite, ragcheck_module

from pytest_ragcheck.plugin.snapshots import safe_file_stem

FAQ = "__ragcheck__/test_rag/test_rag[ragcheck].json"
OLD = "__snapshots__/test_rag/test_rag[ragcheck].json"

#: A test of the user's own with a syrupy snapshot (amber, in ``__snapshots__/``).
AMBER = """
def test_amber(snapshot):
    assert snapshot == {"answer": 42}
"""


def _recorded(suite: Suite) -> dict[str, bytes]:
    suite.make(ragcheck_module('"golden.jsonl", k=5'))
    suite.update_baselines().assert_outcomes(passed=1)
    recorded = suite.snapshots()
    assert set(recorded) == {FAQ}
    return recorded


def test_a_session_without_the_plugin_deletes_no_baseline(suite: Suite) -> None:
    recorded = _recorded(suite)
    suite.test(AMBER, name="test_amber")  # syrupy scans its folder in every session
    suite.update_baselines().assert_outcomes(passed=2)

    result = suite.run("-p", "no:ragcheck", "--snapshot-update", "-p", "no:xdist")
    result.assert_outcomes(passed=1, errors=1)  # test_rag: no `ragcheck` fixture
    text = suite.text(result)
    assert "Deleted" not in text, text
    assert suite.snapshots() == recorded, text
    assert (suite.path / "__snapshots__/test_amber.ambr").is_file()  # the user's own snapshot
    suite.run().assert_outcomes(passed=2)


def _legacy(suite: Suite) -> bytes:
    """The project as an earlier version left it: the baseline in ``__snapshots__/``."""
    _recorded(suite)
    shutil.move(suite.path / "__ragcheck__", suite.path / "__snapshots__")
    return (suite.path / OLD).read_bytes()


def test_an_old_baseline_is_compared_where_it_is(suite: Suite, run_mode: list[str]) -> None:
    old = _legacy(suite)
    suite.test(AMBER, name="test_amber")  # syrupy's own extension scans __snapshots__/ too
    suite.run("--snapshot-update", "-k", "amber", "-p", "no:xdist").assert_outcomes(
        passed=1, deselected=1
    )
    assert (suite.path / OLD).read_bytes() == old  # -k: not moved, not deleted

    result = suite.run(*run_mode)
    result.assert_outcomes(passed=2)
    assert result.ret == 0  # syrupy counts the old file as used, not unused
    assert "unused" not in suite.text(result)
    assert not (suite.path / "__ragcheck__").exists()  # a compare run moves nothing

    suite.retriever(suite.WORSE)
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=1, failed=1)
    assert "mrr@5 regressed (tolerance; too few changed cases to test) 1.000 → " in suite.text(
        result
    )
    assert (suite.path / OLD).read_bytes() == old


def test_update_moves_old_baselines_once_the_session_completes(
    suite: Suite, run_mode: list[str]
) -> None:
    old = _legacy(suite)
    suite.test(AMBER, name="test_amber")
    suite.write("__snapshots__/test_amber.ambr", "")  # recorded below
    suite.test("def test_zz_unrelated():\n    assert False\n", name="test_zz")

    # -x after the ragcheck test ran: copied, but the old file stays (incomplete session)
    result = suite.run("--snapshot-update", "-x", "-p", "no:randomly", "-p", "no:xdist")
    result.assert_outcomes(passed=2, failed=1)
    text = " ".join(suite.text(result).split())
    assert "1 baseline file(s) have their copy in __ragcheck__/ (the one now read)" in text
    assert "the old files are removed by a complete --snapshot-update" in text
    assert (suite.path / OLD).read_bytes() == old
    assert (suite.path / FAQ).read_bytes() == old  # byte for byte

    suite.test("def test_zz_unrelated():\n    pass\n", name="test_zz")
    result = suite.run("--snapshot-update", *run_mode)
    result.assert_outcomes(passed=3)
    text = " ".join(suite.text(result).split())
    assert "moved 1 baseline file(s) from __snapshots__/ to __ragcheck__/" in text, text
    assert not (suite.path / OLD).exists()
    assert not (suite.path / "__snapshots__/test_rag").exists()
    assert (suite.path / "__snapshots__/test_amber.ambr").is_file()  # the user's own stays
    assert suite.snapshots() == {FAQ: old}
    suite.run(*run_mode).assert_outcomes(passed=3)


# Not about processes: which modules were collected is known in every worker the same way.
@SERIAL_ONLY
def test_a_module_left_out_with_ignore_keeps_its_baselines(suite: Suite, run_mode) -> None:
    """With syrupy 5 the left-out module's baselines were deleted; syrupy 7 keeps a left-out
    module's snapshots only in its own ``__snapshots__/``, so the plugin keeps them itself."""
    suite.golden()
    suite.retriever()
    suite.test(ragcheck_module('"golden.jsonl", k=5'), name="test_rag")
    suite.test(ragcheck_module('"golden.jsonl", k=3', function="test_other"), name="test_other")
    suite.update_baselines().assert_outcomes(passed=2)
    recorded = suite.snapshots()
    assert len(recorded) == 2

    result = suite.update_baselines(None, "--ignore=test_other.py")
    result.assert_outcomes(passed=1)
    assert suite.snapshots() == recorded, suite.text(result)

    # the control: a complete session deletes the baseline of a test that is gone
    suite.test("def test_other():\n    pass\n", name="test_other")
    suite.update_baselines().assert_outcomes(passed=2)
    assert set(suite.snapshots()) == {FAQ}


LONG_ID = "b" * 236
LONG = f"""
import pytest
from pytest_ragcheck import ragcheck

@pytest.mark.parametrize("name", ["x"], ids=["{LONG_ID}"])
@ragcheck("golden.jsonl", k=5)
def test_rag(ragcheck, retriever, name):
    ragcheck(retriever)
"""


# Not about processes: a name is computed the same way in every worker.
@SERIAL_ONLY
def test_an_old_baseline_with_a_long_name_is_found_and_moved(suite: Suite, run_mode) -> None:
    """Names were cut at 250 characters; now shorter (room for the temporary file): the old
    file is found by the old rule, and related to its copy by the hash that ends both."""
    suite.make(LONG)
    suite.update_baselines().assert_outcomes(passed=1)
    [(new, data)] = suite.snapshots().items()
    full = f"test_rag[{LONG_ID}][ragcheck]"
    old = f"__snapshots__/test_rag/{safe_file_stem(full, limit=250, in_bytes=False)}.json"
    assert len(Path(old).name) == 255
    assert Path(old).name != Path(new).name
    assert Path(old).stem[-13:] == Path(new).stem[-13:]  # "~" and the hash
    suite.write(old, data.decode())
    shutil.rmtree(suite.path / "__ragcheck__")

    suite.retriever(suite.WORSE)  # compared with the old file: a regression
    result = suite.run()
    result.assert_outcomes(failed=1)
    assert "mrr@5 regressed (tolerance; too few changed cases to test) 1.000 → " in suite.text(
        result
    )
    assert "No baseline stored" not in suite.text(result)

    suite.retriever(suite.PERFECT)
    result = suite.update_baselines()
    result.assert_outcomes(passed=1)
    assert "moved 1 baseline file(s) from __snapshots__/" in " ".join(suite.text(result).split())
    assert suite.snapshots() == {new: data}
    assert not (suite.path / "__snapshots__").exists()
