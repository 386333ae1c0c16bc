"""Mapping a blocking call over items on a few daemon threads, with a deadline per call.

Daemon threads rather than ``ThreadPoolExecutor``: a call that hangs past its timeout cannot be
killed, and the executor's workers are joined at interpreter exit, so one hung call would hang
the whole pytest process at shutdown. An abandoned worker is replaced so that the remaining
items keep their concurrency.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

__all__ = ["MAX_TIMEOUT", "Progress", "run_on_threads"]

#: The longest a thread can wait, in seconds; a larger timeout overflows the platform's clock.
MAX_TIMEOUT: float = threading.TIMEOUT_MAX

#: Seconds between wake-ups of the watching thread for progress (deadlines wake it too).
_WAKE_EVERY = 0.1

A = TypeVar("A")
T = TypeVar("T")
#: ``progress(done, total)``, called from the thread that started the run.
Progress = Callable[[int, int], None]


class _ThreadRun(Generic[A, T]):
    """Worker threads pulling item indices; the calling thread watches the deadlines."""

    def __init__(
        self,
        call: Callable[[A], T],
        items: Sequence[A],
        *,
        concurrency: int,
        timeout: float | None,
        timed_out: Callable[[float], T],
        progress: Progress | None,
    ) -> None:
        self.call = call
        self.items = items
        self.concurrency = concurrency
        self.timeout = timeout
        self.timed_out = timed_out
        self.progress = progress
        self.total = len(items)
        self.results: list[T | None] = [None] * self.total
        # The workers take the lock itself: ``with self.cond`` costs two Python-level calls
        # more per item, a visible share of a call that takes a few microseconds.
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        self.next_index = 0
        self.done = 0
        self.running: dict[int, float] = {}  # item index -> start time
        self.abandoned: set[int] = set()
        self.stopped = False
        self.spawned = 0
        self.notified = 0.0

    def _spawn(self) -> None:
        self.spawned += 1
        worker = threading.Thread(
            target=self._work, name=f"ragcheck-retriever-{self.spawned}", daemon=True
        )
        worker.start()

    def _work(self) -> None:
        lock, clock, call, items, running = (
            self.lock,
            time.perf_counter,
            self.call,
            self.items,
            self.running,
        )
        while True:
            with lock:
                if self.stopped or self.next_index >= self.total:
                    return
                index = self.next_index
                self.next_index += 1
                running[index] = clock()
            result = call(items[index])
            with lock:
                self.running.pop(index, None)
                if index in self.abandoned:
                    return  # recorded as timed out; a replacement worker took this slot
                self.results[index] = result
                self.done += 1
                # Waking the watching thread after every fast call would cost more than the
                # call (a GIL hand-over each time): wake it a few times a second, and at the end.
                now = clock()
                if self.done >= self.total or now - self.notified >= _WAKE_EVERY:
                    self.notified = now
                    self.cond.notify()

    def _expire(self, timeout: float) -> float:
        """Record overdue items as timed out; return how long to wait for the next deadline."""
        now = time.perf_counter()
        for index, started in list(self.running.items()):
            if now - started >= timeout:
                del self.running[index]
                self.abandoned.add(index)
                self.results[index] = self.timed_out(timeout)
                self.done += 1
                if self.next_index < self.total:
                    self._spawn()
        deadlines = [started + timeout for started in self.running.values()]
        return max(min(deadlines, default=now + timeout) - now, 0.0)

    def run(self) -> list[T]:
        reported = 0
        try:
            with self.cond:
                for _ in range(min(self.concurrency, self.total)):
                    self._spawn()
            while True:
                with self.cond:
                    wait = None if self.timeout is None else self._expire(self.timeout)
                    if self.done == reported and self.done < self.total:
                        self.cond.wait(wait)
                        if self.timeout is not None:
                            self._expire(self.timeout)
                    done = self.done
                if self.progress is not None and done != reported:
                    self.progress(done, self.total)
                reported = done
                if done >= self.total:
                    break
        finally:
            with self.cond:
                self.stopped = True
        return [result for result in self.results if result is not None]


def run_on_threads(
    call: Callable[[A], T],
    items: Sequence[A],
    *,
    concurrency: int,
    timeout: float | None,
    timed_out: Callable[[float], T],
    progress: Progress | None = None,
) -> list[T]:
    """``[call(item) for item in items]`` on at most ``concurrency`` daemon threads, in order.

    A call still running after ``timeout`` seconds is abandoned and its result is
    ``timed_out(timeout)``. ``call`` must not raise: an exception would end its worker thread and the
    item would never finish, so the caller turns errors into results.
    """
    return _ThreadRun(
        call,
        items,
        concurrency=concurrency,
        timeout=timeout,
        timed_out=timed_out,
        progress=progress,
    ).run()
