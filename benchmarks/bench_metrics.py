"""Benchmark: ``pytest_ragcheck.metrics.evaluate_run`` against ranx and pytrec_eval.

    python benchmarks/bench_metrics.py                      # 10,000 and 100,000 queries
    python benchmarks/bench_metrics.py --queries 1000 --repeat 1

Same data, same process, five measures: P@10, recall@100, MRR@10, MAP@100, nDCG@10.

* Data (seeded): every query has 10-50 judged docs with grades 0-3 and a run of exactly 100
  distinct doc ids drawn from a 1M-doc corpus; 0-30 of the judged docs are retrieved, and
  higher grades tend to rank higher. The run exists as ``{qid: [doc, ...]}`` lists and as
  ``{qid: {doc: score}}`` dicts (scores decreasing with rank, distinct even in float32, so
  that no library has a tie to break). Qrels ids and run ids are distinct string objects, as
  when both are loaded from files.
* ours: ``evaluate_run`` on the score dicts (the input the references take) and on the lists.
* ranx: ``ranx.evaluate(qrels_dict, run_dict, metrics, return_mean=False)`` on plain dicts,
  numba compiled and warmed on a small run of the same types beforehand.
* pytrec_eval: one ``RelevanceEvaluator`` for all five measures (``P_10``, ``recall_100``,
  ``recip_rank``, ``map_cut_100``, ``ndcg_cut_10``) and one ``evaluate`` call; evaluator
  construction is included (it is part of evaluating a new qrels). trec_eval has no cutoff
  for RR, so ``recip_rank`` is timed over the full ranking; for the equality check MRR@10 is
  compared with ``recip_rank`` of the run cut to its top 10 (an extra, untimed call).

Times are the best of ``--repeat`` runs (wall clock; CPU time of this process in brackets), so
that noise from other processes on the machine inflates them as little as possible.
Memory: the peak resident-set growth during one call, measured by returning freed heap memory
to the OS (glibc ``malloc_trim``), resetting the kernel's high-water mark
(``/proc/self/clear_refs``) before the call and reading ``VmHWM`` after it; this sees numpy,
numba and C++ allocations alike (the input data is already resident and not counted). For
ours, the tracemalloc peak of one extra (untimed) call is printed too.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import os
import re
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from pytest_ragcheck.metrics import evaluate_run

OURS = ["precision@10", "recall@100", "mrr@10", "map@100", "ndcg@10"]
RANX = ["precision@10", "recall@100", "mrr@10", "map@100", "ndcg@10"]
TREC = {"P_10", "recall_100", "recip_rank", "map_cut_100", "ndcg_cut_10"}
TREC_KEY = {
    "precision@10": "P_10",
    "recall@100": "recall_100",
    "map@100": "map_cut_100",
    "ndcg@10": "ndcg_cut_10",
}

Run = dict[str, list[str]]
ScoreRun = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]


def generate(
    n_queries: int, *, depth: int = 100, corpus: int = 1_000_000, seed: int = 0
) -> tuple[Run, ScoreRun, Qrels]:
    rng = np.random.default_rng(seed)
    draws = 60 + depth
    ids = rng.integers(0, corpus, size=(n_queries, draws))
    srt = np.sort(ids, axis=1)
    while True:  # redraw the rows that picked a doc twice
        bad = np.flatnonzero((srt[:, 1:] == srt[:, :-1]).any(axis=1))
        if not len(bad):
            break
        ids[bad] = rng.integers(0, corpus, size=(len(bad), draws))
        srt[bad] = np.sort(ids[bad], axis=1)
    n_judged = rng.integers(10, 51, size=n_queries)
    n_hit = np.minimum(rng.integers(0, 31, size=n_queries), n_judged)
    grades = rng.choice(np.array([0, 0, 1, 1, 2, 3]), size=(n_queries, 50))
    noise = rng.standard_normal((n_queries, depth))
    rank_scores = np.arange(depth, 0, -1, dtype=np.float64)
    fractions = np.sort(rng.random((n_queries, depth)).astype(np.float32), axis=1)[:, ::-1] / 2
    run: Run = {}
    score_run: ScoreRun = {}
    qrels: Qrels = {}
    for q in range(n_queries):
        row = ids[q].tolist()
        nj, nh = int(n_judged[q]), int(n_hit[q])
        judged = row[:nj]
        g = grades[q, :nj].tolist()
        qid = f"q{q}"
        qrels[qid] = {f"d{d}": gr for d, gr in zip(judged, g, strict=True)}
        retrieved = judged[:nh] + row[nj : nj + depth - nh]
        gain = g[:nh] + [0] * (depth - nh)
        order = np.argsort(-(np.array(gain, dtype=np.float64) + noise[q])).tolist()
        # fresh string objects for the run (qrels and run normally come from different files)
        docs = [f"d{retrieved[i]}" for i in order]
        run[qid] = docs
        # decreasing scores, distinct even in float32 (no ties for any library to break)
        score_run[qid] = dict(zip(docs, (rank_scores + fractions[q]).tolist(), strict=True))
    return run, score_run, qrels


def _status() -> dict[str, int]:
    with open("/proc/self/status") as fh:
        text = fh.read()
    found = {k: re.search(rf"{k}:\s+(\d+)", text) for k in ("VmRSS", "VmHWM")}
    return {k: int(m.group(1)) for k, m in found.items() if m}


def _trim() -> None:
    """Give freed heap memory back to the OS, so that the baseline RSS is the live data."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def peak_rss_mb(fn: Callable[[], Any]) -> float | None:
    """Peak growth of the resident set during ``fn()``, in MB (None if the kernel can't say)."""
    gc.collect()
    _trim()
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        before = _status()["VmRSS"]
    except OSError:
        return None
    fn()
    return (_status()["VmHWM"] - before) / 1024


