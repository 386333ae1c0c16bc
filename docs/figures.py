"""Regenerate the figures the documentation quotes from real runs, or check that they are current.

    python docs/figures.py                # rewrite every figure from the example suite
    python docs/figures.py --check        # exit 1 and show what differs (tests run this)
    python docs/figures.py --benchmarks   # also re-measure the Performance tables (minutes)

A figure is the text between ``<!-- figure: NAME -->`` and ``<!-- /figure -->`` in one of
``FILES`` (a whole fenced block, a table or a few words inside a sentence). Its text comes from
the function registered for NAME, which reads the outputs of the example suite run exactly as
the docs say: ``pytest example_suite`` from a fresh copy of the repository's ``example_suite/``
(so ``--snapshot-update`` runs never touch the committed baselines), with the default and the
``weak`` retriever. Latencies and durations are written as measured and ignored by ``--check``
(they differ from run to run); every other number must match. Benchmark figures depend on the
machine, so ``--check`` never re-measures them.
"""

from __future__ import annotations

import argparse
import difflib
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_ragcheck.report.markdown import render_github_summary  # noqa: E402
from pytest_ragcheck.report.terminal import plain, render_summary  # noqa: E402

#: Markdown files that hold figures, relative to the repository root.
FILES = (
    "README.md",
    "docs/reports.md",
    "docs/metrics.md",
    "docs/example-suite.md",
    "example_suite/README.md",
    "docs/compare.md",
)
FIGURE = re.compile(r"(<!-- figure: (?P<name>[\w-]+) -->)(?P<body>.*?)(<!-- /figure -->)", re.S)
WIDTH = 80  # pytest's terminal width when the output is not a terminal

SUMMARY_TESTS = (
    "test_baseline.py::test_cranfield_baseline",
    "test_floors.py::test_cranfield_floors",
)
TAG_TEST = "test_tags.py::test_topic[heat-transfer]"


