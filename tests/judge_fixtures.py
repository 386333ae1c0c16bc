"""Fixtures for the judge tests: a local OpenAI-compatible server and settings that use it.

Registered in ``tests/conftest.py`` (``from judge_fixtures import *``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from judge_server import JudgeServer

from pytest_ragcheck.evaluation.settings import JudgeSettings
from pytest_ragcheck.judge.client import RetryPolicy

__all__ = [
    "JUDGE_MODEL",
    "FakeSleep",
    "fake_sleep",
    "fast_retries",
    "judge_server",
    "judge_server_session",
    "judge_settings",
]

#: litellm routes ``openai/<name>`` to the OpenAI-compatible ``api_base``.
JUDGE_MODEL = "openai/judge-test"

#: Two cases whose chunks the local judge grades from their ``[g=N]`` tags (judge-cache
#: tests: ``CHUNKS`` needs five verdicts; ``NARROWER`` drops the chunk "alpha letters").
JUDGED_GOLDEN = [
    {"id": "q1", "query": "what is alpha", "expected_ids": ["a"]},
    {"id": "q2", "query": "what is beta", "expected_ids": ["c"]},
]
JUDGED_CHUNKS = {
    "what is alpha": [
        {"id": "a", "text": "alpha [g=2]"},
        {"id": "x", "text": "noise [g=0]"},
        {"id": "b", "text": "alpha letters [g=1]"},
    ],
    "what is beta": [{"id": "x", "text": "noise [g=0]"}, {"id": "c", "text": "beta [g=3]"}],
}
NARROWER_CHUNKS = {**JUDGED_CHUNKS, "what is alpha": JUDGED_CHUNKS["what is alpha"][:2]}


@pytest.fixture(scope="session")
def judge_server_session() -> Iterator[JudgeServer]:
    with JudgeServer() as server:
        yield server


@pytest.fixture
def judge_server(judge_server_session: JudgeServer) -> Iterator[JudgeServer]:
    """The session's judge server with no pending faults and an empty request log."""
    judge_server_session.clear()
    yield judge_server_session
    judge_server_session.clear()


@pytest.fixture
def judge_settings(judge_server: JudgeServer, tmp_path: Path) -> JudgeSettings:
    """Settings for the local judge with a fresh cache folder."""
    return JudgeSettings(
        model=JUDGE_MODEL,
        api_base=judge_server.url,
        cache_dir=tmp_path / "judge-cache",
        timeout=10.0,
    )


class FakeSleep:
    """Records the delays the client asks for instead of sleeping them."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await asyncio.sleep(0)


@pytest.fixture
def fake_sleep() -> FakeSleep:
    return FakeSleep()


@pytest.fixture
def fast_retries() -> RetryPolicy:
    """A retry policy with millisecond backoff (the server is local)."""
    return RetryPolicy(attempts=4, base_delay=0.001, max_delay=0.01)
