"""How long the runner takes for slow retrievers (the SPEC's 1,000 x 20 ms target: < 3 s).

Run: ``python benchmarks/bench_concurrency.py``. With 16 workers the floor is
1,000 x 20 ms / 16 = 1.25 s; the rest is the runner's overhead.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from pytest_ragcheck.runner import RunOptions, run_retriever

SLEEP_S = 0.020
DEFAULT_CONCURRENCY = 16


def sync_retriever(query: str) -> list[str]:
    time.sleep(SLEEP_S)
    return [query, f"{query}-b", f"{query}-c"]


async def async_retriever(query: str) -> list[str]:
    await asyncio.sleep(SLEEP_S)
    return [query, f"{query}-b", f"{query}-c"]


def timed(retriever: Callable[..., object], cases: int, concurrency: int) -> float:
    queries = [f"q{i}" for i in range(cases)]
    start = time.perf_counter()
    outcomes = run_retriever(
        retriever, queries, RunOptions(k=10, concurrency=concurrency, timeout=None)
    )
    elapsed = time.perf_counter() - start
    assert len(outcomes) == cases
    assert all(o.ok for o in outcomes)
    return elapsed


def timed_with_timeout(cases: int, concurrency: int) -> float:
    # The deadline-watching path (a per-case timeout) must not be slower in the common case.
    queries = [f"q{i}" for i in range(cases)]
    start = time.perf_counter()
    outcomes = run_retriever(
        sync_retriever, queries, RunOptions(k=10, concurrency=concurrency, timeout=5.0)
    )
    elapsed = time.perf_counter() - start
    assert all(o.ok for o in outcomes)
    return elapsed


def main() -> None:
    floor = 1000 * SLEEP_S / DEFAULT_CONCURRENCY
    rows = [
        ("sync, 1000 cases, concurrency 16", timed(sync_retriever, 1000, DEFAULT_CONCURRENCY)),
        ("sync + timeout=5, 1000 cases, concurrency 16", timed_with_timeout(1000, 16)),
        ("async, 1000 cases, concurrency 16", timed(async_retriever, 1000, DEFAULT_CONCURRENCY)),
        ("sync, 50 cases, concurrency 1", timed(sync_retriever, 50, 1)),
        ("async, 50 cases, concurrency 1", timed(async_retriever, 50, 1)),
    ]
    print(f"retriever sleeps {SLEEP_S * 1000:.0f} ms per call; floor for 1000/16: {floor:.2f} s")
    for label, seconds in rows:
        print(f"{label:<48} {seconds:6.2f} s")


if __name__ == "__main__":
    main()
