"""Runs that stop early or leave tests out: nothing a later run needs is deleted or lost.

* ``--ragcheck-judge-prune``: the verdict cache holds the entries of the full rankings and the
  project's retriever no longer returns one chunk, so a complete run would prune exactly that
  entry; every run here leaves tests out, so it must prune nothing (offline, no server).
* ``--ragcheck-history``: the lines of a run that stopped early say so.
* Ctrl-C (a real SIGINT) during judge calls keeps the verdicts received, and while the
  reports are written keeps the earlier files.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest
from harness import Suite
from judge_fixtures import JUDGE_MODEL
from judge_fixtures import JUDGED_CHUNKS as CHUNKS
from judge_fixtures import JUDGED_GOLDEN as GOLDEN
from judge_fixtures import NARROWER_CHUNKS as NARROWER
from judge_server import JudgeServer

SOURCE = """
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=3, metrics=["llm_relevancy"], baseline=False)
def test_first(ragcheck, retriever):
    ragcheck(retriever)
"""

OTHER = """
import pytest
{guard}
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=3, metrics=["llm_relevancy"], baseline=False)
def test_other(ragcheck, retriever):
    ragcheck(retriever)
    {after}
"""


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory, judge_server_session: JudgeServer) -> Path:
    """The 5 verdicts of the full rankings, recorded once through the library API."""
    from pytest_ragcheck import evaluate

    folder = tmp_path_factory.mktemp("verdicts") / "judge"
    judge = {"model": JUDGE_MODEL, "api_base": judge_server_session.url, "cache_dir": folder}
    result = evaluate(lambda q: CHUNKS[q], GOLDEN, k=3, metrics=["llm_relevancy"], judge=judge)
    assert result.info["judge"]["calls"] == 5
    return folder


@pytest.fixture
def recorded(suite: Suite, verdicts: Path, judge_server_session: JudgeServer) -> Path:
    """A project whose cache holds the 5 verdicts; returns the cache folder."""
    suite.make(SOURCE, cases=GOLDEN, rankings=NARROWER)
    suite.ini(
        ragcheck_judge_model=JUDGE_MODEL,
        ragcheck_judge_api_base=judge_server_session.url,
        ragcheck_judge_offline="true",
    )
    cache = suite.path / ".ragcheck" / "judge"
    shutil.copytree(verdicts, cache)
    return cache


def _entries(cache: Path) -> list[str]:
    return sorted(p.relative_to(cache).as_posix() for p in cache.glob("*/*/*.json"))


def _prunes_nothing(result: pytest.RunResult, cache: Path, before: list[str], reason: str) -> None:
    text = Suite.text(result)
    assert "1 entry not used by this run" in text  # a complete run would delete it
    assert "--ragcheck-judge-prune: nothing deleted:" in text
    assert reason in text
    assert _entries(cache) == before


def test_a_module_skipped_at_collection_prunes_nothing(
    suite: Suite, recorded: Path, run_mode: list[str]
) -> None:
    """``pytest.importorskip`` skips a whole module here; on a machine with the module its
    tests run and need their verdicts."""
    before = _entries(recorded)
    guard = 'pytest.importorskip("a_module_that_is_not_installed")'
    suite.test(OTHER.format(guard=guard, after=""), name="test_other")
    result = suite.run(*run_mode, "--ragcheck-judge-prune")
    result.assert_outcomes(passed=1, skipped=1)
    _prunes_nothing(
        result, recorded, before, "1 module(s) were skipped or failed at collection (test_other"
    )


@pytest.mark.parametrize(
    "args",
    [("--ignore=test_other.py",), ("--ignore", "test_other.py"), ("--ignore-glob=*_other.py",)],
)
def test_tests_left_out_with_ignore_prune_nothing(
    suite: Suite, recorded: Path, args: tuple[str, ...]
) -> None:
    before = _entries(recorded)
    suite.test(OTHER.format(guard="", after=""), name="test_other")
    result = suite.run("--ragcheck-judge-prune", *args)
    result.assert_outcomes(passed=1)
    _prunes_nothing(result, recorded, before, "tests were left out with --ignore")


def test_pytest_exit_with_a_passing_status_prunes_nothing(suite: Suite, recorded: Path) -> None:
    """``pytest.exit(returncode=0)`` ends the session early with exit status 0."""
    before = _entries(recorded)
    after = 'pytest.exit("enough for today", returncode=0)'
    suite.test(OTHER.format(guard="", after=after), name="test_a_first")
    result = suite.run("--ragcheck-judge-prune")
    assert result.ret == 0
    _prunes_nothing(result, recorded, before, "only 0 of the 2 selected tests ran to the end")


HISTORY_SOURCE = """
import os

from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=3, baseline=False, min_mrr=0.5)
def test_a(ragcheck, retriever):
    ragcheck(retriever)
    if os.environ.get("RAGCHECK_TEST_STOP") == "fail":
        assert False, "stop here"


@ragcheck("golden.jsonl", k=3, baseline=False)
def test_b(ragcheck, retriever):
    if os.environ.get("RAGCHECK_TEST_STOP") == "ctrl-c":
        raise KeyboardInterrupt  # what Ctrl-C raises in the main thread
    ragcheck(retriever)