# ---- running the example suite ------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """What one ``pytest example_suite`` run left: its output, JSON report, JUnit XML and the
    baseline files before and after."""

    stdout: str
    document: dict[str, Any]
    junit: ET.Element
    before: dict[str, str]
    after: dict[str, str]

    def tests(self, *nodeids: str) -> dict[str, Any]:
        """The report document restricted to ``nodeids`` (as a run of only those would be)."""
        missing = set(nodeids) - {t["nodeid"] for t in self.document["tests"]}
        if missing:
            raise LookupError(f"no such ragcheck test in the run: {sorted(missing)}")
        chosen = [t for t in self.document["tests"] if t["nodeid"] in nodeids]
        return {**self.document, "tests": chosen}


def _snapshots(suite: Path) -> dict[str, str]:
    return {
        str(p.relative_to(suite.parent)): p.read_text(encoding="utf-8")
        for p in sorted((suite / "__ragcheck__").rglob("*.json"))
    }


@functools.cache
def run_example_suite(variant: str, *args: str) -> Run:
    """``RAGCHECK_EXAMPLE_VARIANT=variant pytest example_suite *args`` in a fresh copy."""
    with tempfile.TemporaryDirectory(prefix="ragcheck-figures-") as tmp:
        work = Path(tmp)
        suite = work / "example_suite"
        shutil.copytree(
            ROOT / "example_suite",
            suite,
            ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache", ".ragcheck"),
        )
        before = _snapshots(suite)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "PYTEST_"))}
        env.update(
            RAGCHECK_EXAMPLE_VARIANT=variant,
            COLUMNS=str(WIDTH),
            PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
        )
        # Plugins that change nothing here are left out: each costs a second or two to import.
        quiet = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:langsmith_plugin")
        command = [
            sys.executable, "-m", "pytest", "example_suite", *quiet,
            f"--ragcheck-report={work / 'report.json'}", f"--junitxml={work / 'junit.xml'}",
            *args,
        ]  # fmt: skip
        done = subprocess.run(
            command, cwd=work, env=env, capture_output=True, text=True, timeout=900
        )
        if done.returncode not in (0, 1) or not (work / "report.json").exists():
            raise RuntimeError(
                f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}"
            )
        return Run(
            stdout=done.stdout,
            document=json.loads((work / "report.json").read_text(encoding="utf-8")),
            junit=ET.parse(work / "junit.xml").getroot(),
            before=before,
            after=_snapshots(suite),
        )


def default() -> Run:
    return run_example_suite("default")


def weak() -> Run:
    return run_example_suite("weak")


def weak_update() -> Run:
    return run_example_suite("weak", "--snapshot-update")


@functools.cache
def bm25_ndcg(**config: Any) -> float:
    """nDCG@10 over the 225 Cranfield queries of the example retriever with ``config``."""
    sys.path.insert(0, str(ROOT / "example_suite"))
    from retriever import BM25Config, BM25Retriever, load_corpus

    from pytest_ragcheck import evaluate

    retriever = BM25Retriever(load_corpus(), BM25Config(**config))
    golden = ROOT / "example_suite" / "golden" / "cranfield.jsonl"
    return float(evaluate(retriever, golden, k=10, metrics=["ndcg@10"])["ndcg@10"])


# ---- text helpers ---------------------------------------------------------------------------


def sep(title: str, char: str = "=") -> str:
    """A pytest section line: ``==== title ====`` across the terminal width."""
    fill = char * max((WIDTH - len(title) - 2) // 2, 1)
    line = f"{fill} {title} {fill}"
    return line + char if len(line) < WIDTH else line


def block(lang: str, lines: Iterable[str], *, indent: str = "") -> str:
    """A fenced code block on lines of its own (``indent``: inside a list item)."""
    body = [f"```{lang}", *lines, "```"]
    return (
        "\n"
        + "".join(
            f"{indent}{line}\n".lstrip(" ") if not line else f"{indent}{line}\n" for line in body
        )
        + indent
    )


def table(rows: Iterable[str]) -> str:
    """A Markdown table on lines of its own."""
    return "\n" + "\n".join(rows) + "\n"


def summary(document: dict[str, Any], *, verbosity: int = 0) -> list[str]:
    return [
        sep("ragcheck summary"),
        *plain(render_summary(document, verbosity=verbosity)).splitlines(),
    ]


def test_block(document: dict[str, Any], nodeid: str) -> list[str]:
    """One test's lines of the summary (title and table, up to the blank line)."""
    lines = plain(render_summary(document)).splitlines()
    start = next(i for i, line in enumerate(lines) if f"  {nodeid}  " in line)
    end = lines.index("", start)
    return lines[start:end]


def shorten_lists(text: str, keep: int = 2) -> list[str]:
    """A failure message with each run of indented case lines cut to ``keep`` and ``...``."""
    out: list[str] = []
    run = 0
    for line in text.splitlines():
        deep = line.startswith("    ")
        run = run + 1 if deep else 0
        if run <= keep:
            out.append(line)
        elif run == keep + 1:
            out.append(line[: len(line) - len(line.lstrip())] + "...")
    return out


def outcome_counts(stdout: str) -> str:
    """pytest's last line without its frame and duration: ``10 passed, 1 skipped``."""
    return stdout.strip().splitlines()[-1].strip("= ").split(" in ")[0]


def failure(run: Run, name: str) -> str:
    case = next(c for c in run.junit.iter("testcase") if c.get("name") == name)
    found = case.find("failure")
    if found is None:
        raise LookupError(f"{name} did not fail")
    return found.text or found.get("message", "")


def fmt(value: float, decimals: int = 3) -> str:
    from pytest_ragcheck.common.display import format_value

    return format_value(value, decimals=decimals)


def aggregates(run: Run, nodeid: str) -> dict[str, float]:
    return next(t["aggregates"] for t in run.document["tests"] if t["nodeid"] == nodeid)


# ---- the figures -----------------------------------------------------------------------------

Figure = Callable[[], str]
FIGURES: dict[str, Figure] = {}


def figure(name: str) -> Callable[[Figure], Figure]:
    def register(func: Figure) -> Figure:
        FIGURES[name] = func
        return func

    return register


@figure("weak-summary")
def _weak_summary() -> str:
    return block("text", summary(weak().tests(*SUMMARY_TESTS)))


@figure("weak-summary-tags")
def _weak_summary_tags() -> str:
    return block("text", summary(weak().tests(*SUMMARY_TESTS, TAG_TEST)))


