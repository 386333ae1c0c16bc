"""Where the calls of a run happen: the one sync/async/thread structure both paths share.

A run is a list of calls, each over one query (:mod:`.runner`) or one batch (:mod:`.batches`).
Sync calls run in the calling thread when they run one at a time without a timeout (the escape
hatch for retrievers bound to their creating thread, such as sqlite3 connections, or not
thread-safe), otherwise on daemon worker threads (:mod:`.threads`); async calls run as at most
``workers`` coroutines on one loop (:func:`.aio.run_bounded`). Results come back in item order.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from pytest_ragcheck.run.aio import run_bounded
from pytest_ragcheck.run.threads import Progress, run_timed_on_threads

__all__ = ["map_async", "map_sync", "offset"]

A = TypeVar("A")
R = TypeVar("R")


def map_sync(
    call: Callable[[A], R],
    items: Sequence[A],
    *,
    workers: int,
    timeout: float | None,
    on_worker: Callable[[A, float], R],
    timed_out: Callable[[float], R],
    progress: Progress | None,
) -> list[R]:
    """``[call(item) for item in items]``, in the calling thread or on ``workers`` threads.

    ``on_worker(item, started)`` is the call as a worker thread makes it (nothing may escape
    there: even a ``KeyboardInterrupt`` raised by the retriever is only that item's error),
    ``started`` the ``time.perf_counter()`` from which its timeout counts; a call still
    running after ``timeout`` seconds is abandoned as ``timed_out(timeout)``.
    """
    if workers == 1 and timeout is None:
        if progress is None:
            return [call(item) for item in items]
        results: list[R] = []
        for item in items:
            results.append(call(item))
            progress(len(results), len(items))
        return results
    return run_timed_on_threads(
        on_worker,
        items,
        concurrency=workers,
        timeout=timeout,
        timed_out=timed_out,
        progress=progress,
    )


async def map_async(
    call: Callable[[A], Awaitable[R]],
    items: Sequence[A],
    *,
    workers: int,
    progress: Progress | None,
) -> list[R]:
    """``[await call(item) for item in items]``, at most ``workers`` at a time, in item order."""
    total = len(items)
    results: list[R | None] = [None] * total
    finished = 0

    async def one(index: int) -> None:
        nonlocal finished
        results[index] = await call(items[index])
        finished += 1
        if progress is not None:
            progress(finished, total)

    if total:
        await run_bounded(one, range(total), min(workers, total))
    return [result for result in results if result is not None]


def offset(progress: Progress | None, before: int, total: int) -> Progress | None:
    """``progress`` for the items after the first ``before`` of ``total``."""
    if progress is None:
        return None

    def shifted(done: int, _: int) -> None:
        progress(done + before, total)

    return shifted
