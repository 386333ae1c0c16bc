"""Judge metrics end to end through the real litellm client and the local judge server.

The server's verdicts follow markers in the chunk texts (see ``tests/judge_server.py``), so
every expected value below is computed by hand from the markers.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from judge_server import JudgeServer

from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.evaluation.settings import JudgeSettings
from pytest_ragcheck.judge import JudgeItem, JudgeRun, check_judge_available, compute_judge_metrics
from pytest_ragcheck.judge import client as judge_client
from pytest_ragcheck.metrics.names import MetricSpec, parse_metric

REFERENCE = "F1 alpha is first. F2 alpha is a letter. F3 alpha is greek."
Q1_CHUNKS = (
    "alpha letters [g=1] F2",
    "unrelated [g=0]",
    "alpha intro [g=3] [s=0.9] F1",
    "more alpha [g=2] F3",
    "trailing [g=0]",
)
ITEMS = (
    JudgeItem("q1", "what is alpha", REFERENCE, Q1_CHUNKS),
    JudgeItem("q2", "what is beta", None, ("beta [g=2]", "gamma [g=0]")),
    JudgeItem("q3", "what is gamma", "F9 gamma is third.", ()),
    # same query as q1, chunks that q1 also retrieved: only its context_recall call is new
    JudgeItem("q4", "what is alpha", REFERENCE, ("unrelated [g=0]", "alpha letters [g=1] F2")),
)
NAMES = (
    "llm_relevancy",
    "llm_precision",
    "llm_ndcg",
    "context_precision",
    "context_recall",
    "rerank_relevancy",
    "rerank_relevancy_max",
)
SPECS = [*(parse_metric(n, 3) for n in NAMES), MetricSpec("llm_relevancy", None)]
#: Distinct calls for ITEMS and SPECS: relevance 5 (q1, all k) + 2 (q2); grade 3 + 2;
#: usefulness 3 (q1; q4's chunks are q1's); score 3 + 2; claims q1 + q4.
CALLS = 7 + 5 + 3 + 5 + 2


def _ndcg(grades: list[int]) -> float:
    def dcg(gs: list[int]) -> float:
        return sum(g / math.log2(i + 1) for i, g in enumerate(gs, 1))

    return dcg(grades) / dcg(sorted(grades, reverse=True))


EXPECTED: dict[str, dict[str, float]] = {
    "q1": {
        # top 3 grades [1, 0, 3]: relevant [y, n, y], useful [n, n, y]
        "llm_relevancy@3": 2 / 3,
        "llm_precision@3": (1 / 1 + 2 / 3) / 2,
        "llm_ndcg@3": _ndcg([1, 0, 3]),
        "context_precision@3": (1 / 3) / 1,
        "context_recall@3": 2 / 3,  # F1 and F2 are in the top 3, F3 is not
        "rerank_relevancy@3": (1 / 3 + 0 + 0.9) / 3,
        "rerank_relevancy_max@3": 0.9,
        "llm_relevancy@all": 3 / 5,
    },
    "q2": {
        "llm_relevancy@3": 1 / 2,
        "llm_precision@3": 1.0,
        "llm_ndcg@3": 1.0,
        "rerank_relevancy@3": (2 / 3 + 0) / 2,
        "rerank_relevancy_max@3": 2 / 3,
        "llm_relevancy@all": 1 / 2,
    },
    "q3": {name: 0.0 for name in [s.name for s in SPECS]},  # nothing retrieved
    "q4": {
        "llm_relevancy@3": 1 / 2,
        "llm_precision@3": 1 / 2,  # yes at rank 2: P@2 = 1/2
        "llm_ndcg@3": _ndcg([0, 1]),
        "context_precision@3": 0.0,
        "context_recall@3": 1 / 3,
        "rerank_relevancy@3": (0 + 1 / 3) / 2,
        "rerank_relevancy_max@3": 1 / 3,
        "llm_relevancy@all": 1 / 2,
    },
}


def _assert_values(run: JudgeRun) -> None:
    assert set(run.values) == set(EXPECTED)
    for case_id, expected in EXPECTED.items():
        assert set(run.values[case_id]) == set(expected), case_id
        for name, value in expected.items():
            assert run.values[case_id][name] == pytest.approx(value), (case_id, name)


def test_exact_values_for_every_judge_metric(
    judge_server: JudgeServer, judge_settings: JudgeSettings
) -> None:
    run = compute_judge_metrics(ITEMS, SPECS, judge_settings)
    _assert_values(run)
    assert judge_server.count == CALLS
    assert (run.calls, run.cached, run.missing) == (CALLS, 0, 0)
    assert all(r.body["model"] == "judge-test" for r in judge_server.requests)
    assert all(r.body["temperature"] == 0.0 for r in judge_server.requests)
    assert all(r.body["response_format"]["type"] == "json_schema" for r in judge_server.requests)


def test_details_hold_verdicts_reasons_and_claims(judge_settings: JudgeSettings) -> None:
    run = compute_judge_metrics(ITEMS, SPECS, judge_settings)
    q1 = run.details["q1"]
    assert q1["llm_relevancy@3"] == [
        {"rank": 1, "verdict": "yes", "reason": "grade marker 1", "cached": False},
        {"rank": 2, "verdict": "no", "reason": "grade marker 0", "cached": False},
        {"rank": 3, "verdict": "yes", "reason": "grade marker 3", "cached": False},
    ]
    assert [d["grade"] for d in q1["llm_ndcg@3"]] == [1, 0, 3]
    assert [d["score"] for d in q1["rerank_relevancy@3"]] == pytest.approx([1 / 3, 0.0, 0.9])
    assert [(c["claim"], c["attributed"]) for c in q1["context_recall@3"]] == [
        ("F1 alpha is first", True),
        ("F2 alpha is a letter", True),
        ("F3 alpha is greek", False),
    ]
    assert run.explain("q1", "llm_relevancy@3", limit=2) == (
        "#2 verdict no: grade marker 0; #1 verdict yes: grade marker 1; 1 more"
    )
    assert run.explain("q1", "context_recall@3", limit=1) == (
        "claim 'F3 alpha is greek' not attributed; 2 more"
    )


def test_a_case_without_reference_answer_is_a_judge_error_for_reference_metrics(
    judge_settings: JudgeSettings,
) -> None:
    run = compute_judge_metrics(ITEMS, SPECS, judge_settings)
    assert "context_precision@3" not in run.values["q2"]
    assert "context_recall@3" not in run.values["q2"]
    assert any(
        "context_precision@3" in line and "no reference_answer" in line for line in run.errors["q2"]
    )
    summary = run.failure_summary()
    assert summary is not None
    assert "'q2'" in summary
    assert "reference_answer" in summary
    assert set(run.errors) == {"q2"}


def test_second_run_is_served_from_the_cache(
    judge_server: JudgeServer, judge_settings: JudgeSettings
) -> None:
    compute_judge_metrics(ITEMS, SPECS, judge_settings)
    judge_server.clear()
    run = compute_judge_metrics(ITEMS, SPECS, judge_settings)
    _assert_values(run)
    assert judge_server.count == 0
    assert (run.calls, run.cached, run.missing) == (0, CALLS, 0)
    assert all(d["cached"] for d in run.details["q1"]["llm_relevancy@3"])


def test_a_changed_retriever_rejudges_only_the_new_pairs(
    judge_server: JudgeServer, judge_settings: JudgeSettings
) -> None:
    compute_judge_metrics(ITEMS, SPECS, judge_settings)
    judge_server.clear()
    changed = list(Q1_CHUNKS)
    changed[1] = "new alpha [g=2]"  # q4 still retrieves "unrelated [g=0]"
    items = (replace(ITEMS[0], chunks=tuple(changed)), *ITEMS[1:])
    run = compute_judge_metrics(items, SPECS, judge_settings)
    # one new chunk: relevance, grade, usefulness and score, plus q1's new top-3 context
    assert judge_server.count == 5
    assert sorted(r.kind for r in judge_server.requests) == sorted(
        [
            "ragcheck_relevance",
            "ragcheck_grade",
            "ragcheck_usefulness",
            "ragcheck_score",
            "ragcheck_claims",
        ]
    )
    assert all("new alpha" in r.user_text for r in judge_server.requests)
    assert (run.calls, run.cached) == (5, CALLS - 1)  # q1's old context is not needed
    assert run.values["q1"]["llm_relevancy@3"] == 1.0
    assert run.values["q4"] == pytest.approx(EXPECTED["q4"])


def test_identical_pairs_are_judged_once(
    judge_server: JudgeServer, judge_settings: JudgeSettings
) -> None:
    items = [JudgeItem(f"c{i}", "same query", None, ("same chunk [g=1]",)) for i in range(5)]
    specs = [parse_metric("llm_relevancy", 1), parse_metric("llm_precision", 1)]
    run = compute_judge_metrics(items, specs, judge_settings)
    assert judge_server.count == 1
    assert all(
        run.values[f"c{i}"] == {"llm_relevancy@1": 1.0, "llm_precision@1": 1.0} for i in range(5)
    )


def test_no_cache_judges_every_time(
    judge_server: JudgeServer, judge_settings: JudgeSettings
) -> None:
    settings = replace(judge_settings, cache_dir=None)
    compute_judge_metrics(ITEMS[:1], SPECS[:1], settings)
    compute_judge_metrics(ITEMS[:1], SPECS[:1], settings)
    assert judge_server.count == 6


def test_works_inside_a_running_event_loop(
    judge_server: JudgeServer, judge_settings: JudgeSettings
) -> None:
    async def inside() -> JudgeRun:
        return compute_judge_metrics(ITEMS, SPECS, judge_settings)

    run = asyncio.run(inside())
    _assert_values(run)


def test_progress_reports_every_verdict(judge_settings: JudgeSettings) -> None:
    seen: list[tuple[int, int]] = []
    compute_judge_metrics(ITEMS, SPECS, judge_settings, progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (0, CALLS)
    assert seen[-1] == (CALLS, CALLS)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_samples_vote_and_average_with_the_spread_reported(
    judge_server: JudgeServer, judge_settings: JudgeSettings
) -> None:
    settings = replace(judge_settings, samples=3, concurrency=1)
    item = JudgeItem("s", "what is alpha", None, ("alpha [g=2]",))
    judge_server.inject("answer", content={"reason": "dissent", "verdict": "no"})
    run = compute_judge_metrics([item], [parse_metric("llm_relevancy", 1)], settings)
    assert judge_server.count == 3
    assert {r.body["temperature"] for r in judge_server.requests} == {0.7}
    assert run.values["s"]["llm_relevancy@1"] == 1.0  # 2 yes out of 3
    detail = run.details["s"]["llm_relevancy@1"][0]
    assert sorted(detail["votes"]) == ["no", "yes", "yes"]
    assert detail["spread"] == 1.0
    assert detail["verdict"] == "yes"
    assert detail["reason"] == "grade marker 2"

    judge_server.inject("answer", content={"reason": "low", "grade": 0})
    run = compute_judge_metrics([item], [parse_metric("llm_ndcg", 1)], settings)
    detail = run.details["s"]["llm_ndcg@1"][0]
    assert detail["grade"] == pytest.approx(4 / 3)
    assert sorted(detail["samples"]) == [0, 2, 2]
    assert detail["spread"] == 2.0


def test_samples_are_cached_one_entry_each(
    judge_server: JudgeServer, judge_settings: JudgeSettings
) -> None:
    settings = replace(judge_settings, samples=3)
    item = JudgeItem("s", "what is alpha", None, ("alpha [g=2]",))
    compute_judge_metrics([item], [parse_metric("llm_relevancy", 1)], settings)
    assert judge_settings.cache_dir is not None
    assert len(list(judge_settings.cache_dir.rglob("*.json"))) == 3
    judge_server.clear()
    run = compute_judge_metrics([item], [parse_metric("llm_relevancy", 1)], settings)
    assert judge_server.count == 0
    assert run.cached == 3


def test_a_hit_without_text_is_an_error_not_a_zero(judge_settings: JudgeSettings) -> None:
    item = JudgeItem("t", "what is alpha", REFERENCE, ("alpha [g=1] F1", ""))
    specs = [parse_metric("llm_relevancy", 2), parse_metric("context_recall", 2)]
    run = compute_judge_metrics([item], specs, judge_settings)
    assert "t" not in run.values
    assert any("chunk 2" in line and "no text to judge" in line for line in run.errors["t"])
    assert any("context_recall@2" in line for line in run.errors["t"])
    assert run.details["t"]["llm_relevancy@2"][1]["error"] == "the hit has no text to judge"


def test_no_judge_model_is_a_config_error(judge_settings: JudgeSettings) -> None:
    settings = replace(judge_settings, model=None)
    with pytest.raises(ConfigError, match="--ragcheck-judge-model"):
        compute_judge_metrics(ITEMS, SPECS, settings)
    with pytest.raises(ConfigError, match="judge_model="):
        check_judge_available(settings)


def test_missing_litellm_is_a_usage_error_with_the_install_command(
    judge_settings: JudgeSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(judge_client, "litellm_installed", lambda: False)
    with pytest.raises(ConfigError, match=r'pip install "pytest-ragcheck\[llm\]"'):
        compute_judge_metrics(ITEMS, SPECS, judge_settings)
    with pytest.raises(ConfigError, match=r'pip install "pytest-ragcheck\[llm\]"'):
        check_judge_available(replace(judge_settings, cache_dir=None))
    # a cache or offline mode may make calls unnecessary: no early error
    check_judge_available(judge_settings)
    check_judge_available(replace(judge_settings, cache_dir=None, offline=True))


def test_missing_litellm_does_not_matter_when_everything_is_cached(
    judge_settings: JudgeSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    compute_judge_metrics(ITEMS, SPECS, judge_settings)
    monkeypatch.setattr(judge_client, "litellm_installed", lambda: False)
    _assert_values(compute_judge_metrics(ITEMS, SPECS, judge_settings))


def test_keyless_self_hosted_endpoint(
    judge_server: JudgeServer, judge_settings: JudgeSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    run = compute_judge_metrics(ITEMS[:1], SPECS[:1], judge_settings)
    assert run.values["q1"]["llm_relevancy@3"] == pytest.approx(2 / 3)
    assert judge_server.requests[0].headers["authorization"] == "Bearer not-needed"


def test_the_api_key_is_sent_but_never_written(
    judge_server: JudgeServer,
    judge_settings: JudgeSettings,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    secret = "sk-ragcheck-test-secret-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    run = compute_judge_metrics(ITEMS, SPECS, judge_settings)
    assert run.missing == 0
    assert {r.headers["authorization"] for r in judge_server.requests} == {f"Bearer {secret}"}
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) == CALLS
    for path in files:
        data = path.read_bytes()
        assert secret.encode() not in data
        assert b"authorization" not in data.lower()
        assert b"bearer" not in data.lower()


def test_a_corrupt_entry_is_reported_and_rejudged(
    judge_server: JudgeServer, judge_settings: JudgeSettings
) -> None:
    compute_judge_metrics(ITEMS[:1], SPECS[:1], judge_settings)
    assert judge_settings.cache_dir is not None
    victim = sorted(judge_settings.cache_dir.rglob("*.json"))[0]
    victim.write_text('{"key": "truncated', encoding="utf-8")
    judge_server.clear()
    run = compute_judge_metrics(ITEMS[:1], SPECS[:1], judge_settings)
    assert judge_server.count == 1
    assert run.values["q1"]["llm_relevancy@3"] == pytest.approx(2 / 3)
    assert len(run.warnings) == 1
    assert "corrupt cache entry" in run.warnings[0]
    assert victim.name in run.warnings[0]
    assert json.loads(victim.read_text(encoding="utf-8"))["answer"]["verdict"] in ("yes", "no")


CACHED_RUN_SCRIPT = """
import json, sys
from pathlib import Path
from pytest_ragcheck.evaluation.settings import JudgeSettings
from pytest_ragcheck.judge import JudgeItem, compute_judge_metrics
from pytest_ragcheck.metrics.names import MetricSpec