@figure("weak-summary-compact")
def _weak_summary_compact() -> str:
    document = weak().tests(SUMMARY_TESTS[1], TAG_TEST)
    return block("text", plain(render_summary(document, verbosity=-1)).splitlines(), indent="  ")


@figure("weak-github-summary")
def _weak_github_summary() -> str:
    text = render_github_summary(weak().tests(*SUMMARY_TESTS, TAG_TEST), budget=1 << 20)
    head = text.split("<details", 1)[0].rstrip().splitlines()
    return block("markdown", head)


@figure("weak-junit")
def _weak_junit() -> str:
    case = next(
        c for c in weak().junit.iter("testcase") if c.get("name") == "test_cranfield_baseline"
    )
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    shown = [n for n in props if n.startswith("ragcheck.mrr@10")] + [
        "...",
        "ragcheck.latency_p95_ms",
    ]
    lines = [
        f'<testcase classname="{case.get("classname")}" name="{case.get("name")}" time="{case.get("time")}">',
        "  <properties>",
    ]
    for name in shown:
        lines.append(
            "    ..." if name == "..." else f'    <property name="{name}" value="{props[name]}" />'
        )
    return block("xml", lines)


@figure("default-summary")
def _default_summary() -> str:
    run = default()
    nodeid = SUMMARY_TESTS[0]
    lines = [
        "$ pytest example_suite",
        "...",
        sep("ragcheck summary"),
        *test_block(run.document, nodeid),
        "...",
        plain(render_summary(run.document)).splitlines()[-1],
        "...",
        outcome_counts(run.stdout),
    ]
    return block("console", lines)


@figure("weak-failures")
def _weak_failures() -> str:
    run = weak()
    lines = ["$ RAGCHECK_EXAMPLE_VARIANT=weak pytest example_suite", "..."]
    for name in ("test_cranfield_baseline", "test_cranfield_floors"):
        lines += [sep(name, "_"), *shorten_lists(failure(run, name))]
    return block("console", [*lines, "...", outcome_counts(run.stdout)])


@figure("weak-update")
def _weak_update() -> str:
    run = weak_update()
    test = next(
        t for t in run.document["tests"] if t["nodeid"] == "test_tags.py::test_topic[structures]"
    )
    note = next(n for n in test["notes"] if n.startswith("baseline re-recorded"))
    updated = next(
        line for line in run.stdout.splitlines() if re.match(r"\d+ snapshots? updated", line)
    )
    failed = [
        line.split(" - ")[0] + " - ..."
        for line in run.stdout.splitlines()
        if line.startswith("FAILED ")
    ]
    lines = [
        "$ RAGCHECK_EXAMPLE_VARIANT=weak pytest example_suite --snapshot-update",
        "...",
        f"  note: {note}",
        "...",
        updated,
        *failed,
    ]
    return block("console", lines)


@figure("weak-update-diff")
def _weak_update_diff() -> str:
    run = weak_update()
    changed = [p for p in run.after if run.after[p] != run.before.get(p)]
    path = next(p for p in changed if "test_cranfield_baseline[" in p)

    def cut(line: str) -> str:
        if len(line) <= 96:
            return line
        head = line[:90].rsplit(", ", 1)[0]
        return head + ", ...}" + ("," if line.endswith(",") else "")

    old, new = run.before[path].splitlines(), run.after[path].splitlines()
    pick = [i for i, line in enumerate(old) if '"ndcg@10":' in line][:1]
    pick += [i for i, line in enumerate(old) if line.lstrip().startswith('"101":')][:1]
    diff = []
    for i in pick:
        diff += [f"-{cut(old[i])}", f"+{cut(new[i])}", "..."]
    lines = [
        "$ git status --short",
        f" M {path}",
        " ...",
        f"$ git diff {path.rsplit('/', 1)[0]}/",
        *diff,
    ]
    return block("console", lines)


@figure("evaluate-snippet")
def _evaluate_snippet() -> str:
    value = aggregates(default(), SUMMARY_TESTS[1])["ndcg@10"]
    code = f"""from pytest_ragcheck import evaluate

# retriever: anything a test accepts (a function, a LangChain or LlamaIndex retriever...)
result = evaluate(
    retriever,
    "example_suite/golden/cranfield.jsonl",
    k=10,
    metrics=["mrr@10", "recall@5", "ndcg@10"],
)
print(result.table())
result["ndcg@10"]  # {value:.4f}
result.worst_cases("ndcg@10", limit=5)  # the queries to look at first"""
    return block("python", code.splitlines())