def best_time(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    best_wall = best_cpu = float("inf")
    result = None
    for _ in range(repeat):
        gc.collect()
        w0, c0 = time.perf_counter(), time.process_time()
        result = fn()
        best_wall = min(best_wall, time.perf_counter() - w0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return best_wall, best_cpu, result


def max_diff(ours: np.ndarray, theirs: np.ndarray) -> float:
    return float(np.max(np.abs(ours - theirs))) if len(ours) else 0.0


def bench(n_queries: int, repeat: int) -> None:
    print(f"\n=== {n_queries:,} queries x 100 hits ===")
    t0 = time.perf_counter()
    run, score_run, qrels = generate(n_queries)
    judged = sum(map(len, qrels.values()))
    print(f"data: {time.perf_counter() - t0:.1f} s to generate; {judged:,} judgments")

    rows: list[tuple[str, float, float, float | None]] = []

    wall, cpu, ours = best_time(lambda: evaluate_run(score_run, qrels, OURS), repeat)
    rows.append(
        (
            "ours, {doc: score} dicts",
            wall,
            cpu,
            peak_rss_mb(lambda: evaluate_run(score_run, qrels, OURS)),
        )
    )
    ours_wall = wall
    wall, cpu, ours_lists = best_time(lambda: evaluate_run(run, qrels, OURS), repeat)
    rows.append(
        ("ours, ranked lists", wall, cpu, peak_rss_mb(lambda: evaluate_run(run, qrels, OURS)))
    )
    lists_wall = wall

    tracemalloc.start()
    evaluate_run(score_run, qrels, OURS)
    traced_peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()

    ref_results: dict[str, dict[str, np.ndarray]] = {}
    ref_wall: dict[str, float] = {}
    try:
        import pytrec_eval

        def trec() -> dict[str, dict[str, float]]:
            evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC)
            return evaluator.evaluate(score_run)

        wall, cpu, res = best_time(trec, repeat)
        rows.append(("pytrec_eval (one evaluator)", wall, cpu, peak_rss_mb(trec)))
        ref_wall["pytrec_eval"] = wall
        qids = list(run)
        arrays = {name: np.array([res[q][key] for q in qids]) for name, key in TREC_KEY.items()}
        top10 = {q: dict(list(score_run[q].items())[:10]) for q in qids}  # dicts are rank-ordered
        rr10 = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(top10)
        arrays["mrr@10"] = np.array([rr10[q]["recip_rank"] for q in qids])
        ref_results["pytrec_eval"] = arrays
    except ImportError:
        print("pytrec_eval not installed (pip install pytrec-eval-terrier): skipped")

    try:
        from ranx import evaluate as ranx_evaluate

        _, warm_scores, warm_qrels = generate(200, seed=1)
        ranx_evaluate(warm_qrels, warm_scores, RANX, return_mean=False)  # numba compile + warm

        def ranx_eval() -> dict[str, np.ndarray]:
            scores = ranx_evaluate(qrels, score_run, RANX, return_mean=False)
            return scores

        wall, cpu, res = best_time(ranx_eval, repeat)
        rows.append(("ranx (plain dicts, warmed)", wall, cpu, peak_rss_mb(ranx_eval)))
        ref_wall["ranx"] = wall
        ref_results["ranx"] = {name: np.asarray(res[name]) for name in RANX}
    except ImportError:
        print("ranx not installed: skipped")

    print(f"{'':32}{'wall s':>9}{'(cpu s)':>10}{'peak RSS +MB':>14}")
    for name, wall, cpu, mem in rows:
        mem_text = f"{mem:14.0f}" if mem is not None else f"{'n/a':>14}"
        print(f"{name:32}{wall:9.3f}{f'({cpu:.3f})':>10}{mem_text}")
    print(f"ours: tracemalloc peak of one call {traced_peak:.0f} MB")
    for ref, wall in ref_wall.items():
        print(f"ratio ours/{ref}: dicts {ours_wall / wall:.2f}, lists {lists_wall / wall:.2f}")
    for name in OURS:
        diff = max_diff(ours[name], ours_lists[name])
        parts = [f"lists {diff:.1e}"]
        for ref, arrays in ref_results.items():
            parts.append(f"{ref} {max_diff(ours[name], arrays[name]):.1e}")
        print(f"max |ours - x| {name:13}: " + ", ".join(parts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (best kept)")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} CPUs")
    for n in args.queries:
        bench(n, args.repeat)


if __name__ == "__main__":
    main()
