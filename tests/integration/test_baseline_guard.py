"""No baseline is lost to an incomplete ``--snapshot-update`` session (docs/baselines.md).

syrupy deletes, at the end of ``--snapshot-update``, every snapshot no test used. When the
session stopped early (``-x``, ``--maxfail``, Ctrl-C), could not import a test module or skipped
one at collection, tests that never ran would lose their baselines that way; every such
session must leave every baseline file byte-identical. A complete session still removes the
baselines of tests that no longer exist.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest
import syrupy.session
from harness import SERIAL_ONLY, Suite

CONFTEST = """
import json
import os
import time
from pathlib import Path

import pytest

RANKINGS = json.loads({rankings!r})


@pytest.fixture
def retriever():
    if os.environ.get("RAGCHECK_TEST_BLOCK"):
        # Tell the outer test that a test is running, then wait to be interrupted.
        Path("started").touch()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            time.sleep(0.05)
    return lambda query: list(RANKINGS.get(query, []))
"""

UNRELATED = """
import os

def test_unrelated():
    assert not os.environ.get("RAGCHECK_TEST_FAIL"), "an unrelated failure"
"""

RAG = """
import os

import pytest
from pytest_ragcheck import ragcheck
if os.environ.get("RAGCHECK_TEST_BREAK") == "import{n}":
    import no_such_module_for_ragcheck  # noqa: F401
if os.environ.get("RAGCHECK_TEST_BREAK") == "skip{n}":
    pytest.importorskip("no_such_module_for_ragcheck")


@ragcheck("golden.jsonl", k=5)
def test_first(ragcheck, retriever):
    ragcheck(retriever)


@ragcheck("golden.jsonl", k=3, metrics=["mrr"])
def test_second(ragcheck, retriever):
    ragcheck(retriever)
"""

#: Process groups, signals and permission bits as POSIX has them.
POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and permissions")

BASELINES = {
    f"__ragcheck__/test_rag_{n}/test_{name}[ragcheck].json"
    for n in (1, 2)
    for name in ("first", "second")
}


def guarded_project(suite: Suite) -> dict[str, bytes]:
    """An unrelated test (collected first) and two modules of ragcheck tests, recorded."""
    suite.golden()
    suite.pytester.makeconftest(CONFTEST.format(rankings=json.dumps(dict(suite.PERFECT))))
    suite.test(UNRELATED, name="test_a_unrelated")
    for n in (1, 2):
        suite.test(RAG.format(n=n), name=f"test_rag_{n}")
    suite.update_baselines().assert_outcomes(passed=5)
    recorded = suite.snapshots()
    assert set(recorded) == BASELINES
    return recorded


#: (name, environment, extra arguments, what the run says), each an incomplete session.
EARLY_STOPS = [
    ("-x after an unrelated failure", {"RAGCHECK_TEST_FAIL": "1"}, ["-x"], "stopped early"),
    ("--maxfail=1", {"RAGCHECK_TEST_FAIL": "1"}, ["--maxfail=1"], "stopped early"),
    ("a module fails to import", {"RAGCHECK_TEST_BREAK": "import2"}, [], "collection error"),
    (
        "a module fails to import, collection errors ignored",
        {"RAGCHECK_TEST_BREAK": "import2"},
        ["--continue-on-collection-errors"],
        "collection error",
    ),
    ("a module skipped at collection", {"RAGCHECK_TEST_BREAK": "skip2"}, [], "skipped at"),
]


def test_an_incomplete_session_deletes_no_baseline(suite, run_mode, monkeypatch) -> None:
    recorded = guarded_project(suite)
    for name, environment, args, reason in EARLY_STOPS:
        if run_mode and args == ["--maxfail=1"]:
            continue  # `-x` is `--maxfail=1`; under xdist the order is not checked, so one is enough
        with monkeypatch.context() as env:
            for key, value in environment.items():
                env.setenv(key, value)
            result = suite.run("--snapshot-update", *args, *run_mode, "--ragcheck-report=r.json")
        text = suite.text(result)
        assert result.ret != 0 or "skip" in name, (name, text)
        # the reports say that the tests that did not run are not listed (pytest-xdist ends
        # a session stopped by -x as interrupted)
        incomplete = suite.read_json("r.json")["run"]["incomplete"]
        assert incomplete, (name, text)
        assert run_mode or reason in incomplete, (name, incomplete)
        if "ragcheck summary" in text:  # a ragcheck test ran
            assert f"ragcheck: incomplete run: {incomplete}; only the tests" in text, (name, text)
        assert suite.snapshots() == recorded, f"{name}: a baseline changed or was deleted\n{text}"
        if not run_mode:  # one process: the order is known, so files were at risk
            assert "--snapshot-update deleted no unused snapshot, because" in text, (name, text)
            assert reason in text, (name, text)
        assert "INTERNALERROR" not in text, (name, text)

    # A complete session still deletes the baselines of a test that no longer exists.
    suite.test(
        RAG.format(n=2).split("@ragcheck", 1)[0] + "def test_other():\n    pass\n", "test_rag_2"
    )
    result = suite.run("--snapshot-update", *run_mode, "--ragcheck-report=r.json")
    result.assert_outcomes(passed=4)
    assert suite.read_json("r.json")["run"]["incomplete"] is None
    assert "incomplete run" not in suite.text(result)
    assert set(suite.snapshots()) == {p for p in BASELINES if "test_rag_1/" in p}
    assert all(suite.snapshots()[p] == recorded[p] for p in suite.snapshots())
    assert "kept" not in suite.text(result)


@SERIAL_ONLY
def test_without_the_guard_syrupy_would_delete_them(suite, run_mode, monkeypatch) -> None:
    """The control: the guard is what keeps the files (not luck or a selection rule). The
    failure comes after a ragcheck test ran, so that syrupy scans the baselines' folder."""
    recorded = guarded_project(suite)
    suite.test(UNRELATED, name="test_rag_1z")
    monkeypatch.setenv("RAGCHECK_TEST_FAIL", "1")
    args = ("--snapshot-update", "-x", "-p", "no:randomly", "-p", "no:ragcheck-baseline-guard")
    result = suite.run(*args, "--deselect", "test_a_unrelated.py::test_unrelated", *run_mode)
    assert set(suite.snapshots()) < set(recorded), suite.text(result)


