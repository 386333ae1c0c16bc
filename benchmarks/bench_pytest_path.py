"""Benchmark: what a pytest run of one ``@ragcheck`` test adds to ``evaluate()`` itself.

    python benchmarks/bench_pytest_path.py                      # 50,000 x 10 and x 100
    python benchmarks/bench_pytest_path.py --sizes 10000x10 --repeat 5

The workload is ``bench_peers.py``'s (seeded: N cases with 1-5 relevant ids, a retriever that
looks up a precomputed ranking; metrics @10: hit rate, MRR, P, R, nDCG, MAP). A temporary
project holds the cases as ``golden.jsonl`` and the rankings as ``rankings.json``, and two test
files that each load the rankings and then either

* ``ragcheck``: ``@ragcheck(cases="golden.jsonl", ...)`` then ``ragcheck(retriever)``, compared
  with its stored baseline (recorded once beforehand with ``--snapshot-update``); or
* ``evaluate``: ``pytest_ragcheck.evaluate(retriever, "golden.jsonl", ...)`` in a plain test.

Each round runs both sessions in subprocesses, alternating, and reads their CPU time (user +
system, ``RUSAGE_CHILDREN``). Both pay the same start-up, imports and data loading, so the
difference is what the pytest path adds to ``evaluate()``: the baseline compare, the verdict,
the summary and the plugin's hooks (the issue's goal: at most 1 s). The median of the rounds
is shown.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_peers import METRICS, make

SIZES = "50000x10,50000x100"

COMMON = f"""
import json
import pathlib

METRICS = {METRICS!r}
RANKINGS = json.loads(pathlib.Path(__file__).with_name("rankings.json").read_text())


def retriever(query):
    return RANKINGS[query]
"""
RAGCHECK = (
    COMMON
    + """
from pytest_ragcheck import ragcheck


@ragcheck(cases="golden.jsonl", metrics=METRICS)
def test_quality(ragcheck):
    ragcheck(retriever)
"""
)
EVALUATE = (
    COMMON
    + """
from pytest_ragcheck import evaluate


def test_quality():
    assert evaluate(retriever, "golden.jsonl", metrics=METRICS).metrics
"""
)
FLAGS = ["-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-o", "addopts="]


def project(root: Path, n: int, depth: int) -> None:
    cases, retriever = make(n, depth)
    with (root / "golden.jsonl").open("w") as golden:
        for case in cases:
            golden.write(json.dumps(case) + "\n")
    rankings = {case["query"]: retriever(case["query"]) for case in cases}
    for name in ("test_ragcheck", "test_evaluate"):
        (root / name).mkdir()
        (root / name / "rankings.json").write_text(json.dumps(rankings))
    (root / "test_ragcheck" / "test_ragcheck.py").write_text(RAGCHECK)
    (root / "test_evaluate" / "test_evaluate.py").write_text(EVALUATE)
    (root / "pytest.ini").write_text("[pytest]\n")


def session(root: Path, target: str, *extra: str) -> float:
    """CPU seconds of one pytest session in a subprocess (it must pass)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", target, *FLAGS, *extra],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"pytest {target} failed:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def bench(n: int, depth: int, repeat: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project(root, n, depth)
        session(root, "test_ragcheck", "--snapshot-update")  # the baseline it compares with
        times: dict[str, list[float]] = {"ragcheck": [], "evaluate": []}
        for _ in range(repeat):
            for name in times:
                times[name].append(session(root, f"test_{name}"))
    ours, plain = statistics.median(times["ragcheck"]), statistics.median(times["evaluate"])
    rounds = {name: ", ".join(f"{t:.2f}" for t in found) for name, found in times.items()}
    print(f"\n== {n:,} cases x {depth} hits ==")
    print(
        f"  pytest, one @ragcheck test (baseline compare): {ours:6.2f} s CPU  ({rounds['ragcheck']})"
    )
    print(
        f"  pytest, evaluate() in a plain test:            {plain:6.2f} s CPU  ({rounds['evaluate']})"
    )
    print(f"  the pytest path adds: {ours - plain:.2f} s (goal: at most 1 s)")
    return ours, plain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=SIZES, help=f"N x depth, comma-separated ({SIZES})")
    parser.add_argument("--repeat", type=int, default=3, help="rounds (the median is shown)")
    args = parser.parse_args()
    rows = []
    for size in args.sizes.split(","):
        n, depth = map(int, size.lower().split("x"))
        rows.append((f"{n:,} × {depth}", *bench(n, depth, args.repeat)))
    print("\n| N × depth | pytest, one `@ragcheck` test | pytest, `evaluate()` in a test | added |")
    print("|---|---|---|---|")
    for label, ours, plain in rows:
        print(f"| {label} | {ours:.2f} s | {plain:.2f} s | **{ours - plain:+.2f} s** |")


if __name__ == "__main__":
    main()
