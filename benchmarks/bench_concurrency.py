"""How long the runner takes for slow retrievers (the SPEC's 1,000 x 20 ms target: < 3 s).

Run: ``python benchmarks/bench_concurrency.py``. With 16 workers the floor is
1,000 x 20 ms / 16 = 1.25 s; the rest is the runner's overhead. The default,
``concurrency="auto"``, first runs 3 calls one at a time to measure them (+60 ms here), finds
a retriever that sleeps I/O-bound and runs the rest 16 at a time. The last rows show what
"auto" buys a CPU-bound retriever: the same total time as 16 threads, honest latencies.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from pytest_ragcheck.run.concurrency import Concurrency
from pytest_ragcheck.run.runner import RetrievalRun, RunOptions, run_cases

SLEEP_S = 0.020
DEFAULT_CONCURRENCY = 16
BUSY_S = 0.020


def sync_retriever(query: str) -> list[str]:
    time.sleep(SLEEP_S)
    return [query, f"{query}-b", f"{query}-c"]


async def async_retriever(query: str) -> list[str]:
    await asyncio.sleep(SLEEP_S)
    return [query, f"{query}-b", f"{query}-c"]


def busy_retriever(query: str) -> list[str]:
    """A CPU-bound retriever (an in-process index): 20 ms of pure Python per call."""
    end = time.thread_time() + BUSY_S
    while time.thread_time() < end:
        pass
    return [query]


def timed(
    retriever: Callable[..., object],
    cases: int,
    concurrency: Concurrency,
    timeout: float | None = None,
) -> tuple[float, RetrievalRun]:
    """Seconds for ``cases`` calls, and the run (outcomes, concurrency used)."""
    queries = [f"q{i}" for i in range(cases)]
    start = time.perf_counter()
    run = run_cases(retriever, queries, RunOptions(k=10, concurrency=concurrency, timeout=timeout))
    elapsed = time.perf_counter() - start
    assert len(run.outcomes) == cases
    assert all(o.ok for o in run.outcomes)
    return elapsed, run


def seconds(retriever: Callable[..., object], cases: int, concurrency: Concurrency) -> float:
    return timed(retriever, cases, concurrency)[0]


def main() -> None:
    floor = 1000 * SLEEP_S / DEFAULT_CONCURRENCY
    rows = [
        ("sync, 1000 cases, default concurrency (auto)", seconds(sync_retriever, 1000, "auto")),
        ("async, 1000 cases, default concurrency (auto)", seconds(async_retriever, 1000, "auto")),
        ("sync, 1000 cases, concurrency 16", seconds(sync_retriever, 1000, 16)),
        # The deadline-watching path (a per-case timeout) must not be slower.
        ("sync + timeout=5, 1000 cases, concurrency 16", timed(sync_retriever, 1000, 16, 5.0)[0]),
        ("async, 1000 cases, concurrency 16", seconds(async_retriever, 1000, 16)),
        ("sync, 50 cases, concurrency 1", seconds(sync_retriever, 50, 1)),
        ("async, 50 cases, concurrency 1", seconds(async_retriever, 50, 1)),
    ]
    print(f"retriever sleeps {SLEEP_S * 1000:.0f} ms per call; floor for 1000/16: {floor:.2f} s")
    for label, elapsed in rows:
        print(f"{label:<48} {elapsed:6.2f} s")
    print(f"CPU-bound retriever ({BUSY_S * 1000:.0f} ms of CPU per call), 100 cases:")
    choices: tuple[Concurrency, ...] = ("auto", 16, 1)
    for concurrency in choices:
        elapsed, run = timed(busy_retriever, 100, concurrency)
        latencies = sorted(o.latency_ms or 0.0 for o in run.outcomes)
        p50 = latencies[len(latencies) // 2]
        used = run.concurrency.describe()
        print(f"  {used:<66} {elapsed:5.2f} s, p50 latency {p50:6.1f} ms")


if __name__ == "__main__":
    main()
