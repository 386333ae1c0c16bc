"""Lock files beside cache entries: one holder, stale locks of dead processes, waiting, and a
judge run that reads the verdict another process is writing instead of paying for it again."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from judge_server import JudgeServer

from pytest_ragcheck.evaluation.settings import JudgeSettings
from pytest_ragcheck.judge import JudgeItem, compute_judge_metrics
from pytest_ragcheck.judge.cache import VerdictCache
from pytest_ragcheck.judge.locks import STALE, KeyLocks, lock_name
from pytest_ragcheck.judge.planner import Planner
from pytest_ragcheck.metrics.names import parse_metric


def test_one_holder_at_a_time(tmp_path: Path) -> None:
    entry = str(tmp_path / "relevance" / "ab" / "abcd.json")
    mine, theirs = KeyLocks(), KeyLocks()
    assert mine.acquire(entry)
    assert Path(lock_name(entry)).name == ".abcd.lock"
    assert not theirs.acquire(entry)
    mine.release(entry)
    assert not os.path.exists(lock_name(entry))
    assert theirs.acquire(entry)


def test_a_stale_lock_of_a_dead_process_is_broken(tmp_path: Path) -> None:
    entry = str(tmp_path / "abcd.json")
    Path(lock_name(entry)).write_text("4242 gone")
    assert not KeyLocks().acquire(entry)  # fresh: someone may be working on it
    past = time.time() - STALE - 1
    os.utime(lock_name(entry), (past, past))
    locks = KeyLocks()
    assert locks.acquire(entry)
    assert Path(lock_name(entry)).read_text() != "4242 gone"


@pytest.mark.skipif(os.name != "posix", reason="process ids are checked on POSIX only")
def test_the_lock_of_a_killed_process_on_this_host_is_broken_at_once(tmp_path: Path) -> None:
    entry = str(tmp_path / "abcd.json")
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], check=True,
                           capture_output=True, text=True)  # fmt: skip
    dead = int(child.stdout)
    Path(lock_name(entry)).write_text(f"{socket.gethostname()} {dead} 0123")
    assert KeyLocks().acquire(entry)
    Path(lock_name(entry)).write_text(f"{socket.gethostname()} {os.getpid()} 0123")
    assert not KeyLocks().acquire(entry)  # a live process: its lock stands
    Path(lock_name(entry)).write_text(f"elsewhere {dead} 0123")
    assert not KeyLocks().acquire(entry)  # another machine: only staleness tells


def test_a_holder_keeps_its_lock_fresh_and_removes_only_its_own(tmp_path: Path) -> None:
    entry = str(tmp_path / "abcd.json")
    locks = KeyLocks()
    assert locks.acquire(entry)
    past = time.time() - STALE - 1
    os.utime(lock_name(entry), (past, past))
    locks.refresh()
    assert time.time() - os.stat(lock_name(entry)).st_mtime < 5
    Path(lock_name(entry)).write_text("someone else's")  # ours was broken and taken meanwhile
    locks.release(entry)
    assert Path(lock_name(entry)).read_text() == "someone else's"


def test_waiting_ends_when_the_holder_releases(tmp_path: Path) -> None:
    entry = str(tmp_path / "abcd.json")
    holder = KeyLocks()
    assert holder.acquire(entry)

    async def scenario() -> float:
        asyncio.get_running_loop().call_later(0.2, holder.release, entry)
        started = time.monotonic()
        await KeyLocks().wait(entry)
        return time.monotonic() - started

    assert 0.15 < asyncio.run(scenario()) < 2.0


@pytest.mark.skipif(os.name == "nt" or os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_folder_leaves_the_call_unlocked(tmp_path: Path) -> None:
    tmp_path.chmod(0o555)
    try:
        assert KeyLocks().acquire(str(tmp_path / "abcd.json"))
    finally:
        tmp_path.chmod(0o755)


def test_a_run_reads_the_verdict_another_process_writes_instead_of_calling(
    judge_server: JudgeServer, judge_settings: JudgeSettings
) -> None:
    """Another process holds the lock of the only entry the run needs and writes it 0.3 s
    later: the run waits, reads it, and sends nothing."""
    item = JudgeItem("q1", "what is alpha", None, ("alpha [g=2]",))
    spec = parse_metric("llm_relevancy", 1)
    planner = Planner(judge_settings)
    planner.plan(item, spec)
    (job,) = planner.jobs.values()
    assert judge_settings.cache_dir is not None
    cache = VerdictCache(judge_settings.cache_dir)
    entry = str(cache.path(job.prompt, job.key))
    other = KeyLocks()
    assert other.acquire(entry)

    def finish() -> None:
        time.sleep(0.3)
        cache.put(
            job.prompt, job.key, model=judge_settings.model or "", api_base=None,
            sampling=job.sampling, inputs=job.inputs,
            answer={"verdict": "no", "reason": "written by the other worker"},
        )  # fmt: skip
        other.release(entry)

    writer = threading.Thread(target=finish)
    writer.start()
    run = compute_judge_metrics([item], [spec], judge_settings)
    writer.join()
    assert judge_server.count == 0
    assert run.values["q1"]["llm_relevancy@1"] == 0.0  # the other's "no", not the server's yes
    assert (run.calls, run.cached) == (0, 1)
    assert not os.path.exists(lock_name(entry))
