"""A call that times out counts in the latency metrics at its timeout (a lower bound of its
time), so a latency ceiling cannot pass a run whose slow calls were abandoned."""

from __future__ import annotations

import threading

import pytest

from pytest_ragcheck import evaluate

TEST = """
import threading
from conftest import lookup
from pytest_ragcheck import ragcheck
HANG = threading.Event()

def hangs_on_beta(query):
    if "beta" in query:
        HANG.wait(3)  # longer than the timeout; the daemon thread is then abandoned
    return lookup(query)

@ragcheck("golden.jsonl", k=2, baseline=False, timeout=0.3, on_error="zero",
          metrics=["mrr", "latency_max_ms", "latency_p50_ms"]{extra})
def test_rag(ragcheck):
    result = ragcheck(hangs_on_beta)
    print("LATENCY", result["latency_max_ms"], result["latency_p50_ms"])
    print("CASE", [c.latency_ms for c in result.cases if c.status == "error"])
"""


def test_timed_out_call_counts_at_its_timeout(suite):
    suite.make(TEST.format(extra=""))
    result = suite.run("-s")
    result.assert_outcomes(passed=1)
    text = suite.text(result)
    assert "LATENCY 300.0 " in text  # the max is the abandoned call, at its timeout
    assert "CASE [300.0]" in text
    # the median stays that of the calls that finished (3 fast of 4)
    median = float(text.split("LATENCY 300.0 ")[1].split()[0])
    assert median < 300.0
    assert "1 call(s) timed out: the latency metrics count each at its timeout" in text


def test_latency_ceiling_fails_when_a_call_times_out(suite):
    suite.make(TEST.format(extra=", max_latency_max_ms=250"))
    result = suite.run()
    result.assert_outcomes(failed=1)
    text = suite.text(result)
    assert "latency_max_ms" in text
    assert "300.0" in text


def test_timed_out_batch_shares_its_timeout() -> None:
    release = threading.Event()

    def batched(queries: list[str]) -> list[list[str]]:
        if "q-2" in queries:
            release.wait(5)
        return [[q.replace("q", "d")] for q in queries]

    cases = [{"id": f"c{i}", "query": f"q-{i}", "expected_ids": [f"d-{i}"]} for i in range(4)]
    try:
        result = evaluate(
            batched,
            cases,
            k=1,
            metrics=["mrr", "latency_max_ms"],
            batch_size=2,
            timeout=0.2,
            on_error="zero",
        )
    finally:
        release.set()
    late = [c for c in result.cases if c.status == "error"]
    assert [c.id for c in late] == ["c2", "c3"]
    # each query of the abandoned batch carries its share of the timeout, as finished ones do
    assert [c.latency_ms for c in late] == [100.0, 100.0]
    assert result["latency_max_ms"] == pytest.approx(100.0)


def test_every_call_timed_out_has_no_latency() -> None:
    release = threading.Event()

    def hangs(query: str) -> list[str]:
        release.wait(5)
        return []

    try:
        result = evaluate(
            hangs,
            [{"id": "c", "query": "q", "expected_ids": ["d"]}],
            metrics=["mrr", "latency_max_ms"],
            timeout=0.1,
            on_error="zero",
        )
    finally:
        release.set()
    assert "latency_max_ms" not in result.metrics  # no call succeeded: no latency at all


def test_the_note_comes_with_a_latency_bound_alone(suite):
    """Latency is reported with every run: the note does not wait for latency metrics to be
    named in ``metrics=`` (a ``max_latency_…`` bound adds none there)."""
    suite.make(
        TEST.format(extra="")
        .replace('metrics=["mrr", "latency_max_ms", "latency_p50_ms"]', 'metrics=["mrr"]')
        .replace('on_error="zero",', 'on_error="zero", max_latency_p95_ms=60000,')
    )
    result = suite.run("-s")
    result.assert_outcomes(passed=1)
    text = " ".join(suite.text(result).split())
    assert "1 call(s) timed out: the latency metrics count each at its timeout" in text
