"""The lock-free worker threads: same results as a plain loop, whatever the timing."""

from __future__ import annotations

import random
import threading
import time

import pytest

from pytest_ragcheck.threads import run_on_threads


def _timed_out(timeout: float) -> str:
    return f"timed out {timeout}"


@pytest.mark.parametrize("concurrency", [1, 2, 7])
def test_many_fast_items_come_back_in_order(concurrency: int) -> None:
    items = list(range(20_000))
    seen: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        seen.append((done, total))

    out = run_on_threads(
        lambda i: i * 3,
        items,
        concurrency=concurrency,
        timeout=60.0,
        timed_out=lambda t: -1,
        progress=progress,
    )
    assert out == [i * 3 for i in items]
    assert seen[-1] == (20_000, 20_000)
    assert [d for d, _ in seen] == sorted({d for d, _ in seen})  # grows, never repeats


@pytest.mark.parametrize("timeout", [None, 30.0])
def test_random_durations_with_several_workers(timeout: float | None) -> None:
    rng = random.Random(7)
    delays = [rng.choice([0.0, 0.0, 0.0005, 0.002]) for _ in range(300)]
    names: set[str] = set()

    def call(i: int) -> int:
        names.add(threading.current_thread().name)
        time.sleep(delays[i])
        return i

    out = run_on_threads(
        call, range(300), concurrency=4, timeout=timeout, timed_out=lambda t: -1, progress=None
    )
    assert out == list(range(300))
    assert 1 < len(names) <= 4


def test_a_late_worker_never_overwrites_its_timed_out_item() -> None:
    release = threading.Event()
    finished: list[str] = []

    def call(item: str) -> str:
        if item == "hang":
            release.wait(5)
            finished.append(item)
        return item.upper()

    items = ["a", "hang", "b", "c", "hang", "d"]
    out = run_on_threads(
        call, items, concurrency=2, timeout=0.2, timed_out=_timed_out, progress=None
    )
    assert out == ["A", "timed out 0.2", "B", "C", "timed out 0.2", "D"]
    release.set()
    deadline = time.monotonic() + 5
    while len(finished) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert finished == ["hang", "hang"]
    assert out[1] == out[4] == "timed out 0.2"  # the late returns changed nothing


def test_progress_error_stops_the_workers() -> None:
    calls: list[int] = []

    def call(i: int) -> int:
        calls.append(i)
        time.sleep(0.002)
        return i

    def progress(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_on_threads(
            call,
            range(10_000),
            concurrency=2,
            timeout=None,
            timed_out=_timed_out,
            progress=progress,
        )
    time.sleep(0.05)
    settled = len(calls)
    time.sleep(0.05)
    assert len(calls) <= settled + 2  # no worker takes a new item after the stop
    assert settled < 10_000


def test_no_items() -> None:
    assert run_on_threads(str, [], concurrency=3, timeout=1.0, timed_out=_timed_out) == []
