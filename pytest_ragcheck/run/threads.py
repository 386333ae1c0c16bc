"""Mapping a blocking call over items on a few daemon threads, with a deadline per call.

Daemon threads rather than ``ThreadPoolExecutor``: a call that hangs past its timeout cannot be
killed, and the executor's workers are joined at interpreter exit, so one hung call would hang
the whole pytest process at shutdown. An abandoned worker is replaced so that the remaining
items keep their concurrency.

The workers take no lock per item: a call that takes a few microseconds would spend more on
the lock than on itself. Each step they share is one operation the interpreter does whole
(``next`` of a counter, a store in or ``pop`` from a dict of int keys), and the ``pop`` of an
item from ``running`` decides who records it: the worker that finished it, or the watching
thread that found it overdue. On a free-threaded interpreter (no GIL), where ``next`` of a
counter is no longer one step, the counters take a lock.
"""

from __future__ import annotations

import itertools
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Generic, TypeVar

__all__ = ["Progress", "run_on_threads", "run_timed_on_threads"]

#: The longest a thread can wait, in seconds; a larger timeout overflows the platform's clock.

#: Seconds between wake-ups of the watching thread for progress (deadlines wake it too).
_WAKE_EVERY = 0.1

A = TypeVar("A")
T = TypeVar("T")
#: ``progress(done, total)``, called from the thread that started the run.
Progress = Callable[[int, int], None]


#: Whether the interpreter has a GIL (``sys._is_gil_enabled`` exists from Python 3.13 on).
_GIL = bool(getattr(sys, "_is_gil_enabled", lambda: True)())


class _LockedCount:
    """``itertools.count`` whose ``next`` takes a lock: for interpreters without a GIL."""

    def __init__(self, start: int = 0) -> None:
        self._count = itertools.count(start)
        self._lock = threading.Lock()

    def __iter__(self) -> Iterator[int]:
        return self

    def __next__(self) -> int:
        with self._lock:
            return next(self._count)


def _counter(start: int = 0) -> Iterator[int]:
    return itertools.count(start) if _GIL else _LockedCount(start)


class _ThreadRun(Generic[A, T]):
    """Worker threads pulling item indices; the calling thread watches the deadlines."""

    def __init__(
        self,
        call: Callable[[A, float], T],
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
        self.indices = _counter()  # the next item to take
        self.finished = _counter(1)  # items recorded so far, by workers or timeouts
        self.done = 0  # a recent value of ``finished``, for progress
        self.running: dict[int, float] = {}  # item index -> start time
        self.all_done = threading.Event()
        self.spawned = 0
        self.stopped = False
        self.error: BaseException | None = None  # what a call raised: it ends the run

    def _spawn(self) -> None:
        self.spawned += 1
        worker = threading.Thread(
            target=self._work, name=f"ragcheck-retriever-{self.spawned}", daemon=True
        )
        worker.start()

    def _record(self) -> None:
        """One more item recorded; the last one wakes the watching thread."""
        self.done = done = next(self.finished)
        if done == self.total:
            self.all_done.set()

    def _work(self) -> None:
        clock, call, items, running, results = (
            time.perf_counter,
            self.call,
            self.items,
            self.running,
            self.results,
        )
        total, pop, finished = self.total, self.running.pop, self.finished
        for index in self.indices:
            if index >= total or self.stopped:
                return
            running[index] = started = clock()
            try:
                result = call(items[index], started)
            except BaseException as exc:  # raised in the calling thread, which stops the run
                self.error, self.stopped = exc, True
                self.all_done.set()
                return
            if pop(index, None) is None:
                return  # recorded as timed out; a replacement worker took this slot
            results[index] = result
            self.done = done = next(finished)  # what :meth:`_record` does, without a call
            if done == total:
                self.all_done.set()

    def _expire(self, timeout: float) -> float:
        """Record overdue items as timed out; return how long to wait for the next deadline."""
        now = time.perf_counter()
        for index, started in _snapshot(self.running):
            if now - started >= timeout and self.running.pop(index, None) is not None:
                self.results[index] = self.timed_out(timeout)
                self._record()
                self._spawn()  # a replacement (it ends at once when no item is left)
        deadlines = [started + timeout for _, started in _snapshot(self.running)]
        return max(min(deadlines, default=now + timeout) - now, 0.0)

    def run(self) -> list[T]:
        reported = 0
        try:
            for _ in range(min(self.concurrency, self.total)):
                self._spawn()
            while self.total:
                wait = _WAKE_EVERY if self.progress is not None else None
                if self.timeout is not None:
                    until = self._expire(self.timeout)
                    wait = until if wait is None else min(wait, until)
                if self.all_done.wait(wait):
                    break
                if self.progress is not None:
                    done = max(self.done, reported)  # stores of two workers may cross
                    if done != reported:
                        self.progress(done, self.total)
                        reported = done
        finally:
            self.stopped = True
        if self.error is not None:
            raise self.error
        if self.progress is not None and reported != self.total and self.total:
            self.progress(self.total, self.total)
        return [result for result in self.results if result is not None]


def _snapshot(running: dict[int, float]) -> list[tuple[int, float]]:
    """The items running now. Copying the dict runs no Python code, unless a collection
    starts in it (its callbacks and finalizers may let a worker change the dict): then the
    copy fails, and is made again."""
    while True:
        try:
            return list(running.items())
        except RuntimeError:  # the dict changed size while it was read
            continue


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
    ``timed_out(timeout)``. The caller turns the errors of single items into results: an
    exception that escapes ``call`` (``pytest.exit()``) ends the run, no item starts after it,
    and it is raised here.
    """
    return run_timed_on_threads(
        lambda item, _: call(item),
        items,
        concurrency=concurrency,
        timeout=timeout,
        timed_out=timed_out,
        progress=progress,
    )


def run_timed_on_threads(
    call: Callable[[A, float], T],
    items: Sequence[A],
    *,
    concurrency: int,
    timeout: float | None,
    timed_out: Callable[[float], T],
    progress: Progress | None = None,
) -> list[T]:
    """:func:`run_on_threads` of ``call(item, started)``: ``started`` is the
    ``time.perf_counter()`` from which the item's timeout counts, read by the worker just
    before the call, so that a call that times itself needs no clock read of its own."""
    return _ThreadRun(
        call,
        items,
        concurrency=concurrency,
        timeout=timeout,
        timed_out=timed_out,
        progress=progress,
    ).run()