@figure("variants-compare")
def _variants_compare() -> str:
    """The table ``python example_suite/evaluate.py`` prints (``compare`` of the variants)."""
    done = subprocess.run(
        [sys.executable, "example_suite/evaluate.py"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
    )
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if " systems against " in line)
    return block("text", lines[start:])


@figure("variants-table")
def _variants_table() -> str:
    rows = ["| variant | hit_rate@10 | mrr@10 | recall@5 | ndcg@10 |", "|---|---|---|---|---|"]
    for label, run in (
        ("`default` (stemmed, stopwords removed, title + abstract)", default()),
        ("`weak` (no stemming, titles only)", weak()),
    ):
        values = aggregates(run, SUMMARY_TESTS[1])
        cells = " | ".join(fmt(values[m]) for m in ("hit_rate@10", "mrr@10", "recall@5", "ndcg@10"))
        rows.append(f"| {label} | {cells} |")
    return table(rows)


@figure("plain-bm25-ndcg")
def _plain_bm25_ndcg() -> str:
    return fmt(bm25_ndcg(stem=False, stopwords=False))


@figure("k1-change")
def _k1_change() -> str:
    default_ndcg = aggregates(default(), SUMMARY_TESTS[1])["ndcg@10"]  # the same retriever
    return f"{bm25_ndcg(k1=2.0) - default_ndcg:+.3f}"


# ---- benchmarks (--benchmarks only) ------------------------------------------------------------


@functools.cache
def bench(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=3600,
    )
    return done.stdout


def _match(pattern: str, text: str) -> re.Match[str]:
    found = re.search(pattern, text, re.M)
    if found is None:
        raise LookupError(f"benchmark output has no line matching {pattern!r}:\n{text}")
    return found


@functools.cache
def metrics_bench() -> dict[str, dict[str, tuple[float, float]]]:
    """``{queries: {row: (wall s, peak RSS MB)}}`` from ``bench_metrics.py``."""
    out = bench("bench_metrics.py")
    result: dict[str, dict[str, tuple[float, float]]] = {}
    for section in re.split(r"^=== ", out, flags=re.M)[1:]:
        size = section.split(" ", 1)[0]
        rows = {}
        for label, key in (
            ("ours, {doc: score} dicts", "dicts"),
            ("ours, ranked lists", "lists"),
            ("pytrec_eval (one evaluator)", "pytrec_eval"),
            ("ranx (plain dicts, warmed)", "ranx"),
        ):
            m = _match(re.escape(label) + r"\s+([\d.]+)\s+\([\d.]+\)\s+([\d.]+)", section)
            rows[key] = (float(m.group(1)), float(m.group(2)))
        result[size] = rows
    return result


def bench_table(size: str, refs: tuple[str, str], *, ratios: bool) -> str:
    """docs/metrics.md's table for one run size: time and memory per library."""
    rows = metrics_bench()[size]
    head = f"| {size} queries × 100 hits | time | peak RSS |"
    lines = [head + " ours (score dicts) / it | ours (lists) / it |" if ratios else head]
    lines.append("|---|---|---|" + ("---|---|" if ratios else ""))
    labels = ("ours, `{doc: score}` run", "ours, ranked lists", *refs)
    for key, label in zip(("dicts", "lists", "pytrec_eval", "ranx"), labels, strict=True):
        wall, mem = rows[key]
        line = f"| {label} | {wall:.2f} s | +{mem:.0f} MB |"
        if ratios:
            ours = key in ("dicts", "lists")
            line += (
                " | |"
                if ours
                else f" {rows['dicts'][0] / wall:.2f} | {rows['lists'][0] / wall:.2f} |"
            )
        lines.append(line)
    return table(lines)


@figure("bench-metrics-100k")
def _bench_metrics_100k() -> str:
    refs = (
        "pytrec_eval (one evaluator, all five measures)",
        "ranx (plain dicts, numba warmed, 2 threads)",
    )
    return bench_table("100,000", refs, ratios=True)