@POSIX_ONLY
def test_ctrl_c_deletes_no_baseline(suite, run_mode, monkeypatch) -> None:
    """SIGINT to the whole process group (what Ctrl-C does) while a ragcheck test runs."""
    recorded = guarded_project(suite)
    # Interrupted xdist workers send syrupy no report, and syrupy warns that it skips its
    # clean-up; with `filterwarnings = error` that warning would end the run in a traceback.
    suite.ini(filterwarnings="error\n    ignore::UserWarning:syrupy.session")
    monkeypatch.setenv("RAGCHECK_TEST_BLOCK", "1")
    started = suite.path / "started"
    process = suite.spawn("--snapshot-update", "--ragcheck-report=r.json,r.md", *run_mode)
    with process:
        try:
            deadline = time.monotonic() + 120
            while not started.exists() and process.poll() is None:
                assert time.monotonic() < deadline, "no ragcheck test started"
                time.sleep(0.05)
            if not started.exists():
                output, _ = process.communicate(timeout=120)
                pytest.fail("no ragcheck test started:\n" + output.decode("utf-8", "replace"))
            os.killpg(process.pid, signal.SIGINT)
            output, _ = process.communicate(timeout=120)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.communicate()
    text = output.decode("utf-8", "replace")
    assert process.returncode == pytest.ExitCode.INTERRUPTED, text
    assert "KeyboardInterrupt" in text
    assert suite.snapshots() == recorded, text
    assert suite.read_json("r.json")["run"]["incomplete"] == "the session was interrupted"
    assert (
        "> ⚠️ Incomplete run: the session was interrupted; only the tests that ran are listed."
        in (suite.path / "r.md").read_text(encoding="utf-8")
    )
    if not run_mode:  # under xdist, syrupy skips its clean-up when workers are interrupted
        assert "ragcheck: --snapshot-update deleted no unused snapshot, because the session" in text


STALE = "__ragcheck__/test_rag_2/test_second[ragcheck].json"


def _remove_test_second(suite: Suite) -> None:
    suite.test(RAG.format(n=2).split('@ragcheck("golden.jsonl", k=3', 1)[0], "test_rag_2")


def _assert_stale_file_message(
    suite: Suite, result: pytest.RunResult, recorded: dict[str, bytes]
) -> None:
    text = suite.text(result)
    assert (
        "ragcheck: syrupy could not remove an unused snapshot: PermissionError: "
        "[Errno 13] Permission denied"
    ) in text, text
    assert (
        "None of the 1 unused file(s) was removed. To remove it, make __ragcheck__/test_rag_2/ "
        "writable and re-run --snapshot-update, or delete the stale file yourself"
    ) in text
    # syrupy's summary does not claim the deletion that did not happen
    summary = text.split("snapshot report summary", 1)[1]
    assert "1 snapshot unused." in summary, text
    assert (
        "Unused test_second[ragcheck] (__ragcheck__/test_rag_2/test_second[ragcheck].json)"
        in summary
    )
    assert "deleted" not in summary.lower(), text
    suite.assert_clean(result)
    assert suite.snapshots() == recorded  # nothing lost, the stale file included
    assert suite.read_json("report.json")["tests"], "the report was not written"


