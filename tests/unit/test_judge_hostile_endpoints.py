"""Endpoints that misbehave in ways that cost time, money or disk: trickled answers, failures
that eat the budget, runaway reasons, replies nested too deeply. Real litellm, local server."""

from __future__ import annotations

import json
import time
from dataclasses import replace

import pytest
from judge_fixtures import FakeSleep
from judge_server import JudgeServer

from pytest_ragcheck.common.display import TEXT_LIMIT
from pytest_ragcheck.evaluation.settings import JudgeSettings
from pytest_ragcheck.judge import JudgeItem, JudgeRun, compute_judge_metrics
from pytest_ragcheck.judge.client import RetryPolicy
from pytest_ragcheck.judge.schemas import MalformedAnswer, parse_answer
from pytest_ragcheck.metrics.names import parse_metric

ONE = [JudgeItem("q1", "what is alpha", None, ("alpha [g=2] F1",))]
RELEVANCY = [parse_metric("llm_relevancy", 1)]


def _judge(settings: JudgeSettings, policy: RetryPolicy, sleep: FakeSleep) -> JudgeRun:
    return compute_judge_metrics(ONE, RELEVANCY, settings, retry_policy=policy, sleep=sleep)


@pytest.fixture
def warm_litellm(judge_server: JudgeServer, judge_settings: JudgeSettings) -> None:
    """One call first: litellm's first request in a process sets itself up (about 0.5 s on a
    busy machine), which a short judge_timeout must not be about."""
    item = JudgeItem("warm", "warm up", None, ("warm [g=1]",))
    compute_judge_metrics([item], RELEVANCY, replace(judge_settings, cache_dir=None))
    judge_server.clear()


@pytest.mark.usefixtures("warm_litellm")
def test_a_trickled_answer_is_cut_at_judge_timeout_and_retried(
    judge_server: JudgeServer,
    judge_settings: JudgeSettings,
    fast_retries: RetryPolicy,
    fake_sleep: FakeSleep,
) -> None:
    """Each byte arrives well within the timeout; the whole answer would take ~15 s (the
    server gives up after 6 s): judge_timeout=1 bounds the request, which is retried."""
    judge_server.inject("trickle", interval=0.05, seconds=6.0)
    started = time.monotonic()
    run = _judge(replace(judge_settings, timeout=1.0), fast_retries, fake_sleep)
    elapsed = time.monotonic() - started
    assert run.values["q1"]["llm_relevancy@1"] == 1.0
    assert [r.fault for r in judge_server.requests] == ["trickle", None]
    assert (run.calls, run.retries) == (2, 1)
    assert elapsed < 4.0, elapsed


@pytest.mark.usefixtures("warm_litellm")
def test_an_endless_trickle_fails_as_a_timeout_after_the_attempts(
    judge_server: JudgeServer, judge_settings: JudgeSettings, fake_sleep: FakeSleep
) -> None:
    judge_server.inject("trickle", count=5, interval=0.05, seconds=6.0)
    started = time.monotonic()
    policy = RetryPolicy(attempts=2, base_delay=0.001)
    run = _judge(replace(judge_settings, timeout=0.5, max_calls=2), policy, fake_sleep)
    assert time.monotonic() - started < 3.5
    assert judge_server.count == 2
    (line,) = run.errors["q1"]
    assert "judge call failed after 2 attempts: no complete answer within judge_timeout=0.5 s" in (
        line
    )


def test_a_budget_spent_on_failures_names_them(
    judge_server: JudgeServer, judge_settings: JudgeSettings, fake_sleep: FakeSleep
) -> None:
    judge_server.inject("500", count=2)
    judge_server.inject("429", retry_after=0)
    judge_server.inject("html")  # a proxy's error page with status 200
    judge_server.inject("truncated")  # a JSON body cut short
    policy = RetryPolicy(attempts=10, base_delay=0.001)
    run = _judge(replace(judge_settings, max_calls=5), policy, fake_sleep)
    assert judge_server.count == 5
    assert run.call_failures == {"HTTP 500": 2, "HTTP 429": 1, "reply not JSON": 2}
    summary = run.failure_summary()
    assert summary is not None
    assert (
        "The judge budget ran out (judge_max_calls=5, 5 call(s) made, 5 of them failed: "
        "2× HTTP 500, 2× reply not JSON, 1× HTTP 429): 1 verdict(s) are missing; check the "
        "judge endpoint (its failures used the budget), then raise judge_max_calls"
    ) in summary
    (line,) = run.errors["q1"]
    assert "judge budget exhausted (judge_max_calls=5; 5 call(s) failed: 2× HTTP 500" in line


def test_malformed_replies_count_as_failures_too(
    judge_server: JudgeServer,
    judge_settings: JudgeSettings,
    fast_retries: RetryPolicy,
    fake_sleep: FakeSleep,
) -> None:
    items = [JudgeItem("q1", "what is alpha", None, ("a [g=1]", "b [g=1]"))]
    judge_server.inject("prose", count=2)  # the first chunk: a reply, a re-ask, both prose
    settings = replace(judge_settings, max_calls=2, concurrency=1)
    run = compute_judge_metrics(
        items, [parse_metric("llm_relevancy", 2)], settings, retry_policy=fast_retries,
        sleep=fake_sleep,
    )  # fmt: skip
    assert run.call_failures == {"reply not JSON": 2}
    summary = run.failure_summary()
    assert summary is not None
    assert "2 call(s) made, 2 of them failed: 2× reply not JSON" in summary


def test_a_runaway_reason_is_cut_where_the_reports_cut_it(
    judge_server: JudgeServer,
    judge_settings: JudgeSettings,
    fast_retries: RetryPolicy,
    fake_sleep: FakeSleep,
) -> None:
    reason = "because " * 400_000  # 3.2 MB
    judge_server.inject("answer", content={"verdict": "yes", "reason": reason})
    run = _judge(judge_settings, fast_retries, fake_sleep)
    (detail,) = run.details["q1"]["llm_relevancy@1"]
    assert detail["reason"] == reason[: TEXT_LIMIT - 1] + "…"
    assert judge_settings.cache_dir is not None
    (entry,) = judge_settings.cache_dir.rglob("*.json")
    assert entry.stat().st_size < 2_000
    assert json.loads(entry.read_text(encoding="utf-8"))["answer"]["reason"] == detail["reason"]
    # the cached run reads the same cut reason
    judge_server.clear()
    again = _judge(judge_settings, fast_retries, fake_sleep)
    assert judge_server.count == 0
    assert again.details["q1"]["llm_relevancy@1"][0]["reason"] == detail["reason"]


def test_a_reply_nested_too_deeply_is_malformed_not_a_crash() -> None:
    deep = "[" * 50_000 + "]" * 50_000
    with pytest.raises(MalformedAnswer, match="nested too deeply"):
        parse_answer("verdict", deep)
