"""One call shell for single queries and batches: the same errors, latencies and tracebacks
either way, and ``pytest.exit()`` inside a retriever stops the run however it runs."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from pytest_ragcheck.run import concurrency
from pytest_ragcheck.run.batches import run_batches
from pytest_ragcheck.run.runner import RetrievalOutcome, RunOptions, arun_cases, run_cases
from pytest_ragcheck.run.threads import run_on_threads

QUERIES = [f"q{i}" for i in range(40)]


EXIT_AT = 3


class Calls:
    """A retriever of every form that calls ``pytest.exit()`` on its third call."""

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()

    def _next(self) -> None:
        with self.lock:
            self.count += 1
            n = self.count
        if n == EXIT_AT:
            pytest.exit("index unavailable", returncode=7)

    def sync(self, query: Any) -> list[str]:
        self._next()
        time.sleep(0.002)
        return ["d1"]

    async def async_(self, query: Any) -> list[str]:
        await asyncio.sleep(0.002)
        self._next()
        return ["d1"]

    def lazy(self, query: Any) -> Iterator[str]:
        yield "d1"
        self._next()

    async def async_lazy(self, query: Any) -> AsyncIterator[str]:
        yield "d1"
        self._next()

    def coroutine(self, query: Any) -> Any:
        """A sync function that returns a coroutine (read in the call)."""
        return self.async_(query)

    def batch(self, queries: list[str]) -> list[list[str]]:
        self._next()
        return [["d1"] for _ in queries]

    async def async_batch(self, queries: list[str]) -> list[list[str]]:
        await asyncio.sleep(0.002)
        self._next()
        return [["d1"] for _ in queries]


MODES = [
    pytest.param({"concurrency": 1, "timeout": None}, id="calling-thread"),
    pytest.param({"concurrency": 1, "timeout": 5.0}, id="worker-thread"),
    pytest.param({"concurrency": 4, "timeout": None}, id="concurrent"),
    pytest.param({"concurrency": "auto", "timeout": None}, id="auto"),
]
FORMS = ["sync", "async_", "lazy", "async_lazy", "coroutine"]


def _expect_exit(run: Callable[[], object], calls: Calls, workers: int) -> None:
    with pytest.raises(pytest.exit.Exception) as info:
        run()
    assert (info.value.msg, info.value.returncode) == ("index unavailable", 7)
    stopped = calls.count
    time.sleep(0.05)  # calls that were in flight on other workers end
    # The run stopped: it did not go on to the end, and once it returned no call started
    # (at most one in flight per other worker ends). How many calls the other workers made
    # before the exit reached them depends on the machine's load, not on the shell.
    assert stopped < len(QUERIES), stopped
    assert calls.count <= stopped + workers, (stopped, calls.count)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("form", FORMS)
def test_pytest_exit_stops_a_run_of_single_queries(form: str, mode: dict[str, Any]) -> None:
    calls = Calls()
    options = RunOptions(k=2, **mode)
    retriever = getattr(calls, form)
    workers = 16 if mode["concurrency"] == "auto" else mode["concurrency"]
    _expect_exit(lambda: run_cases(retriever, QUERIES, options), calls, workers)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("form", ["sync", "async_"])
def test_pytest_exit_stops_the_awaitable_form(form: str, mode: dict[str, Any]) -> None:
    calls = Calls()
    options = RunOptions(k=2, **mode)
    retriever = getattr(calls, form)
    workers = 16 if mode["concurrency"] == "auto" else mode["concurrency"]
    _expect_exit(lambda: asyncio.run(arun_cases(retriever, QUERIES, options)), calls, workers)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("form", ["batch", "async_batch"])
def test_pytest_exit_stops_a_run_of_batches(form: str, mode: dict[str, Any]) -> None:
    calls = Calls()
    options = RunOptions(k=2, **mode)
    retriever = getattr(calls, form)
    workers = 1 if mode["concurrency"] == "auto" else mode["concurrency"]
    _expect_exit(lambda: run_batches(retriever, QUERIES, options, 4), calls, workers)


def test_pytest_exit_from_inside_a_running_loop() -> None:
    """The fixture called from an ``async def`` test: async retrievers run on a helper thread."""
    calls = Calls()

    async def test_body() -> None:
        run_cases(calls.async_, QUERIES, RunOptions(k=2, concurrency=4, timeout=None))

    _expect_exit(lambda: asyncio.run(test_body()), calls, 4)


def test_pytest_exit_while_a_hit_is_read() -> None:
    class Exiting:
        @property
        def id(self) -> str:
            pytest.exit("index unavailable", returncode=7)

    calls = Calls()
    with pytest.raises(pytest.exit.Exception, match="index unavailable"):
        run_cases(lambda q: [Exiting()], QUERIES, RunOptions(k=2, concurrency=1, timeout=None))
    assert calls.count == 0


@pytest.mark.parametrize(
    ("error", "line"), [(SystemExit, "SystemExit: 3"), (KeyboardInterrupt, "KeyboardInterrupt: 3")]
)
def test_other_base_exceptions_on_workers_stay_each_cases_error(
    error: type[BaseException], line: str
) -> None:
    """Only ``pytest.exit()`` escapes a worker thread: ``sys.exit()`` is the case's error, and
    so is a Ctrl-C the retriever raises itself (a real one reaches the main thread only)."""

    def retriever(query: Any) -> list[str]:
        raise error(3)

    options = RunOptions(k=2, concurrency=2, timeout=None)
    for run in (
        run_cases(retriever, QUERIES[:3], options),
        run_batches(retriever, QUERIES[:3], options, 2),
    ):
        assert all(o.error is not None and o.error.startswith(line) for o in run.outcomes)


# ----------------------------------------------------------------- the threads carry it


def test_a_call_that_raises_stops_the_threads_and_is_raised_in_the_caller() -> None:
    started: list[int] = []

    def call(i: int) -> int:
        started.append(i)
        if i == 5:
            raise LookupError("stop")
        time.sleep(0.002)
        return i

    with pytest.raises(LookupError, match="stop"):
        run_on_threads(call, range(1000), concurrency=3, timeout=1.0, timed_out=lambda t: -1)
    time.sleep(0.05)
    assert len(started) < 5 + 2 * 3


# ----------------------------------------------------------------- one shell, one behaviour


def _boom(query: object) -> list[str]:
    raise ValueError("index offline")


async def _async_boom(query: object) -> list[str]:
    await asyncio.sleep(0.01)
    raise ValueError("index offline")


@pytest.mark.parametrize("retriever", [_boom, _async_boom], ids=["sync", "async"])
@pytest.mark.parametrize("batch", [False, True], ids=["single", "batch"])
def test_a_failed_call_has_its_latency_and_a_traceback_from_the_users_code(
    retriever: Callable[[object], object], batch: bool
) -> None:
    options = RunOptions(k=2, concurrency=1, timeout=None)
    if batch:
        outcomes: list[RetrievalOutcome] = run_batches(retriever, QUERIES[:4], options, 2).outcomes
    else:
        outcomes = run_cases(retriever, QUERIES[:4], options).outcomes
    assert all(o.error and o.error.startswith("ValueError: index offline") for o in outcomes)
    assert all(o.latency_ms is not None and o.latency_ms >= 0 for o in outcomes), outcomes
    traceback = outcomes[0].traceback
    assert traceback is not None
    assert "boom" in traceback
    assert "pytest_ragcheck" not in traceback, traceback  # starts at the user's frame


# ----------------------------------------------------------------- what "auto" sees of the load


def test_contention_is_the_share_of_a_core_the_measuring_thread_got(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A machine loaded all at once: the load average, a minute behind, still says idle, but
    the thread that ran the measured calls waited 9 ms for a CPU for each 1 ms on one."""
    monkeypatch.setattr(concurrency, "cpu_available", lambda: 1.0)
    times = iter([(0.0, 0.0), (4.0, 36.0), (4.0, 36.0), (8.0, 72.0)])
    monkeypatch.setattr(concurrency, "_thread_times", lambda: next(times))
    seen = concurrency.Contention()
    for _ in range(2):
        seen.add(seen.start())
    assert seen.available() == pytest.approx(0.1)
    calls = [(40.0, 4.0), (40.0, 4.0), (40.0, 4.0)]  # 10 % of each call on the CPU
    assert concurrency.choose(calls, available=seen.available()).workers == 1
    assert concurrency.choose(calls, available=1.0).workers == concurrency.AUTO_WORKERS


