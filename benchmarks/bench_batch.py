"""Benchmark: ``batch_size`` against one query per call, for a retriever that batches well.

    python benchmarks/bench_batch.py [--cases 10000] [--quick]

The retriever costs 5 ms per call plus 0.05 ms per query (sleeps, as a local encoder's fixed
cost per forward pass and its per-query share), so 10,000 cases take 10,000 x 5.05 ms = 50.5 s
one query at a time and 40 x (5 ms + 256 x 0.05 ms) = 0.7 s in batches of 256. Both runs
go through :func:`pytest_ragcheck.evaluate` with ``concurrency=1`` (serial), and print wall
time (the whole evaluation, and the retrieval stage alone), CPU time, the per-batch latency
and the per-query latency the summary reports, after a small warm-up run (the first run
imports the metric engine). The last line compares with the goal: the whole ``evaluate()``
call with ``batch_size=256`` on 10,000 cases under 1 s, split into the retriever's sleeps and
everything else. On a machine shared with other work, wall times are noisy.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from pytest_ragcheck import evaluate

FIXED_S = 0.005
PER_QUERY_S = 0.00005


def _hits(query: str) -> list[str]:
    return [query.replace("query", "doc"), "other"]


def one(query: str) -> list[str]:
    time.sleep(FIXED_S + PER_QUERY_S)
    return _hits(query)


def batched(queries: list[str]) -> list[list[str]]:
    time.sleep(FIXED_S + PER_QUERY_S * len(queries))
    return [_hits(q) for q in queries]


def timed(label: str, retriever: object, cases: list[dict[str, Any]], **kw: Any) -> float:
    """Print one run's figures; return its wall time (the whole ``evaluate()`` call)."""
    start, cpu = time.perf_counter(), time.process_time()
    result = evaluate(retriever, cases, k=2, metrics=["mrr"], concurrency=1, timeout=None, **kw)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert result["mrr@2"] == 1.0
    batches = result.info["retrieval"]["batches"]
    detail = (
        f"  {batches['calls']} batches, p50 {batches['latency_p50_ms']:.1f} ms per batch, "
        f"{batches['per_query_ms']:.3f} ms per query"
        if batches
        else f"  p50 {result['latency_p50_ms']:.2f} ms per query"
    )
    retrieve = result.info["timings"]["retrieve_s"]
    print(f"{label:<34} wall {wall:6.2f} s (retrieval {retrieve:5.2f} s)  cpu {cpu:5.2f} s{detail}")
    return wall


def sleeps(n: int, batch_size: int | None) -> float:
    """Seconds the retriever sleeps for ``n`` queries: the floor of any wall time."""
    calls = n if batch_size is None else -(-n // batch_size)
    return calls * FIXED_S + n * PER_QUERY_S


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--quick", action="store_true", help="1,000 cases")
    args = parser.parse_args()
    n = 1000 if args.quick else args.cases
    cases: list[dict[str, Any]] = [
        {"id": f"q{i}", "query": f"query {i}", "expected_ids": [f"doc {i}"]} for i in range(n)
    ]
    print(
        f"{n:,} cases; retriever: {FIXED_S * 1e3:.0f} ms per call + {PER_QUERY_S * 1e3} ms per query"
    )
    timed("warm-up (imports, 100 cases)", batched, cases[:100], batch_size=256)
    batch_wall = timed("batch_size=256", batched, cases, batch_size=256)
    serial_wall = timed("one query per call (concurrency=1)", one, cases)
    floor = sleeps(n, 256)
    verdict = "met" if batch_wall < 1.0 else "not met"
    print(
        f"goal (batch_size=256, {n:,} cases, under 1 s): evaluate() took {batch_wall:.2f} s "
        f"wall, of which {floor:.2f} s the retriever's sleeps and {batch_wall - floor:.2f} s "
        f"everything else -> {verdict}; one query per call: {serial_wall:.1f} s "
        f"({sleeps(n, None):.1f} s of sleeps), {serial_wall / batch_wall:.0f}x slower"
    )


if __name__ == "__main__":
    main()
