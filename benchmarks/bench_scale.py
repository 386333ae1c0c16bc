"""Benchmark: large golden sets through real pytest sessions (time, memory, report sizes).

    python benchmarks/bench_scale.py [--cases 50000,200000] [--quick] [--no-parallel]

For each size a temporary project gets a golden JSONL file (two expected ids per case) and a
test whose retriever is trivial (ten ``(id, score)`` pairs built in Python), with the default
metrics. Real pytest sessions run in subprocesses:

1. ``--snapshot-update``: record the baseline;
2. compare with it, writing a JSON report;
3. ``-n 2`` with two such tests (one per worker): record, then compare with JSON + HTML reports.

Each compare run prints its wall time, CPU time (user + system of the whole process tree),
peak RSS (the process tree's resident memory summed, sampled every 50 ms from ``/proc``; for
a one-process run also the kernel's exact peak, which sampling can miss), peak PSS (the same
sum with each shared page counted once: the interpreter and libraries the pytest-xdist
processes share), for ``-n 2`` the controller's and each worker's own peak and the ratios to
one process, the
per-stage times the JSON report carries per test (``timings``: load, retrieve, evaluate,
compare, record; see docs/reports.md), the report sizes, and the plugin's overhead against
the metric engine's own time: everything but the retriever's calls and the engine, divided by
the engine's time. Then the golden load alone (in this process). Wall times on a machine
shared with other work are noisy: compare CPU times.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from shutil import which
from typing import Any

TEST = """
from pytest_ragcheck import ragcheck
N = {n}


def retriever(query):
    i = int(query.split()[3])
    return [("doc-%d" % ((i + j * j) % N), 1.0 - j / 10) for j in range(10)]


@ragcheck(cases="golden.jsonl", k=10)
def test_a(ragcheck):
    ragcheck(retriever)
"""
SECOND = """

@ragcheck(cases="golden.jsonl", k=10)
def test_b(ragcheck):
    ragcheck(retriever)
"""


def write_golden(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for i in range(n):
            case = {
                "id": f"case-{i:06d}",
                "query": f"what does document {i} say about topic {i % 97}",
                "expected_ids": [f"doc-{i}", f"doc-{(i * 7) % n}"],
            }
            handle.write(json.dumps(case) + "\n")


def _tree_memory_kb(root: int) -> dict[int, tuple[int, int]]:
    """Resident and proportional memory (RSS, PSS in kB) of ``root`` and each of its
    descendants (Linux ``/proc``). PSS counts a page shared by several processes (the
    interpreter, numpy's libraries) once in their sum; RSS counts it in each process."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    tree = {root}
    changed = True
    while changed:
        changed = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                changed = True
    return {pid: (_kb(pid, "status", "VmRSS:"), _kb(pid, "smaps_rollup", "Pss:")) for pid in tree}


def _kb(pid: int, name: str, key: str) -> int:
    try:
        text = Path(f"/proc/{pid}/{name}").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in text.splitlines() if line.startswith(key)), 0)


def run_pytest(project: Path, args: list[str]) -> dict[str, Any]:
    """One pytest session: wall s, CPU s of the process tree, peak tree RSS and PSS in MB
    (sampled), the main process's exact peak RSS in MB (the kernel's), and the sampled peaks
    of the main process and of its two largest children (pytest-xdist's workers)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("GITHUB_STEP_SUMMARY", None)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            *args,
        ],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
    )
    peak = peak_pss = 0
    own: dict[int, int] = {}  # each process's own peak RSS
    done = threading.Event()

    def sample() -> None:
        nonlocal peak, peak_pss
        while not done.is_set():
            memory = _tree_memory_kb(proc.pid)
            peak = max(peak, sum(rss for rss, _ in memory.values()))
            peak_pss = max(peak_pss, sum(pss for _, pss in memory.values()))
            for pid, (rss, _) in memory.items():
                own[pid] = max(own.get(pid, 0), rss)
            done.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    assert proc.stdout is not None
    output = proc.stdout.read().decode("utf-8", "replace")
    # wait4, not wait: the kernel's exact peak of the process (sampling can miss a short one)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    done.set()
    sampler.join()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"pytest {' '.join(args)} failed:\n{output[-3000:]}")
    workers = sorted((rss for pid, rss in own.items() if pid != proc.pid), reverse=True)
    return {
        "wall": wall,
        "cpu": cpu,
        "rss_mb": peak / 1024,
        "pss_mb": peak_pss / 1024,
        "max_rss_mb": usage.ru_maxrss / 1024,
        "main_mb": own.get(proc.pid, 0) / 1024,
        "workers_mb": [rss / 1024 for rss in workers[:2]],
    }


def stages(report: Path) -> list[dict[str, float]]:
    """Per test: the stage times, the retriever's own time and the engine's."""
    data = json.loads(report.read_text(encoding="utf-8"))
    out = []
    for test in data["tests"]:
        timings = dict(test["timings"])
        own = sum(c["latency_ms"] or 0.0 for c in test["cases"]) / 1000.0
        timings["retriever_s"] = own
        out.append(timings)
    return out


def overhead(t: dict[str, float]) -> float:
    """Everything but the retriever's calls and the metric engine, in seconds."""
    total = sum(t[k] for k in ("load_s", "retrieve_s", "evaluate_s", "compare_s", "record_s"))
    return total - t["retriever_s"] - t["metrics_s"]


