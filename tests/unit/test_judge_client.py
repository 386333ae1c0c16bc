"""Judge calls under faults injected into the local server: retries, re-asks, budget, offline."""

from __future__ import annotations

from dataclasses import replace

import pytest
from judge_fixtures import FakeSleep
from judge_server import JudgeServer

from pytest_ragcheck.evaluation.settings import JudgeSettings
from pytest_ragcheck.judge import JudgeItem, JudgeRun, compute_judge_metrics
from pytest_ragcheck.judge.client import Budget, RetryPolicy, retry_after_seconds
from pytest_ragcheck.metrics.names import parse_metric

ONE = [
    JudgeItem(
        "q1", "what is alpha", "F1 alpha is first. F2 alpha is a letter.", ("alpha [g=2] F1",)
    )
]
RELEVANCY = [parse_metric("llm_relevancy", 1)]


def _judge(
    settings: JudgeSettings,
    policy: RetryPolicy,
    sleep: FakeSleep,
    items: list[JudgeItem] = ONE,
    specs: list = RELEVANCY,  # type: ignore[type-arg]
) -> JudgeRun:
    return compute_judge_metrics(items, specs, settings, retry_policy=policy, sleep=sleep)


def test_429_is_retried_after_the_retry_after_delay(
    judge_server: JudgeServer,
    judge_settings: JudgeSettings,
    fast_retries: RetryPolicy,
    fake_sleep: FakeSleep,
) -> None:
    judge_server.inject("429", retry_after=7)
    run = _judge(judge_settings, fast_retries, fake_sleep)
    assert run.values["q1"]["llm_relevancy@1"] == 1.0
    assert judge_server.count == 2
    assert [r.fault for r in judge_server.requests] == ["429", None]
    assert fake_sleep.delays == [7.0]
    assert (run.calls, run.retries) == (2, 1)


def test_a_huge_retry_after_is_capped(
    judge_server: JudgeServer, judge_settings: JudgeSettings, fake_sleep: FakeSleep
) -> None:
    judge_server.inject("429", retry_after=86400)
    run = _judge(judge_settings, RetryPolicy(max_retry_after=5.0), fake_sleep)
    assert run.missing == 0
    assert fake_sleep.delays == [5.0]


@pytest.mark.parametrize("fault", ["500", "503"])
def test_server_errors_are_retried_with_jittered_exponential_backoff(
    judge_server: JudgeServer,
    judge_settings: JudgeSettings,
    fake_sleep: FakeSleep,
    fault: str,
) -> None:
    judge_server.inject(fault, count=2)
    policy = RetryPolicy(attempts=5, base_delay=1.0, max_delay=30.0)
    run = _judge(judge_settings, policy, fake_sleep)
    assert run.values["q1"]["llm_relevancy@1"] == 1.0
    assert judge_server.count == 3
    assert len(fake_sleep.delays) == 2
    assert 0.5 <= fake_sleep.delays[0] <= 1.0  # base 1 s, equal jitter
    assert 1.0 <= fake_sleep.delays[1] <= 2.0


def test_a_slow_answer_past_the_timeout_is_retried(
    judge_server: JudgeServer,
    judge_settings: JudgeSettings,
    fast_retries: RetryPolicy,
    fake_sleep: FakeSleep,
) -> None:
    judge_server.inject("sleep", seconds=2.0)
    run = _judge(replace(judge_settings, timeout=0.3), fast_retries, fake_sleep)
    assert run.values["q1"]["llm_relevancy@1"] == 1.0
    assert judge_server.count == 2
    assert run.retries == 1


def test_persistent_server_errors_give_up_and_report(
    judge_server: JudgeServer, judge_settings: JudgeSettings, fake_sleep: FakeSleep
) -> None:
    judge_server.inject("500", count=100)
    run = _judge(judge_settings, RetryPolicy(attempts=3, base_delay=0.001), fake_sleep)
    assert "q1" not in run.values
    assert judge_server.count == 3
    assert run.missing == 1
    (line,) = run.errors["q1"]
    assert "llm_relevancy@1: chunk 1: judge call failed after 3 attempts" in line
    summary = run.failure_summary()
    assert summary is not None
    assert "Judge errors in 1 case(s)" in summary


def test_prose_is_reasked_once(
    judge_server: JudgeServer,
    judge_settings: JudgeSettings,
    fast_retries: RetryPolicy,
    fake_sleep: FakeSleep,
) -> None:
    judge_server.inject("prose")
    run = _judge(judge_settings, fast_retries, fake_sleep)
    assert run.values["q1"]["llm_relevancy@1"] == 1.0
    assert judge_server.count == 2
    reask = judge_server.requests[1].body["messages"]
    assert [m["role"] for m in reask] == ["system", "user", "assistant", "user"]
    assert "I would say yes" in reask[2]["content"]
    assert "not JSON" in reask[3]["content"]
    assert fake_sleep.delays == []