args = json.loads(sys.argv[1])
items = [JudgeItem(i[0], i[1], i[2], tuple(i[3])) for i in args["items"]]
specs = [MetricSpec(b, k) for b, k in args["specs"]]
settings = JudgeSettings(
    model=args["model"], api_base=args["api_base"], cache_dir=Path(args["cache"]),
    offline=args["offline"],
)
run = compute_judge_metrics(items, specs, settings)
print(json.dumps({
    "values": run.values, "calls": run.calls, "cached": run.cached, "missing": run.missing,
    "litellm_imported": "litellm" in sys.modules,
}))
"""


@pytest.mark.parametrize("offline", [False, True], ids=["online", "offline"])
def test_a_fully_cached_run_never_imports_litellm(
    judge_settings: JudgeSettings, offline: bool
) -> None:
    compute_judge_metrics(ITEMS, SPECS, judge_settings)
    payload: dict[str, Any] = {
        "items": [[i.case_id, i.query, i.reference_answer, list(i.chunks)] for i in ITEMS],
        "specs": [[s.base, s.k] for s in SPECS],
        "model": judge_settings.model,
        "api_base": judge_settings.api_base,
        "cache": str(judge_settings.cache_dir),
        "offline": offline,
    }
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    done = subprocess.run(
        [
            sys.executable,
            "-W",
            "error",
            "-c",
            textwrap.dedent(CACHED_RUN_SCRIPT),
            json.dumps(payload),
        ],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["litellm_imported"] is False
    assert (out["calls"], out["cached"], out["missing"]) == (0, CALLS, 0)
    for case_id, expected in EXPECTED.items():
        assert out["values"][case_id] == pytest.approx(expected)
