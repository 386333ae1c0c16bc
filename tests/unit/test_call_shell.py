"""One call shell for single queries and batches: the same errors, latencies and tracebacks
either way."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from pytest_ragcheck.batches import run_batches
from pytest_ragcheck.runner import RetrievalOutcome, RunOptions, run_cases

QUERIES = [f"q{i}" for i in range(40)]


# ----------------------------------------------------------------- one shell, one behaviour


def _boom(query: object) -> list[str]:
    raise ValueError("index offline")


async def _async_boom(query: object) -> list[str]:
    await asyncio.sleep(0.01)
    raise ValueError("index offline")


@pytest.mark.parametrize("retriever", [_boom, _async_boom], ids=["sync", "async"])
@pytest.mark.parametrize("batch", [False, True], ids=["single", "batch"])
def test_a_failed_call_has_its_latency_and_a_traceback_from_the_users_code(
    retriever: Callable[[object], object], batch: bool
) -> None:
    options = RunOptions(k=2, concurrency=1, timeout=None)
    if batch:
        outcomes: list[RetrievalOutcome] = run_batches(retriever, QUERIES[:4], options, 2).outcomes
    else:
        outcomes = run_cases(retriever, QUERIES[:4], options).outcomes
    assert all(o.error and o.error.startswith("ValueError: index offline") for o in outcomes)
    assert all(o.latency_ms is not None and o.latency_ms >= 0 for o in outcomes), outcomes
    traceback = outcomes[0].traceback
    assert traceback is not None
    assert "boom" in traceback
    assert "pytest_ragcheck" not in traceback, traceback  # starts at the user's frame
