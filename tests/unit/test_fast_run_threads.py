"""The lock-free worker threads: same results as a plain loop, whatever the timing."""

from __future__ import annotations

import random
import threading
import time

import pytest

from pytest_ragcheck.run.threads import run_on_threads


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


def test_without_a_gil_the_counters_take_a_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    """A free-threaded interpreter gets locked counters: every item still runs exactly once."""
    from pytest_ragcheck.run import threads

    monkeypatch.setattr(threads, "_GIL", False)
    assert isinstance(threads._counter(), threads._LockedCount)
    calls: list[int] = []
    out = run_on_threads(
        lambda i: calls.append(i) or i + 1,
        list(range(5_000)),
        concurrency=7,
        timeout=60.0,
        timed_out=_timed_out,
    )
    assert out == [i + 1 for i in range(5_000)]
    assert sorted(calls) == list(range(5_000))


def test_a_locked_count_gives_every_number_once_across_threads() -> None:
    from pytest_ragcheck.run.threads import _LockedCount

    count = _LockedCount(1)
    taken: list[list[int]] = [[] for _ in range(8)]

    def take(into: list[int]) -> None:
        for _ in range(2_000):
            into.append(next(count))

    workers = [threading.Thread(target=take, args=(into,)) for into in taken]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(n for into in taken for n in into) == list(range(1, 16_001))
