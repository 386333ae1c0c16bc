"""Judge throughput and the cost of a cached run (SPEC §7: < 1 s for 10,000 cached verdicts).

Run: ``python benchmarks/judge.py`` (needs the ``llm`` extra). It starts the local
OpenAI-compatible test server (``tests/judge_server.py``) in its own process, so that it does
not compete with the client for the GIL, and measures:

1. 2,000 verdicts judged through litellm at ``judge_concurrency=32``: wall time, requests/s;
2. the same run again, served from the verdict cache;
3. 10,000 cached verdicts in a fresh interpreter, offline, with a check that litellm was not
   imported (the cache is filled directly with the server's deterministic answers, which is
   what a recording run would store).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from judge_server import expected_answer  # noqa: E402

from pytest_ragcheck.evaluation.settings import JudgeSettings  # noqa: E402
from pytest_ragcheck.judge import JudgeItem, compute_judge_metrics  # noqa: E402
from pytest_ragcheck.judge.cache import VerdictCache  # noqa: E402
from pytest_ragcheck.judge.planner import Planner  # noqa: E402
from pytest_ragcheck.metrics.names import MetricSpec  # noqa: E402

MODEL = "openai/judge-bench"
CHUNKS_PER_QUERY = 10
SPECS = [
    MetricSpec("llm_relevancy", CHUNKS_PER_QUERY),
    MetricSpec("llm_precision", CHUNKS_PER_QUERY),
]


def check(condition: bool, message: str) -> None:
    if not condition:
        raise SystemExit(f"benchmark check failed: {message}")


def make_items(verdicts: int) -> list[JudgeItem]:
    queries = verdicts // CHUNKS_PER_QUERY
    return [
        JudgeItem(
            case_id=f"q{q}",
            query=f"what is topic {q}?",
            reference_answer=None,
            chunks=tuple(
                f"passage {c} about topic {q} [g={(q + c) % 4}]" for c in range(CHUNKS_PER_QUERY)
            ),
        )
        for q in range(queries)
    ]


def fill_cache(items: list[JudgeItem], settings: JudgeSettings) -> int:
    """Write the answers a recording run would store, without calling anything."""
    assert settings.cache_dir is not None
    cache = VerdictCache(settings.cache_dir)
    planner = Planner(settings)
    for item in items:
        for spec in SPECS:
            planner.plan(item, spec)
    for job in planner.jobs.values():
        answer = expected_answer(
            job.prompt.response_format["json_schema"]["name"], job.messages[1]["content"]
        )
        cache.put(
            job.prompt,
            job.key,
            model=MODEL,
            api_base=settings.api_base,
            sampling=job.sampling,
            inputs=job.inputs,
            answer=answer,
        )
    return len(planner.jobs)


CACHED_SCRIPT = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, {benchmarks!r})
from judge import MODEL, SPECS, make_items
from pytest_ragcheck.evaluation.settings import JudgeSettings
from pytest_ragcheck.judge import compute_judge_metrics

items = make_items({verdicts})
settings = JudgeSettings(model=MODEL, api_base={api_base!r}, cache_dir=Path({cache!r}), offline=True)
start = time.perf_counter()
run = compute_judge_metrics(items, SPECS, settings)
elapsed = time.perf_counter() - start
print(json.dumps({{"seconds": elapsed, "cached": run.cached, "missing": run.missing,
                  "litellm_imported": "litellm" in sys.modules}}))
"""


def cached_run_in_fresh_interpreter(verdicts: int, settings: JudgeSettings) -> dict[str, object]:
    script = CACHED_SCRIPT.format(
        benchmarks=str(ROOT / "benchmarks"),
        verdicts=verdicts,
        api_base=settings.api_base,
        cache=str(settings.cache_dir),
    )
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verdicts", type=int, default=2000)
    parser.add_argument("--cached-verdicts", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()

    server = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "judge_server.py")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        run_benchmark(url, args)
    finally:
        server.terminate()
        server.wait()


def run_benchmark(url: str, args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = JudgeSettings(
            model=MODEL,
            api_base=url,
            cache_dir=Path(tmp) / "judge",
            concurrency=args.concurrency,
        )
        items = make_items(args.verdicts)

        start = time.perf_counter()
        from pytest_ragcheck.judge.client import import_litellm

        import_litellm()
        import_seconds = time.perf_counter() - start

        start = time.perf_counter()
        run = compute_judge_metrics(items, SPECS, settings)
        judged = time.perf_counter() - start
        check(run.missing == 0, str(run.failure_summary()))
        check(run.calls == args.verdicts, f"{run.calls} calls for {args.verdicts} verdicts")
        print(
            f"judged   {run.calls:>6} verdicts at concurrency {args.concurrency}: "
            f"{judged:6.2f} s  ({run.calls / judged:,.0f} requests/s; litellm import "
            f"{import_seconds:.2f} s not included)"
        )

        start = time.perf_counter()
        again = compute_judge_metrics(items, SPECS, settings)
        cached = time.perf_counter() - start
        check(again.calls == 0 and again.cached == args.verdicts, f"not all cached: {again}")
        check(again.values == run.values, "cached values differ")
        print(f"cached   {again.cached:>6} verdicts, same process:           {cached:6.2f} s")

        big = make_items(args.cached_verdicts)
        big_settings = JudgeSettings(model=MODEL, api_base=url, cache_dir=Path(tmp) / "judge-big")
        written = fill_cache(big, big_settings)
        fresh = cached_run_in_fresh_interpreter(args.cached_verdicts, big_settings)
        check(fresh["cached"] == written and fresh["missing"] == 0, f"cache misses: {fresh}")
        print(
            f"cached   {written:>6} verdicts, fresh interpreter, offline: "
            f"{fresh['seconds']:6.2f} s  (litellm imported: {fresh['litellm_imported']})"
        )


if __name__ == "__main__":
    main()