@figure("bench-metrics-10k")
def _bench_metrics_10k() -> str:
    return bench_table("10,000", ("pytrec_eval", "ranx"), ratios=False)


def startup_ms() -> tuple[float, float]:
    """(wall, CPU) ms that the unused plugin adds to ``pytest --collect-only``."""
    found = _match(r"^difference\s+([+-][\d.]+)\s+([+-][\d.]+)", bench("bench_startup.py"))
    return float(found.group(1)), float(found.group(2))


@figure("bench-startup")
def _bench_startup() -> str:
    return f"{startup_ms()[0]:.0f}"


@figure("bench-startup-detail")
def _bench_startup_detail() -> str:
    wall, cpu = startup_ms()
    return f"{wall:+.0f} ms wall\n({cpu:+.0f} ms CPU)"


@figure("bench-performance")
def _bench_performance() -> str:
    big, small = metrics_bench()["100,000"], metrics_bench()["10,000"]
    concurrency = bench("bench_concurrency.py")
    sync = _match(r"^sync, 1000 cases, concurrency 16\s+([\d.]+) s", concurrency).group(1)
    aio = _match(r"^async, 1000 cases, concurrency 16\s+([\d.]+) s", concurrency).group(1)
    judge = bench("judge.py")
    judged = _match(
        r"^judged\s+([\d,]+) verdicts at concurrency (\d+):\s+([\d.]+) s\s+\(([\d,]+) requests/s",
        judge,
    )
    cached = _match(r"^cached\s+([\d,]+) verdicts, fresh interpreter, offline:\s+([\d.]+) s", judge)

    def span(a: float, b: float, spec: str = ".2f") -> str:
        low, high = (format(v, spec) for v in sorted((a, b)))
        return low if low == high else f"{low}–{high}"

    def ratio(ref: str) -> str:
        return span(big["lists"][0] / big[ref][0], big["dicts"][0] / big[ref][0]) + "×"

    def count(text: str) -> str:
        return f"{int(text.replace(',', '')):,}"

    scale = bench("bench_scale.py")
    batch = bench("bench_batch.py")
    rows = [
        "| what | figure | script |",
        "|---|---|---|",
        *scale_rows(scale),
        *batch_rows(batch),
        f"| `evaluate_run`, 100,000 queries × 100 hits, P@10, recall@100, MRR@10, MAP@100, nDCG@10 | "
        f"**{big['lists'][0]:.2f} s** (ranked lists), {big['dicts'][0]:.2f} s (`{{doc: score}}` dicts), "
        f"+{span(big['lists'][1], big['dicts'][1], '.0f')} MB peak RSS | `benchmarks/bench_metrics.py` |",
        f"| the same with pytrec_eval (one evaluator, all five measures) | {big['pytrec_eval'][0]:.2f} s, "
        f"+{big['pytrec_eval'][1]:.0f} MB → ours **{ratio('pytrec_eval')}** | 〃 |",
        f"| the same with ranx (plain dicts, numba warmed) | {big['ranx'][0]:.2f} s, +{big['ranx'][1]:.0f} MB "
        f"→ ours **{ratio('ranx')}** | 〃 |",
        f"| 10,000 queries × 100 hits | ours {span(small['lists'][0], small['dicts'][0])} s, pytrec_eval "
        f"{small['pytrec_eval'][0]:.2f} s, ranx {small['ranx'][0]:.2f} s | 〃 |",
        f"| plugin installed but unused: `pytest --collect-only` vs `-p no:ragcheck` | "
        f"**{startup_ms()[0]:+.0f} ms** wall (median of 9); no numpy, pydantic, syrupy or litellm "
        f"imported | `benchmarks/bench_startup.py` |",
        f"| 1,000 cases, sync retriever sleeping 20 ms, default concurrency (16) | **{sync} s** "
        f"(async retriever: {aio} s) | `benchmarks/bench_concurrency.py` |",
        f"| LLM judge, {count(judged.group(1))} verdicts from a local OpenAI-compatible server, concurrency "
        f"{judged.group(2)} | {judged.group(3)} s ({judged.group(4)} requests/s, bound by litellm's ~7 ms "
        "per call) | `benchmarks/judge.py` |",
        f"| {count(cached.group(1))} cached verdicts, fresh interpreter, offline | **{cached.group(2)} s**, "
        f"litellm never imported | 〃 |",
    ]
    return table(rows)