"""


def _history(path: Path) -> list[dict[str, object]]:
    import json

    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize(
    ("stop", "args", "reason"),
    [
        ("fail", ("-x",), "the session stopped early (stopping after 1 failures)"),
        ("ctrl-c", (), "the session was interrupted"),
    ],
)
def test_history_lines_of_a_run_that_stopped_early_say_so(
    suite: Suite, monkeypatch: pytest.MonkeyPatch, stop: str, args: tuple[str, ...], reason: str
) -> None:
    """Each line is one test's whole result; the lines of a run that left tests out carry
    why, and the next run reads the file and appends as usual."""
    suite.make(HISTORY_SOURCE, cases=GOLDEN, rankings={q: ["a", "c"] for q in CHUNKS})
    history = suite.path / "history.jsonl"
    complete = suite.run("--ragcheck-history=history.jsonl")
    complete.assert_outcomes(passed=2)
    monkeypatch.setenv("RAGCHECK_TEST_STOP", stop)
    stopped = suite.run_subprocess("--ragcheck-history=history.jsonl", *args)
    assert stopped.ret in (pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.INTERRUPTED)
    assert "ragcheck history: 1 line(s) appended" in Suite.text(stopped)
    monkeypatch.delenv("RAGCHECK_TEST_STOP")
    again = suite.run("--ragcheck-history=history.jsonl")
    again.assert_outcomes(passed=2)
    lines = _history(history)
    assert [(line["test"], line.get("incomplete")) for line in lines] == [
        ("test_rag.py::test_a", None),
        ("test_rag.py::test_b", None),
        ("test_rag.py::test_a", reason),
        ("test_rag.py::test_a", None),
        ("test_rag.py::test_b", None),
    ]
    assert all("incomplete" not in line for n, line in enumerate(lines) if n != 2)


JUDGED = """
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=3, metrics=["llm_relevancy"], baseline=False, judge_concurrency=1)
def test_judged(ragcheck, retriever):
    ragcheck(retriever)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups and signals")
def test_ctrl_c_during_judge_calls_keeps_every_verdict_received(
    suite: Suite, judge_server: JudgeServer
) -> None:
    """Ctrl-C (SIGINT to the process group) while the judge answers one call at a time: the
    verdicts that arrived are in the cache, whole, and the rerun asks only for the others."""
    suite.make(JUDGED, cases=GOLDEN, rankings=CHUNKS)
    suite.ini(ragcheck_judge_model=JUDGE_MODEL, ragcheck_judge_api_base=judge_server.url)
    cache = suite.path / ".ragcheck" / "judge"
    judge_server.inject("sleep", 100, seconds=0.4)
    process = suite.spawn()
    with process:
        try:
            deadline = time.monotonic() + 120
            while len(_entries(cache)) < 2 and process.poll() is None:
                assert time.monotonic() < deadline, "no verdict was stored"
                time.sleep(0.02)
            os.killpg(process.pid, signal.SIGINT)
            output, _ = process.communicate(timeout=120)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.communicate()
    text = output.decode("utf-8", "replace")
    assert process.returncode == pytest.ExitCode.INTERRUPTED, text
    kept = _entries(cache)
    assert 2 <= len(kept) < 5, text  # 5 (query, chunk) pairs in all
    assert not [p for p in cache.rglob("*") if p.is_file() and p.suffix != ".json"]
    assert all(suite.read_json(cache / name)["answer"]["verdict"] for name in kept)
    judge_server.clear()
    again = suite.run()
    again.assert_outcomes(passed=1)
    assert judge_server.count == 5 - len(kept)
    assert f"{len(kept)} verdict(s) from the cache, {5 - len(kept)} new" in Suite.text(again)


#: A real SIGINT arrives while the JSON report is being written (as Ctrl-C at the end of a
#: large run would): the process signals itself from inside the writer.
CTRL_C_WHILE_WRITING = """
import os
import signal

import pytest_ragcheck.report.files as files

_write_file = files.write_file


def write_file(path, text, **options):
    if os.environ.get("RAGCHECK_TEST_CTRL_C") and path.suffix == ".json":
        def pieces():
            yield from (text,) if isinstance(text, str) else text
            os.kill(os.getpid(), signal.SIGINT)
            yield ""  # the next piece is never written

        return _write_file(path, pieces(), **options)
    return _write_file(path, text, **options)


files.write_file = write_file


def pytest_unconfigure(config):
    files.write_file = _write_file  # an in-process run shares the module with later tests
"""


def test_ctrl_c_while_a_report_is_written_keeps_the_earlier_file(
    suite: Suite, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.make(
        HISTORY_SOURCE,
        cases=GOLDEN,
        rankings={q: ["a", "c"] for q in CHUNKS},
        extra=CTRL_C_WHILE_WRITING,
    )
    args = ("--ragcheck-report=r.md,r.json", "--ragcheck-history=history.jsonl")
    suite.run(*args).assert_outcomes(passed=2)
    earlier = (suite.path / "r.json").read_bytes()
    monkeypatch.setenv("RAGCHECK_TEST_CTRL_C", "1")
    result = suite.run_subprocess(*args)
    text = Suite.text(result)
    assert result.ret == pytest.ExitCode.INTERRUPTED, text
    assert "ragcheck: 2 tests — 2 passed" in text  # the summary is still printed
    assert "r.md (" in text  # written before the interrupt, and said so
    assert "ragcheck: interrupted while writing the reports" in text
    Suite.assert_clean(result)
    assert (suite.path / "r.json").read_bytes() == earlier
    assert sorted(p.name for p in suite.path.glob(".r.*")) == []  # no half-written file
    assert len(_history(suite.path / "history.jsonl")) == 4
    monkeypatch.delenv("RAGCHECK_TEST_CTRL_C")
    suite.run(*args).assert_outcomes(passed=2)
    assert suite.read_json("r.json")["run"]["incomplete"] is None
