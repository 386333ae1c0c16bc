"""Running a coroutine from synchronous code, whatever the event-loop state of the caller.

The fixture is synchronous but is often called from ``async def`` tests (pytest-asyncio) or
notebooks, where a loop is already running in this thread and cannot be re-entered; the
plugin never patches asyncio (no ``nest_asyncio``), so it uses a fresh loop on a helper thread.
Lazy hits (generators, async generators) are read here too, inside the call.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator
from typing import Any, TypeVar

__all__ = ["LazyTimeout", "await_value", "read_async", "read_lazy", "run_blocking", "run_bounded"]

T = TypeVar("T")


def run_blocking(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run ``factory()`` to completion and return its value (exceptions propagate).

    Without a running loop it uses a private loop in this thread (``loop_factory`` keeps the
    thread's current-loop setting untouched); inside a running loop, a fresh loop on a helper
    thread.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass  # no loop here: run below, outside the ``except`` (its errors must not chain to it)
    else:
        return _on_helper_thread(factory)
    with asyncio.Runner(loop_factory=asyncio.new_event_loop) as runner:
        return runner.run(factory())


def _on_helper_thread(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """:func:`run_blocking` from inside a running loop: a fresh loop on a helper thread."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            with asyncio.Runner(loop_factory=asyncio.new_event_loop) as runner:
                box["value"] = runner.run(factory())
        except BaseException as exc:  # re-raised in the calling thread
            box["error"] = exc

    helper = threading.Thread(target=target, name="ragcheck-async", daemon=True)
    helper.start()
    helper.join()
    if "error" in box:
        raise box["error"]
    result: T = box["value"]
    return result


async def run_bounded(
    call: Callable[[int], Awaitable[None]], indices: Iterable[int], workers: int
) -> None:
    """Await ``call(i)`` for every index, at most ``workers`` at a time: the workers share one
    iterator, so a slow call holds back only its own worker. A call that raises (``pytest.exit()``)
    cancels the others: on the caller's own loop they would run on."""
    shared = iter(indices)

    async def worker() -> None:
        for index in shared:
            await call(index)

    tasks = [asyncio.ensure_future(worker()) for _ in range(workers)]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        raise


#: Lazy hits read per check of the deadline (see :func:`read_lazy`).
_CHUNK = 4096


class LazyTimeout(TimeoutError):
    """Lazy hits still being read at the call's timeout: the call timed out."""


def read_lazy(lazy: Iterator[Any], start: float, timeout: float | None) -> list[Any]:
    """A sync iterator of hits read now, inside the call. Past ``timeout`` seconds from
    ``start`` the call was abandoned already: stop reading with :class:`LazyTimeout`, or an
    endless generator would fill memory on its abandoned thread for the rest of the session."""
    if timeout is None:
        return list(lazy)
    read: list[Any] = []
    while True:
        chunk = list(itertools.islice(lazy, _CHUNK))
        read.extend(chunk)
        if len(chunk) < _CHUNK:
            return read
        if time.perf_counter() - start > timeout:
            raise LazyTimeout(f"still reading lazy hits after {timeout} s ({len(read):,} so far)")


async def read_async(raw: Any, start: float = 0.0, timeout: float | None = None) -> Any:
    """Lazy hits read now, inside the call: an async or sync iterator becomes a list (a sync
    one blocks the loop, so its reading stops at ``timeout`` from ``start``: see
    :func:`read_lazy`)."""
    if hasattr(raw, "__aiter__"):
        return [item async for item in raw]
    return read_lazy(raw, start, timeout) if isinstance(raw, Iterator) else raw


async def await_value(awaitable: Any) -> Any:
    """The awaited value of ``awaitable``, its lazy hits read (:func:`read_async`)."""
    return await read_async(await awaitable)