def _unprivileged() -> list[str]:
    """A command prefix under which file permissions apply, even to root."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:  # the injected-error test below covers the message
        pytest.skip("running as root without setpriv: a read-only folder cannot be made")
    # Root ignores permission bits through these capabilities only; drop them for the run.
    return [setpriv, "--bounding-set=-dac_override,-fowner"]


# Not about processes: pytest-xdist is covered by test_an_incomplete_session_deletes_no_baseline and
# test_ctrl_c_deletes_no_baseline[xdist].
@SERIAL_ONLY
@POSIX_ONLY
def test_a_read_only_snapshot_folder_is_a_message(suite, run_mode) -> None:
    recorded = guarded_project(suite)
    _remove_test_second(suite)
    folder = suite.path / Path(STALE).parent
    prefix = _unprivileged()
    folder.chmod(0o555)
    try:
        result = suite.pytester.run(
            *prefix,
            sys.executable,
            "-m",
            "pytest",
            *Suite.ARGS,
            "--snapshot-update",
            "--ragcheck-report=report.json",
            *run_mode,
            timeout=300,
        )
    finally:
        folder.chmod(0o755)
    result.assert_outcomes(passed=4)
    _assert_stale_file_message(suite, result, recorded)


@SERIAL_ONLY
def test_an_error_removing_a_stale_file_is_a_message(suite, run_mode, monkeypatch) -> None:
    """The same message path, for any user: syrupy's removal fails with an injected OSError."""
    recorded = guarded_project(suite)
    _remove_test_second(suite)

    def refuse(self: object, **_: object) -> None:
        raise PermissionError(13, "Permission denied", str(suite.path / STALE))

    monkeypatch.setattr(syrupy.session.SnapshotSession, "remove_unused_snapshots", refuse)
    result = suite.run("--snapshot-update", "--ragcheck-report=report.json", *run_mode)
    result.assert_outcomes(passed=4)
    _assert_stale_file_message(suite, result, recorded)


EARLY_RETURN = """
import os

from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=5)
def test_first(ragcheck, retriever):
    if os.environ.get("RAGCHECK_TEST_NO_CALL"):
        return  # e.g. no API key on this machine: the test passes without a ragcheck call
    ragcheck(retriever)


@ragcheck("golden.jsonl", k=3)
def test_second(ragcheck, retriever):
    ragcheck(retriever)
    if not os.environ.get("RAGCHECK_TEST_NO_CALL"):
        ragcheck(retriever, k=2)
"""


def test_a_test_that_passes_without_a_call_keeps_its_baseline(suite, run_mode, monkeypatch) -> None:
    """A complete ``--snapshot-update`` session: the test still exists, so its baseline stays;
    a call the test no longer makes is truly gone, so that call's baseline goes."""
    suite.golden()
    suite.pytester.makeconftest(CONFTEST.format(rankings=json.dumps(dict(suite.PERFECT))))
    suite.test(EARLY_RETURN)
    suite.update_baselines().assert_outcomes(passed=2)
    recorded = suite.snapshots()
    first = "__ragcheck__/test_rag/test_first[ragcheck].json"
    second_call = "__ragcheck__/test_rag/test_second[ragcheck-2].json"
    assert {first, second_call} < set(recorded)

    monkeypatch.setenv("RAGCHECK_TEST_NO_CALL", "1")
    # test_first checked nothing: pytest warns about it (RagcheckWarning), not an error here.
    suite.ini(filterwarnings="error\n    always::pytest_ragcheck.plugin.RagcheckWarning")
    result = suite.run("--snapshot-update", *run_mode)
    result.assert_outcomes(passed=2, warnings=1)
    after = suite.snapshots()
    assert after[first] == recorded[first], suite.text(result)
    assert second_call not in after, suite.text(result)
    assert set(after) == set(recorded) - {second_call}
    assert "INTERNALERROR" not in suite.text(result)

    result = suite.run(*run_mode)  # and a plain run does not fail over the kept baseline
    result.assert_outcomes(passed=2, warnings=1)
    assert suite.snapshots() == after
