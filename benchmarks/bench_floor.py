"""Benchmark: the simplest pure-Python code for the data of each stage of a 200,000-case run.

    python benchmarks/bench_floor.py [--cases 200000]

``bench_scale.py`` measures what the plugin spends per stage. This script measures, for the
same data (the same trivial retriever: ten ``(id, score)`` pairs per query, two expected ids
per case), each stage's data work written as the simplest Python loop or one C call, without
any of the plugin's checks: decoding the golden file, one tuple per hit, the id lists the
metric engine reads, one SHA-256 per case, the baseline's case lines and the JSON report's
case entries with their hits. Set the stages beside ``bench_scale.py``'s to see where the
plugin spends more than its data needs, and the sum beside the metric engine's time: the
budget the overhead goal leaves (5x the engine). CPU times (one process, garbage collector
off).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import time
import zlib
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

VALUES = ",".join(
    f'"{name}@10":{value}'
    for name, value in (
        ("hit_rate", 1.0),
        ("mrr", 1.0),
        ("precision", 0.1),
        ("recall", 1.0),
        ("map", 1.0),
        ("ndcg", 1.0),
    )
)
HIT = '{"rank":%d,"id":"%s","text":null,"score":%r,"grade":0,"spans":[],"relevant":false}'


def clock(label: str, fn: Callable[[], T], total: list[float]) -> T:
    start = time.process_time()
    out = fn()
    spent = time.process_time() - start
    total.append(spent)
    print(f"  {label:<58} {spent:6.2f} s")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=200_000)
    n = parser.parse_args().cases
    gc.disable()
    lines = "\n".join(
        json.dumps(
            {
                "id": f"case-{i:06d}",
                "query": f"what does document {i} say about topic {i % 97}",
                "expected_ids": [f"doc-{i}", f"doc-{(i + 7) % n}"],
            }
        )
        for i in range(n)
    )

    def retriever(i: int) -> list[tuple[str, float]]:
        return [(f"doc-{(i + j * j) % n}", 1.0 - j / 10) for j in range(10)]

    spent: list[float] = []
    print(f"== {n:,} cases: the simplest code for each stage's data, no checks (CPU) ==")
    cases: list[dict[str, Any]] = clock(
        "load: the file decoded as one JSON array",
        lambda: json.loads("[" + lines.replace("\n", ",") + "]"),
        spent,
    )
    hits = [retriever(i) for i in range(n)]
    clock(
        "retrieve: one tuple per hit",
        lambda: [[(h[0], None, h[1], ()) for h in r] for r in hits],
        spent,
    )
    clock(
        "evaluate: the id lists the engine reads", lambda: [[h[0] for h in r] for r in hits], spent
    )
    texts = [json.dumps(c, sort_keys=True) for c in cases]
    clock(
        "evaluate: one SHA-256 per case (its text ready)",
        lambda: [hashlib.sha256(t.encode()).hexdigest()[:16] for t in texts],
        spent,
    )
    clock(
        "compare: the baseline's case lines",
        lambda: "".join(
            f'"{c["id"]}":{{"hash":"0123456789abcdef","hits":['
            + ",".join(f'"{h[0]}"' for h in r)
            + f'],"values":{{{VALUES}}}}},'
            for c, r in zip(cases, hits, strict=True)
        ),
        spent,
    )
    text = clock(
        "record: the JSON report's case entries with their hits",
        lambda: "".join(
            f'{{"id":"{c["id"]}","query":"{c["query"]}","values":{{{VALUES}}},"hits":['
            + ",".join(HIT % (rank, h[0], h[1]) for rank, h in enumerate(r, 1))
            + "]}"
            for c, r in zip(cases, hits, strict=True)
        ),
        spent,
    )
    start = time.process_time()
    zlib.compress(text.encode(), 1)
    print(
        f"  (zlib of the {len(text) / 1e6:.0f} MB of entries: {time.process_time() - start:.2f} s, "
        "on another thread while the plugin writes; not counted)"
    )
    print(f"  sum: {sum(spent):.2f} s, before any check or object the plugin keeps")


if __name__ == "__main__":
    main()
