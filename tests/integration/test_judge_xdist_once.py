"""Two pytest-xdist workers judging the same (query, chunk) pairs at the same moment pay for
each verdict once: the lock beside each cache entry makes the second worker read the first's
verdict instead of asking the judge again."""

from __future__ import annotations

import pytest
from harness import Suite
from judge_fixtures import JUDGE_MODEL, JUDGED_CHUNKS, JUDGED_GOLDEN
from judge_server import JudgeServer

#: Verdicts the two tests need, the same ones: 3 chunks of q1 and 2 of q2.
VERDICTS = 5

SOURCE = """
import os, time
from pathlib import Path

from pytest_ragcheck import ragcheck

FLOOR = dict(metrics=["llm_relevancy"], baseline=False, min_llm_relevancy_at_3=0.5)


def meet():
    # both workers start judging together: each waits for the other's mark (at most 60 s)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    Path(f"arrived-{worker}").touch()
    deadline = time.monotonic() + 60
    while len(list(Path().glob("arrived-*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)


@ragcheck("golden.jsonl", k=3, **FLOOR)
def test_first(ragcheck, retriever):
    meet()
    assert ragcheck(retriever)["llm_relevancy@3"] == (2 / 3 + 1 / 2) / 2


@ragcheck("golden.jsonl", k=3, **FLOOR)
def test_second(ragcheck, retriever):
    meet()
    assert ragcheck(retriever)["llm_relevancy@3"] == (2 / 3 + 1 / 2) / 2
"""


@pytest.mark.slow
def test_two_workers_on_the_same_pairs_pay_for_each_verdict_once(
    suite: Suite, judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    suite.make(SOURCE, cases=JUDGED_GOLDEN, rankings=JUDGED_CHUNKS)
    # slow answers: each worker is still judging while the other starts on the same pairs
    judge_server.inject("sleep", count=2 * VERDICTS, seconds=0.3)
    args = [
        f"--ragcheck-judge-model={JUDGE_MODEL}",
        f"--ragcheck-judge-api-base={judge_server.url}",
    ]
    result = suite.run("-n", "2", *args)
    result.assert_outcomes(passed=2)
    Suite.assert_clean(result)
    assert len(list(suite.path.glob("arrived-*"))) == 2  # the tests ran on both workers
    assert judge_server.count == VERDICTS
    cache = suite.path / ".ragcheck" / "judge"
    assert len(list(cache.rglob("*.json"))) == VERDICTS
    assert list(cache.rglob(".*.lock")) == []
    assert list(cache.rglob("*.tmp")) == []
    text = Suite.text(result)
    assert f"{VERDICTS} new" in text  # the cache line counts each entry once
