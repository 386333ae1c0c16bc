"""Repeated judge samples: the consistency tally, ``judge_disagreement``, and echoed keys.

Through the real litellm client and the local judge server: a ``[wobble]`` chunk gets a
different answer on every second request for the same question (its samples disagree), a
``[flip]`` chunk a wrong one, an ``[echo]`` chunk a reason that repeats the presented key.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from judge_server import JudgeServer

from pytest_ragcheck.common.redact import MARKER
from pytest_ragcheck.evaluation.settings import JudgeSettings
from pytest_ragcheck.judge import JudgeItem, compute_judge_metrics
from pytest_ragcheck.metrics.names import parse_metric

CHUNKS = ("alpha [g=2]", "noise [g=0]", "unsure [g=1] [wobble]", "beta [g=3] [flip]")
ITEM = JudgeItem("q", "what is alpha", None, CHUNKS)
SPECS = [parse_metric("llm_relevancy", 4), parse_metric("llm_ndcg", 4)]
KEY = "sk-echo-test-0123456789abcdef"


def test_vote_keeps_every_item_and_tallies_the_agreeing_ones(
    judge_server: JudgeServer, judge_settings: JudgeSettings
) -> None:
    settings = replace(judge_settings, samples=2)
    run = compute_judge_metrics([ITEM], SPECS, settings)
    # 4 chunks x 2 questions; the wobbling chunk disagrees on both
    assert (run.sampled, run.agreeing, run.abstained) == (8, 6, 0)
    assert run.summary()["samples"] == {"items": 8, "agreeing": 6, "abstained": 0}
    verdicts = run.details["q"]["llm_relevancy@4"]
    assert sorted(verdicts[2]["votes"]) == ["no", "yes"]
    assert verdicts[2]["verdict"] == "no"  # a tie needs a majority
    assert not any(v.get("abstained") for v in verdicts)
    # yes, no, no (tie), no (flipped): one of four
    assert run.values["q"]["llm_relevancy@4"] == 0.25


def test_abstain_leaves_out_exactly_the_disagreeing_items(
    judge_server: JudgeServer, judge_settings: JudgeSettings
) -> None:
    settings = replace(judge_settings, samples=2, disagreement="abstain")
    run = compute_judge_metrics([ITEM], SPECS, settings)
    assert (run.sampled, run.agreeing, run.abstained) == (8, 6, 2)
    for name in ("llm_relevancy@4", "llm_ndcg@4"):
        left_out = [d["rank"] for d in run.details["q"][name] if d.get("abstained")]
        assert left_out == [3], name
    assert run.values["q"]["llm_relevancy@4"] == pytest.approx(1 / 3)  # yes, no, no
    grades = [2.0, 0.0, 0.0]  # the flipped chunk's grade 3 becomes 0
    assert run.values["q"]["llm_ndcg@4"] == pytest.approx(1.0)  # best first already
    assert [d.get("grade") for d in run.details["q"]["llm_ndcg@4"] if not d.get("abstained")] == (
        grades
    )
    assert run.errors == {}


def test_a_case_whose_every_item_abstains_has_no_value_and_no_error(
    judge_server: JudgeServer, judge_settings: JudgeSettings
) -> None:
    settings = replace(judge_settings, samples=2, disagreement="abstain")
    item = JudgeItem("w", "what is alpha", None, ("only [g=2] [wobble]",))
    run = compute_judge_metrics([item], [parse_metric("llm_relevancy", 1)], settings)
    assert "llm_relevancy@1" not in run.values.get("w", {})
    assert run.errors == {}
    assert run.abstained == 1
    assert run.failure_summary() is None


def test_one_sample_tallies_nothing(judge_server: JudgeServer, judge_settings: JudgeSettings):
    run = compute_judge_metrics([ITEM], SPECS, judge_settings)
    assert (run.sampled, run.agreeing, run.abstained) == (0, 0, 0)
    assert "samples" not in run.summary()


def test_an_echoed_key_never_reaches_answers_errors_or_the_cache(
    judge_server: JudgeServer, judge_settings: JudgeSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    item = JudgeItem("e", "what is alpha", None, ("alpha [g=2] [echo]", "beta [g=1]"))
    run = compute_judge_metrics([item], [parse_metric("llm_relevancy", 2)], judge_settings)
    assert {r.headers["authorization"] for r in judge_server.requests} == {f"Bearer {KEY}"}
    reason = run.details["e"]["llm_relevancy@2"][0]["reason"]
    assert reason == f"grade marker 2 (key {MARKER})"
    assert judge_settings.cache_dir is not None
    for path in judge_settings.cache_dir.rglob("*.json"):
        assert KEY not in path.read_text(encoding="utf-8")

    judge_server.inject("echo_key", 5)  # a gateway that rejects the key and repeats it
    fresh = replace(judge_settings, cache_dir=None)
    run = compute_judge_metrics([item], [parse_metric("llm_relevancy", 2)], fresh)
    lines = [line for lines in run.errors.values() for line in lines]
    assert lines
    assert all(KEY not in line for line in lines)
    assert any(f"Incorrect API key provided: {MARKER}" in line for line in lines)
    assert KEY not in (run.failure_summary() or "")