def test_contention_falls_back_to_the_load_average(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(concurrency, "cpu_available", lambda: 0.25)
    waiting = concurrency.Contention()  # calls that slept: too little time runnable to tell
    waiting.on_cpu, waiting.waiting = 0.3, 0.2
    assert waiting.available() == 0.25
    monkeypatch.setattr(concurrency, "_thread_times", lambda: None)  # not Linux
    unknown = concurrency.Contention()
    unknown.add(unknown.start())
    assert unknown.available() == 0.25
    monkeypatch.undo()
    idle = concurrency.Contention()
    idle.on_cpu = 50.0
    assert idle.available() == 1.0


def test_auto_measures_the_thread_that_runs_the_calls() -> None:
    """On Linux, the busy thread's own wait: whether the calls ran on a worker thread (the
    default timeout) or in the calling thread."""
    if concurrency._thread_times() is None:
        pytest.skip("the system does not say how long a thread waited for a CPU")

    def busy(query: str) -> list[str]:
        end = time.thread_time() + 0.004
        while time.thread_time() < end:
            pass
        return ["d1"]

    for timeout in (5.0, None):
        run = run_cases(busy, QUERIES[:5], RunOptions(k=1, concurrency="auto", timeout=timeout))
        assert run.concurrency.workers == 1, run.concurrency