def scale_rows(out: str) -> list[str]:
    """Rows from ``bench_scale.py``: per size, the compare run and the ``-n 2`` run."""
    rows = []
    run = (
        r"\s+wall\s+([\d.]+) s\s+cpu\s+([\d.]+) s\s+peak RSS\s+(\d+) MB"
        r"(?: \(exact (\d+) MB\))?(?:, PSS (\d+) MB)?(?:\s+reports: (.*))?"
    )
    for size, body in re.findall(r"^== ([\d,]+) cases ==\n((?:  .*\n?)*)", out, re.M):
        one = _match(r"^  compare \+ JSON report" + run, body)
        rows.append(
            f"| {size} cases, trivial retriever, default metrics: baseline compare + JSON report "
            f"(one pytest session) | **{one.group(1)} s wall**, {one.group(2)} s CPU, "
            f"{max(int(one.group(3)), int(one.group(4) or 0))} MB peak RSS; "
            f"JSON {one.group(6).removeprefix('json ')} | "
            "`benchmarks/bench_scale.py` |"
        )
        stages = _match(
            r"^    stages \(s\): load ([\d.]+)  retrieve ([\d.]+) \(retriever's own ([\d.]+)\)  "
            r"evaluate ([\d.]+) \(engine ([\d.]+)\)  compare ([\d.]+)  report record ([\d.]+)\n"
            r"    plugin overhead ([\d.]+) s = ([\d.]+)x",
            body,
        )
        load_s, retrieve_s, own_s, evaluate_s, engine_s, compare_s, record_s, over_s, ratio = (
            stages.groups()
        )
        rows.append(
            f"| its stages, wall | load {load_s} s, retrieve {retrieve_s} s (the retriever's own "
            f"calls {own_s} s), evaluate {evaluate_s} s (metric engine {engine_s} s), compare "
            f"{compare_s} s, report record {record_s} s: plugin overhead {over_s} s = "
            f"**{ratio}×** the engine's time | 〃 |"
        )
        two = re.search(r"^  -n 2 compare \+ JSON/HTML" + run + r"\n(.*\n)(.*\n)", body, re.M)
        if two is not None:
            peaks = _match(r"controller (\d+) MB, workers (\d+) \+ (\d+) MB", two.group(7))
            ratios = _match(
                r"RSS ([\d.]+)x \(exact single ([\d.]+)x\), PSS ([\d.]+)x; "
                r"the two workers' own peaks ([\d.]+)x",
                two.group(8),
            )
            rows.append(
                f"| the same, `-n 2`, two such tests (one per worker), JSON + HTML reports | "
                f"{two.group(1)} s wall, {two.group(2)} s CPU, {two.group(3)} MB peak RSS "
                f"(process tree; PSS {two.group(5)} MB): "
                f"{'–'.join(sorted({ratios.group(1), ratios.group(2)}))}× one process "
                f"(PSS {ratios.group(3)}×); own peaks: controller {peaks.group(1)} MB, "
                f"workers {peaks.group(2)} + {peaks.group(3)} MB ({ratios.group(4)}×); "
                f"{two.group(6)} | 〃 |"
            )
            opened = re.search(r"^    html opens in headless Chromium in ([\d.]+) s", body, re.M)
            if opened is not None:
                rows.append(
                    f"| that HTML report opened in headless Chromium (`--dump-dom`) | "
                    f"{opened.group(1)} s | 〃 |"
                )
        load = _match(r"^  golden load alone: ([\d.]+) s wall, ([\d.]+) s cpu", body)
        rows.append(f"| golden load, {size} JSONL cases, validated | {load.group(2)} s CPU | 〃 |")
    return rows


