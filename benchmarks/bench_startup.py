"""Benchmark: what the installed-but-unused plugin adds to pytest's start-up.

    python benchmarks/bench_startup.py [--runs 9] [--files 50]

1. ``python -X importtime -c "import pytest_ragcheck.plugin"``: the import time of our own
   modules (self and cumulative, excluding pytest, which any pytest run imports anyway), and
   whether any heavy module (numpy, pydantic, syrupy, litellm, ...) is imported.
2. ``pytest --collect-only -q`` on a generated project with no ragcheck test, with the plugin
   (as installed through its entry point) and with ``-p no:ragcheck``; the runs alternate and
   the medians of wall time and of the child's CPU time are compared. The goal (SPEC §7) is
   < 20 ms added. On a busy machine that difference drowns in noise, so
3. the same collection runs under cProfile, and the time of every call from pytest into
   ``pytest_ragcheck`` code (hooks and module bodies, with what they call) is summed: a
   steadier measure of what the plugin itself costs (profiler overhead included).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAVY = ("numpy", "pydantic", "pydantic_core", "syrupy", "litellm", "scipy", "httpx", "openai")
OURS = "pytest_ragcheck"


def import_times(runs: int) -> None:
    print("== python -X importtime -c 'import pytest_ragcheck.plugin' ==")
    own_self: list[float] = []
    own_cumulative: list[float] = []
    pytest_cumulative: list[float] = []
    modules: list[str] = []
    for _ in range(runs):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import pytest_ragcheck.plugin"],
            capture_output=True,
            text=True,
            check=True,
        )
        rows = []
        for line in proc.stderr.splitlines():
            match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
            if match:
                rows.append((int(match[1]), int(match[2]), len(match[3]), match[4]))
        modules = [name for *_, name in rows]
        own_self.append(sum(s for s, _, _, name in rows if name.split(".")[0] == OURS) / 1000)
        top = {name: cumulative for _, cumulative, _, name in rows}
        pytest_cumulative.append(top.get("pytest", 0) / 1000)
        own_cumulative.append(top[f"{OURS}.plugin"] / 1000)
    ours = sorted({m for m in modules if m.split(".")[0] == OURS})
    heavy = sorted({m for m in modules if m.split(".")[0] in HEAVY})
    print(f"our modules imported: {', '.join(ours)}")
    print(f"self time of our modules (median of {runs}): {statistics.median(own_self):.1f} ms")
    print(
        f"cumulative import of pytest_ragcheck.plugin: {statistics.median(own_cumulative):.1f} ms"
        f", of which pytest itself: {statistics.median(pytest_cumulative):.1f} ms"
    )
    print(f"heavy modules imported: {', '.join(heavy) if heavy else 'none'}")


def make_project(root: Path, files: int) -> None:
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    for i in range(files):
        tests = "\n".join(
            f"def test_{j}(tmp_path):\n    assert {j} + {i} >= 0\n" for j in range(10)
        )
        (root / f"test_mod{i}.py").write_text(tests)


def collect_times(runs: int, files: int) -> None:
    print(f"\n== pytest --collect-only -q ({files} files x 10 tests, no ragcheck test) ==")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_project(root, files)
        base = [sys.executable, "-m", "pytest", "--collect-only", "-q"]
        env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
        trace = subprocess.run(
            [*base, "--trace-config"], cwd=root, capture_output=True, text=True, env=env
        )
        loaded = "pytest_ragcheck" in trace.stdout
        print(f"plugin loaded through its entry point: {'yes' if loaded else 'NO'}")
        wall: dict[str, list[float]] = {"with": [], "without": []}
        cpu: dict[str, list[float]] = {"with": [], "without": []}
        for i in range(runs + 1):
            for label, extra in (("with", []), ("without", ["-p", "no:ragcheck"])):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run([*base, *extra], cwd=root, capture_output=True, env=env, check=True)
                elapsed = time.perf_counter() - start
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if i:  # the first round only warms the caches
                    wall[label].append(elapsed * 1000)
                    used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
                    cpu[label].append(used * 1000)
        print(f"{'median of ' + str(runs):22}{'wall ms':>10}{'CPU ms':>10}")
        for label, name in (("with", "with the plugin"), ("without", "with -p no:ragcheck")):
            wall_ms, cpu_ms = statistics.median(wall[label]), statistics.median(cpu[label])
            print(f"{name:22}{wall_ms:10.1f}{cpu_ms:10.1f}")
        d_wall = statistics.median(wall["with"]) - statistics.median(wall["without"])
        d_cpu = statistics.median(cpu["with"]) - statistics.median(cpu["without"])
        print(f"{'difference':22}{d_wall:+10.1f}{d_cpu:+10.1f}")


_PROFILE = """
import cProfile, pstats, sys, pytest
profiler = cProfile.Profile()
profiler.enable()
pytest.main(["--collect-only", "-q"])
profiler.disable()
stats = pstats.Stats(profiler)
ours = lambda func: "pytest_ragcheck" in func[0]
# time of every call into our code from outside it, callees included (no double counting)
own = sum(
    edge[3]
    for func, (_, _, _, _, callers) in stats.stats.items()
    if ours(func)
    for caller, edge in callers.items()
    if not ours(caller)
)
total = sum(tottime for (_, _, tottime, _, _) in stats.stats.values())
print(f"RESULT {own * 1000:.3f} {total * 1000:.3f}")
"""


def profiled_cost(runs: int, files: int) -> None:
    """Time spent inside our own code during a collect-only run (cProfile, steady on a busy
    machine; the profiler's overhead inflates both figures alike)."""
    print(f"\n== time inside pytest_ragcheck during --collect-only (cProfile, {runs} runs) ==")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_project(root, files)
        own, total = [], []
        for _ in range(runs):
            proc = subprocess.run(
                [sys.executable, "-c", _PROFILE], cwd=root, capture_output=True, text=True
            )
            line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT"))
            own.append(float(line.split()[1]))
            total.append(float(line.split()[2]))
        print(
            f"our code (hooks, fixtures, imports): {statistics.median(own):.1f} ms "
            f"of {statistics.median(total):.0f} ms profiled in total"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--files", type=int, default=50)
    args = parser.parse_args()
    import_times(args.runs)
    profiled_cost(max(3, args.runs // 3), args.files)
    collect_times(args.runs, args.files)


if __name__ == "__main__":
    main()
