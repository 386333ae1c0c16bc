"""Benchmark: ``evaluate()`` end to end against what a user would write instead.

    python benchmarks/bench_peers.py                          # the three workloads below
    python benchmarks/bench_peers.py --sizes 10000x10 --repeat 5
    python benchmarks/bench_peers.py --methods evaluate,pytrec_eval --no-memory

The workload (seeded): N cases, each with 1-5 relevant ids out of 100,000 documents (about
half of them placed in the top 20 of its ranking), and a retriever that is a dict lookup of a
precomputed ranking of ``depth`` distinct ids (a list of ``str``, or with ``--hits pairs``
``(id, score)`` tuples). Metrics @10: hit rate, MRR, precision, recall, nDCG, MAP. Every
method is timed from "cases in memory (a list of dicts) + the retriever" to "the metric
means":

* ``evaluate``: ``pytest_ragcheck.evaluate(retriever, cases, metrics=[...])``, means from
  ``result.metrics``.
* ``pytrec_eval``: the obvious loop, qrels and a ``{doc: score}`` run built from the cases
  and the retriever's lists, one ``RelevanceEvaluator`` for ``success_10``, ``P_10``,
  ``recall_10``, ``ndcg_cut_10``, ``map_cut_10``, and the means with ``statistics.fmean``;
  trec_eval's ``recip_rank`` has no cutoff, so MRR@10 is computed in the loop itself.
* ``ranx``: ``Qrels`` and ``Run`` from the same dicts, ``ranx.evaluate`` (numba compiled and
  warmed beforehand).
* ``llamaindex``: ``RetrieverEvaluator.from_metric_names`` with a ``BaseRetriever`` returning
  the top 10 as ``NodeWithScore`` (its metrics take no cutoff), one ``evaluate`` per case.

Methods missing from the environment are skipped. Each size runs every method once on a slice
to warm it (imports, numba), then ``--repeat`` rounds, the methods alternating within a round,
in this process; the table shows the median CPU time (``time.process_time``: what the run
cost, whatever else the machine does) and the median wall time, and the ratio of each method's
CPU time to ``evaluate``'s. Peak RSS comes from a child process per method that builds the same
data and runs the method once (the kernel's peak of the whole process, data included; the data
alone is the first line). The means of every method are checked against ``evaluate``'s.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

METRICS = ["hit_rate@10", "mrr@10", "precision@10", "recall@10", "ndcg@10", "map@10"]
TREC = {
    "hit_rate@10": "success_10",
    "precision@10": "P_10",
    "recall@10": "recall_10",
    "ndcg@10": "ndcg_cut_10",
    "map@10": "map_cut_10",
}
LLAMA = {
    "hit_rate": "hit_rate@10",
    "mrr": "mrr@10",
    "precision": "precision@10",
    "recall": "recall@10",
    "ndcg": "ndcg@10",
    "ap": "map@10",
}
DOCS = 100_000
METHODS = ("evaluate", "pytrec_eval", "ranx", "llamaindex")
SIZES = "10000x10,50000x10,50000x100"

Cases = list[dict[str, Any]]
Retriever = Callable[[str], list[Any]]
Means = dict[str, float]


def make(n: int, depth: int, *, pairs: bool = False, seed: int = 0) -> tuple[Cases, Retriever]:
    """``n`` cases and a retriever that looks their ranking of ``depth`` ids up."""
    rng = random.Random(seed)
    cases: Cases = []
    rankings: dict[str, list[Any]] = {}
    for i in range(n):
        relevant = [f"doc-{d}" for d in rng.sample(range(DOCS), rng.randint(1, 5))]
        query = f"query {i}: what does the corpus say about topic {i % 977}"
        cases.append({"id": f"q{i}", "query": query, "expected_ids": relevant})
        others = set(relevant)
        ranking = [f"doc-{d}" for d in rng.sample(range(DOCS), depth + 5)]
        ranking = [doc for doc in ranking if doc not in others][:depth]
        spots = rng.sample(range(min(depth, 20)), len(relevant))
        for doc, spot in zip(relevant, spots, strict=True):
            if rng.random() < 0.5:
                ranking[spot] = doc
        rankings[query] = (
            [(doc, float(depth - rank)) for rank, doc in enumerate(ranking)] if pairs else ranking
        )

    def retriever(query: str) -> list[Any]:
        return rankings[query]

    return cases, retriever


def _ids(hits: list[Any]) -> list[str]:
    return [h if type(h) is str else h[0] for h in hits]


# ---- the methods -------------------------------------------------------------------------


def run_evaluate(cases: Cases, retriever: Retriever) -> Means:
    from pytest_ragcheck import evaluate

    result = evaluate(retriever, cases, metrics=METRICS)
    return {name: result.metrics[name] for name in METRICS}


def run_pytrec_eval(cases: Cases, retriever: Retriever) -> Means:
    import pytrec_eval

    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    rr: list[float] = []
    for case in cases:
        relevant = dict.fromkeys(case["expected_ids"], 1)
        ids = _ids(retriever(case["query"]))
        qrels[case["id"]] = relevant
        run[case["id"]] = {doc: float(len(ids) - rank) for rank, doc in enumerate(ids)}
        rr.append(next((1 / rank for rank, d in enumerate(ids[:10], 1) if d in relevant), 0.0))
    scores = pytrec_eval.RelevanceEvaluator(qrels, set(TREC.values())).evaluate(run)
    means = {name: statistics.fmean(s[key] for s in scores.values()) for name, key in TREC.items()}
    return {"mrr@10": statistics.fmean(rr), **means}


def run_ranx(cases: Cases, retriever: Retriever) -> Means:
    import ranx

    qrels = ranx.Qrels({c["id"]: dict.fromkeys(c["expected_ids"], 1) for c in cases})
    run = {}
    for case in cases:
        ids = _ids(retriever(case["query"]))
        run[case["id"]] = {doc: float(len(ids) - rank) for rank, doc in enumerate(ids)}
    with warnings.catch_warnings():  # numba: "unsafe cast from uint64 to int64"
        warnings.simplefilter("ignore")
        means = ranx.evaluate(qrels, ranx.Run(run), METRICS)
    return {name: float(means[name]) for name in METRICS}


def run_llamaindex(cases: Cases, retriever: Retriever) -> Means:
    from llama_index.core.evaluation import RetrieverEvaluator
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

    class Lookup(BaseRetriever):
        def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
            ids = _ids(retriever(query_bundle.query_str))[:10]
            return [
                NodeWithScore(node=TextNode(id_=doc, text=""), score=float(10 - rank))
                for rank, doc in enumerate(ids)
            ]

    evaluator = RetrieverEvaluator.from_metric_names(list(LLAMA), retriever=Lookup())
    sums = dict.fromkeys(LLAMA, 0.0)
    for case in cases:
        result = evaluator.evaluate(query=case["query"], expected_ids=case["expected_ids"])
        for name, value in result.metric_vals_dict.items():
            sums[name] += value
    return {LLAMA[name]: total / len(cases) for name, total in sums.items()}


RUN: dict[str, Callable[[Cases, Retriever], Means]] = {
    "evaluate": run_evaluate,
    "pytrec_eval": run_pytrec_eval,
    "ranx": run_ranx,
    "llamaindex": run_llamaindex,
}
IMPORTS = {
    "evaluate": "pytest_ragcheck",
    "pytrec_eval": "pytrec_eval",
    "ranx": "ranx",
    "llamaindex": "llama_index.core",
}


def available(method: str) -> bool:
    try:
        __import__(IMPORTS[method])
    except ImportError:
        return False
    return True


# ---- measuring ---------------------------------------------------------------------------


def timed(fn: Callable[[], Means]) -> tuple[float, float, Means]:
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    means = fn()
    return time.process_time() - cpu, time.perf_counter() - wall, means


def peak_rss(method: str, n: int, depth: int, pairs: bool) -> tuple[float, float] | None:
    """(peak RSS, RSS before the run) in MB of a child process that runs ``method`` once."""
    args = [sys.executable, __file__, "--child", method, "--sizes", f"{n}x{depth}"]
    done = subprocess.run(
        args + (["--hits", "pairs"] if pairs else []),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        print(f"  {method}: child failed:\n{done.stderr[-2000:]}")
        return None
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return found["peak_mb"], found["before_mb"]


def _status_mb(key: str) -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(key)) / 1024


def child(method: str, n: int, depth: int, pairs: bool) -> None:
    """Build the data, warm the method on a slice, then run it once: the peak of the run is
    the process's high-water mark, reset (``/proc/self/clear_refs``) after the warm-up (the
    kernel's ``ru_maxrss`` would keep a peak from before ``exec``, or numba's compilation)."""
    cases, retriever = make(n, depth, pairs=pairs)
    RUN[method](cases[:200], retriever)
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)  # freed heap back to the OS
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")
    before = _status_mb("VmRSS:")
    RUN[method](cases, retriever)
    print(json.dumps({"peak_mb": _status_mb("VmHWM:"), "before_mb": before}))


def agree(ours: Means, theirs: Means) -> str:
    diff = max(abs(ours[name] - theirs[name]) for name in METRICS)
    return "same" if diff <= 1e-9 else f"DIFFER by up to {diff:.2g}"


Row = dict[str, tuple[float, float | None]]  # method -> (median CPU s, peak RSS MB)


def bench(n: int, depth: int, methods: list[str], repeat: int, memory: bool, pairs: bool) -> Row:
    print(f"\n== {n:,} cases x {depth} hits ({'(id, score) pairs' if pairs else 'str ids'}) ==")
    cases, retriever = make(n, depth, pairs=pairs)
    for method in methods:  # imports, numba's compilation, first-call caches
        RUN[method](cases[:200], retriever)
    cpu: dict[str, list[float]] = {m: [] for m in methods}
    wall: dict[str, list[float]] = {m: [] for m in methods}
    means: dict[str, Means] = {}
    for _ in range(repeat):
        for method in methods:
            c, w, means[method] = timed(lambda m=method: RUN[m](cases, retriever))  # type: ignore[misc]
            cpu[method].append(c)
            wall[method].append(w)
    rss = {m: peak_rss(m, n, depth, pairs) for m in methods} if memory else {}
    before = [r[1] for r in rss.values() if r is not None]
    print(
        f"  {'method':<12} {'cpu s':>6} {'wall s':>7} {'peak RSS':>9}  {'cpu / evaluate()':>16}"
        f"  means vs evaluate()  (cpu of each round)"
    )
    ours = statistics.median(cpu["evaluate"]) if "evaluate" in cpu else None
    row: Row = {}
    for method in methods:
        c, w = statistics.median(cpu[method]), statistics.median(wall[method])
        found = rss.get(method)
        row[method] = (c, found[0] if found is not None else None)
        mem = f"{found[0]:6.0f} MB" if found is not None else " " * 9
        ratio = f"{c / ours:15.2f}x" if ours else " " * 16
        check = agree(means["evaluate"], means[method]) if "evaluate" in means else ""
        rounds = ", ".join(f"{x:.2f}" for x in cpu[method])
        print(f"  {method:<12} {c:6.2f} {w:7.2f} {mem}  {ratio}  {check:<19}  ({rounds})")
    if before:
        print(
            f"  (peak RSS: whole process, data and imports included; before the run {min(before):.0f}-{max(before):.0f} MB)"
        )
    if ours and "pytrec_eval" in cpu:
        trec = statistics.median(cpu["pytrec_eval"])
        print(f"  evaluate() / pytrec_eval loop: {ours / trec:.2f}x (CPU)")
    return row


def table(rows: dict[str, Row], methods: list[str]) -> None:
    """The Markdown table the README quotes: CPU s (peak RSS), and evaluate()'s ratio."""
    names = {
        "evaluate": "`evaluate()`",
        "pytrec_eval": "pytrec_eval + the obvious loop",
        "ranx": "ranx",
        "llamaindex": "LlamaIndex RetrieverEvaluator",
    }
    ratio = (
        "evaluate() / pytrec_eval loop"
        if "pytrec_eval" in methods and "evaluate" in methods
        else None
    )
    print(
        "\n| N × depth | "
        + " | ".join(names[m] for m in methods)
        + (f" | {ratio} |" if ratio else " |")
    )
    print("|---" * (len(methods) + 1 + bool(ratio)) + "|")
    for size, row in rows.items():
        cells = [
            f"{row[m][0]:.2f} s" + (f" / {row[m][1]:.0f} MB" if row[m][1] is not None else "")
            for m in methods
        ]
        if ratio:
            cells.append(f"**{row['evaluate'][0] / row['pytrec_eval'][0]:.2f}×**")
        print(f"| {size} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=SIZES, help=f"N x depth, comma-separated ({SIZES})")
    parser.add_argument("--methods", default=",".join(METHODS), help="comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (the median is shown)")
    parser.add_argument("--hits", choices=("ids", "pairs"), default="ids", help="hit shape")
    parser.add_argument("--no-memory", action="store_true", help="no child process per method")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [tuple(map(int, s.lower().split("x"))) for s in args.sizes.split(",")]
    pairs = args.hits == "pairs"
    if args.child:
        child(args.child, *sizes[0], pairs)
        return
    methods = []
    for method in args.methods.split(","):
        if method not in RUN:
            parser.error(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
        if available(method):
            methods.append(method)
        else:
            print(f"{method}: not installed, skipped")
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f}; median of {args.repeat}"
    )
    rows = {
        f"{n:,} × {depth}": bench(n, depth, methods, args.repeat, not args.no_memory, pairs)
        for n, depth in sizes
    }
    table(rows, methods)


if __name__ == "__main__":
    main()