def batch_rows(out: str) -> list[str]:
    """The two rows of ``bench_batch.py``: batches of 256 against one query per call."""
    line = r"\s+wall\s+([\d.]+) s \(retrieval\s+([\d.]+) s\)"
    batched = _match(r"^batch_size=256" + line, out)
    single = _match(r"^one query per call \(concurrency=1\)" + line, out)
    cases = _match(r"^([\d,]+) cases; retriever", out).group(1)
    return [
        f"| {cases} cases, retriever with 5 ms per call + 0.05 ms per query: `batch_size=256` vs "
        f"one query per call (`concurrency=1`) | retrieval **{batched.group(2)} s** vs "
        f"{single.group(2)} s | `benchmarks/bench_batch.py` |"
    ]


@figure("bench-peers")
def _bench_peers() -> str:
    """The Markdown table ``bench_peers.py`` prints last: ``evaluate()`` end to end against
    the pytrec_eval loop, ranx and LlamaIndex's evaluator, with ``evaluate()``'s ratio."""
    out = bench("bench_peers.py")
    return table([line for line in out.splitlines() if line.startswith("|")])


BENCHMARK_FIGURES = frozenset(n for n in FIGURES if n.startswith("bench-"))


# ---- reading and writing the docs ----------------------------------------------------------


def stable(text: str) -> str:
    """``text`` without what differs between two identical runs: latencies, durations, the
    measured concurrency note, alignment (a wider latency widens its column)."""
    # The concurrency choice is measured from timings ("0.4 ms per call"), and its note wraps
    # wherever those numbers end: the whole note, continuation lines included, is one token.
    text = re.sub(
        r"note: concurrency auto[^\n]*(\n {6,}\S[^\n]*)*", "note: concurrency auto #", text
    )
    lines = []
    for line in text.strip().splitlines():
        if "latency_" in line:
            line = re.sub(r"\d+(\.\d+)?", "#", line)
        line = re.sub(r'time="[\d.]+"', 'time="#"', line)
        line = re.sub(r" in \d+(\.\d+)?s\b", " in #s", line)
        lines.append(" ".join(line.split()))
    return "\n".join(lines)


@dataclass(frozen=True)
class Found:
    path: str
    name: str
    quoted: str


def quoted_figures(files: Iterable[str] = FILES) -> list[Found]:
    """Every figure in ``files``, in order."""
    found = []
    for path in files:
        text = (ROOT / path).read_text(encoding="utf-8")
        for m in FIGURE.finditer(text):
            if m.group("name") not in FIGURES:
                raise LookupError(
                    f"{path}: unknown figure {m.group('name')!r}; known: {', '.join(FIGURES)}"
                )
            found.append(Found(path, m.group("name"), m.group("body")))
    return found


def drift(files: Iterable[str] = FILES, *, benchmarks: bool = False) -> list[str]:
    """A unified diff per figure whose quoted text no longer matches a fresh run."""
    problems = []
    for f in quoted_figures(files):
        if f.name in BENCHMARK_FIGURES and not benchmarks:
            continue
        fresh = FIGURES[f.name]()
        if stable(fresh) != stable(f.quoted):
            diff = difflib.unified_diff(
                f.quoted.strip().splitlines(),
                fresh.strip().splitlines(),
                f"{f.path} (figure {f.name})",
                "a fresh run",
                lineterm="",
            )
            problems.append("\n".join(diff))
    return problems


def rewrite(files: Iterable[str] = FILES, *, benchmarks: bool = False) -> list[str]:
    """Replace every figure with a fresh run's text; the files that changed."""
    changed = []
    for path in files:
        file = ROOT / path
        text = file.read_text(encoding="utf-8")

        def fresh(m: re.Match[str]) -> str:
            name = m.group("name")
            if name in BENCHMARK_FIGURES and not benchmarks:
                return m.group(0)
            return m.group(1) + FIGURES[name]() + m.group(4)

        new = FIGURE.sub(fresh, text)
        if new != text:
            file.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="report figures that differ, change nothing"
    )
    parser.add_argument(
        "--benchmarks", action="store_true", help="also run the benchmarks (minutes)"
    )
    args = parser.parse_args(argv)
    if args.check:
        problems = drift(benchmarks=args.benchmarks)
        for problem in problems:
            print(problem, end="\n\n")
        print(f"{len(problems)} figure(s) out of date" if problems else "all figures are current")
        return 1 if problems else 0
    changed = rewrite(benchmarks=args.benchmarks)
    print("rewrote " + ", ".join(changed) if changed else "all figures were current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