def show_run(label: str, run: dict[str, Any], reports: list[Path], *, exact: bool) -> None:
    """``exact``: one process, whose exact peak (wait4) is shown beside the sampled one. Not
    for ``-n 2``: there the kernel's figure can count a forked helper's inherited memory, and
    the peaks of the controller and of each worker are shown instead."""
    sizes = ", ".join(f"{p.suffix[1:]} {p.stat().st_size / 1e6:.1f} MB" for p in reports)
    print(
        f"  {label:<34} wall {run['wall']:6.1f} s  cpu {run['cpu']:6.1f} s  "
        f"peak RSS {run['rss_mb']:6.0f} MB"
        + (f" (exact {run['max_rss_mb']:.0f} MB)" if exact else "")
        + f", PSS {run['pss_mb']:.0f} MB"
        + (f"  reports: {sizes}" if sizes else "")
    )
    if run["workers_mb"]:
        workers = " + ".join(f"{mb:.0f}" for mb in run["workers_mb"])
        print(f"    own peaks: controller {run['main_mb']:.0f} MB, workers {workers} MB")


def show_ratio(parallel: dict[str, Any], single: dict[str, Any]) -> None:
    """The ``-n 2`` run's memory against one process's: the whole tree, and the workers alone
    (what remains is the controller, a pytest process of its own)."""
    workers = sum(parallel["workers_mb"])
    print(
        f"    -n 2 / one process: RSS {parallel['rss_mb'] / single['rss_mb']:.2f}x "
        f"(exact single {parallel['rss_mb'] / single['max_rss_mb']:.2f}x), "
        f"PSS {parallel['pss_mb'] / single['pss_mb']:.2f}x; "
        f"the two workers' own peaks {workers / single['max_rss_mb']:.2f}x"
    )


def show_stages(report: Path) -> None:
    for t in stages(report):
        ratio = overhead(t) / t["metrics_s"] if t["metrics_s"] else float("nan")
        print(
            f"    stages (s): load {t['load_s']:.2f}  retrieve {t['retrieve_s']:.2f} "
            f"(retriever's own {t['retriever_s']:.2f})  evaluate {t['evaluate_s']:.2f} "
            f"(engine {t['metrics_s']:.2f})  compare {t['compare_s']:.2f}  "
            f"report record {t['record_s']:.2f}"
        )
        print(f"    plugin overhead {overhead(t):.2f} s = {ratio:.1f}x the metric engine's time")


def show_html_open(html: Path) -> None:
    """Time headless Chromium loading the HTML report until its scripts have run."""
    browser = next((b for b in ("chromium", "chromium-browser", "google-chrome") if which(b)), None)
    if browser is None:
        print("    html open: no Chromium found, not measured")
        return
    start = time.perf_counter()
    dom = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", html.as_uri()],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    ).stdout
    elapsed = time.perf_counter() - start
    cap = "with" if "cap-notice" in dom else "without"
    print(f"    html opens in headless Chromium in {elapsed:.1f} s ({cap} the cap notice)")


def bench(n: int, parallel: bool) -> None:
    print(f"== {n:,} cases ==")
    with tempfile.TemporaryDirectory(prefix="ragcheck-scale-") as tmp:
        project = Path(tmp)
        write_golden(project / "golden.jsonl", n)
        size = (project / "golden.jsonl").stat().st_size / 1e6
        print(f"  golden file {size:.1f} MB")
        (project / "test_scale.py").write_text(TEST.format(n=n), encoding="utf-8")
        show_run("record baseline", run_pytest(project, ["--snapshot-update"]), [], exact=True)
        report = project / "report.json"
        single = run = run_pytest(project, [f"--ragcheck-report={report}"])
        show_run("compare + JSON report", run, [report], exact=True)
        show_stages(report)
        if parallel:
            (project / "test_scale.py").write_text(TEST.format(n=n) + SECOND, encoding="utf-8")
            show_run(
                "-n 2 record (2 tests)",
                run_pytest(project, ["-n", "2", "--snapshot-update"]),
                [],
                exact=False,
            )
            html = project / "report.html"
            run = run_pytest(project, ["-n", "2", f"--ragcheck-report={report},{html}"])
            show_run("-n 2 compare + JSON/HTML", run, [report, html], exact=False)
            show_ratio(run, single)
            show_stages(report)
            show_html_open(html)
        from pytest_ragcheck.golden import load_golden

        start, cpu = time.perf_counter(), time.process_time()
        load_golden(str(project / "golden.jsonl"), base_dirs=[project])
        print(
            f"  golden load alone: {time.perf_counter() - start:.2f} s wall, "
            f"{time.process_time() - cpu:.2f} s cpu"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="50000,200000", help="comma-separated sizes")
    parser.add_argument("--quick", action="store_true", help="20,000 cases, no -n 2 run")
    parser.add_argument("--no-parallel", action="store_true", help="no -n 2 run")
    args = parser.parse_args()
    sizes = [20_000] if args.quick else [int(x) for x in args.cases.split(",")]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    for n in sizes:
        bench(n, parallel=not (args.quick or args.no_parallel))


if __name__ == "__main__":
    main()