@pytest.mark.parametrize(
    ("fault", "metric", "message"),
    [
        ("prose", "llm_relevancy", "not JSON"),
        ("wrong_shape", "llm_ndcg", "wrong shape (grade: Field required"),
        ("wrong_length", "context_recall", "claims list is empty"),
    ],
)
def test_a_second_malformed_answer_is_a_judge_error(
    judge_server: JudgeServer,
    judge_settings: JudgeSettings,
    fast_retries: RetryPolicy,
    fake_sleep: FakeSleep,
    fault: str,
    metric: str,
    message: str,
) -> None:
    judge_server.inject(fault, count=2)
    spec = parse_metric(metric, 1)
    run = _judge(judge_settings, fast_retries, fake_sleep, specs=[spec])
    assert judge_server.count == 2
    assert spec.name not in run.values.get("q1", {})
    (line,) = run.errors["q1"]
    assert "malformed judge answer after one re-ask" in line
    assert message in line
    assert run.missing == 1
    assert judge_settings.cache_dir is not None
    assert list(judge_settings.cache_dir.rglob("*.json")) == []  # nothing bad is cached
    # the next run asks again and succeeds
    run = _judge(judge_settings, fast_retries, fake_sleep, specs=[spec])
    assert spec.name in run.values["q1"]


def test_an_authentication_error_stops_all_calls(
    judge_server: JudgeServer,
    judge_settings: JudgeSettings,
    fast_retries: RetryPolicy,
    fake_sleep: FakeSleep,
) -> None:
    judge_server.inject("401")
    items = [JudgeItem("q1", "what is alpha", None, tuple(f"c{i} [g=1]" for i in range(5)))]
    specs = [parse_metric("llm_relevancy", 5)]
    run = _judge(replace(judge_settings, concurrency=1), fast_retries, fake_sleep, items, specs)
    assert judge_server.count == 1
    assert run.missing == 5
    assert all("the judge cannot be used" in line for line in run.errors["q1"])
    assert any("OPENAI_API_KEY" in line for line in run.errors["q1"])


def test_the_budget_is_never_exceeded(
    judge_server: JudgeServer,
    judge_settings: JudgeSettings,
    fast_retries: RetryPolicy,
    fake_sleep: FakeSleep,
) -> None:
    items = [JudgeItem("q1", "what is alpha", None, tuple(f"c{i} [g=1]" for i in range(6)))]
    specs = [parse_metric("llm_relevancy", 6)]
    run = _judge(replace(judge_settings, max_calls=3), fast_retries, fake_sleep, items, specs)
    assert judge_server.count == 3
    assert (run.calls, run.missing, run.budget_missing) == (3, 3, 3)
    assert "q1" not in run.values
    summary = run.failure_summary()
    assert summary is not None
    assert "The judge budget ran out (judge_max_calls=3, 3 call(s) made)" in summary
    assert "3 verdict(s) are missing" in summary
    # the verdicts already paid for are cached: the next run with budget spends only on the rest
    judge_server.clear()
    run = _judge(replace(judge_settings, max_calls=3), fast_retries, fake_sleep, items, specs)
    assert judge_server.count == 3
    assert run.values["q1"]["llm_relevancy@6"] == 1.0


def test_retries_count_against_the_budget(
    judge_server: JudgeServer,
    judge_settings: JudgeSettings,
    fast_retries: RetryPolicy,
    fake_sleep: FakeSleep,
) -> None:
    judge_server.inject("500", count=5)
    run = _judge(replace(judge_settings, max_calls=2), fast_retries, fake_sleep)
    assert judge_server.count == 2
    assert run.budget_missing == 1
    assert "budget" in run.errors["q1"][0]


def test_a_zero_budget_makes_no_call(
    judge_server: JudgeServer,
    judge_settings: JudgeSettings,
    fast_retries: RetryPolicy,
    fake_sleep: FakeSleep,
) -> None:
    run = _judge(replace(judge_settings, max_calls=0), fast_retries, fake_sleep)
    assert judge_server.count == 0
    assert run.budget_missing == 1


def test_offline_miss_names_the_missing_pairs_and_calls_nothing(
    judge_server: JudgeServer, judge_settings: JudgeSettings
) -> None:
    items = [
        JudgeItem("q1", "what is alpha", None, ("alpha [g=1]", "beta [g=0]")),
        JudgeItem("q2", "what is beta", None, ("beta [g=2]",)),
    ]
    specs = [parse_metric("llm_relevancy", 2), parse_metric("llm_precision", 2)]
    # q2 is recorded; q1 is not
    compute_judge_metrics(items[1:], specs, judge_settings)
    judge_server.clear()
    run = compute_judge_metrics(items, specs, replace(judge_settings, offline=True))
    assert judge_server.count == 0
    assert run.values == {"q2": {"llm_relevancy@2": 1.0, "llm_precision@2": 1.0}}
    assert run.missing == 2
    assert run.offline_misses == [("q1", "chunk 1 (relevance)"), ("q1", "chunk 2 (relevance)")]
    summary = run.failure_summary()
    assert summary is not None
    assert "2 judge verdict(s) are not in" in summary
    assert str(judge_settings.cache_dir) in summary
    assert "case 'q1' chunk 1 (relevance), case 'q1' chunk 2 (relevance)" in summary
    assert "where a judge API key is available" in summary
    assert "commit" in summary
    assert any("offline mode" in line for line in run.errors["q1"])


def test_budget_counts_and_stops() -> None:
    budget = Budget(2)
    assert [budget.take(), budget.take(), budget.take()] == [True, True, False]
    assert budget.exhausted
    unlimited = Budget(None)
    assert all(unlimited.take() for _ in range(1000))


class _Headers(dict[str, str]):
    pass


class _Error(Exception):
    def __init__(self, headers: dict[str, str]) -> None:
        super().__init__("rate limited")
        self.litellm_response_headers = _Headers(headers)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"}, 10.0),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after_parsing(headers: dict[str, str], expected: float | None) -> None:
    now = 1445412480.0  # 07:28:00 GMT on that day
    assert retry_after_seconds(_Error(headers), now=now) == expected
