"""LLM-judge metrics through the pytest surface, against the local judge server.

Serial runs go through a subprocess and xdist runs have fresh worker processes, so the probe
written by the inner test (is litellm in ``sys.modules``?) tells the truth about the process
that computed the metrics.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from harness import Suite
from judge_fixtures import JUDGE_MODEL
from judge_server import JudgeServer

GOLDEN = [
    {
        "id": "q1",
        "query": "what is alpha",
        "expected_ids": ["a"],
        "reference_answer": "F1 alpha is first. F2 alpha is a letter.",
    },
    {
        "id": "q2",
        "query": "what is beta",
        "expected_ids": ["c"],
        "reference_answer": "F3 beta is second.",
    },
]
RANKINGS = {
    "what is alpha": [
        {"id": "a", "text": "alpha [g=2] F1"},
        {"id": "x", "text": "noise [g=0]"},
        {"id": "b", "text": "alpha letters [g=1] F2"},
    ],
    "what is beta": [
        {"id": "x", "text": "noise [g=0]"},
        {"id": "c", "text": "beta [g=3] F3"},
    ],
}
#: relevance: 3 chunks of q1 + 2 of q2; claims: one per case.
CALLS = 7

TEST_SOURCE = """
import json, os, sys
from pathlib import Path

import pytest
from pytest_ragcheck import ragcheck
JUDGE = ["llm_relevancy", "llm_precision", "context_recall"]


def probe(name):
    folder = Path(os.environ["RAGCHECK_PROBE_DIR"])
    folder.mkdir(exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    (folder / f"{name}-{worker}.json").write_text(json.dumps("litellm" in sys.modules))


@ragcheck("golden.jsonl", k=3, metrics=JUDGE, baseline=False, min_llm_relevancy_at_3=0.5)
def test_first(ragcheck, retriever):
    result = ragcheck(retriever)
    probe("first")
    # q1: verdicts [yes, no, yes]; q2: [no, yes]; every claim is in the context
    assert result["llm_relevancy@3"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert result["llm_precision@3"] == pytest.approx(((1 + 2 / 3) / 2 + 1 / 2) / 2)
    assert result["context_recall@3"] == pytest.approx(1.0)
    q1 = next(c for c in result.cases if c.id == "q1")
    assert [d["verdict"] for d in q1.judge["llm_relevancy@3"]] == ["yes", "no", "yes"]
    assert q1.judge_errors == []


@ragcheck("golden.jsonl", k=3, metrics=JUDGE, baseline=False)
def test_second(ragcheck, retriever):
    result = ragcheck(retriever)
    probe("second")
    assert result["llm_relevancy@3"] == pytest.approx((2 / 3 + 1 / 2) / 2)
"""


def _project(suite: Suite, source: str = TEST_SOURCE) -> None:
    suite.make(source, cases=GOLDEN, rankings=RANKINGS)


def _probes(suite: Suite) -> dict[str, Any]:
    folder = suite.path / "probes"
    found = {p.stem: json.loads(p.read_text()) for p in folder.glob("*.json")}
    for p in folder.glob("*.json"):
        p.unlink()
    return found


@pytest.fixture(scope="module")
def litellm_preloaded() -> None:
    """Import litellm in this process before in-process runs that call the judge.

    An in-process pytester run drops the modules it imported first; importing litellm anew
    in every such run would cost seconds each.
    """
    from pytest_ragcheck.judge.client import import_litellm

    import_litellm()


@pytest.fixture
def probe_dir(suite: Suite, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = suite.path / "probes"
    monkeypatch.setenv("RAGCHECK_PROBE_DIR", str(folder))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return folder


def _judge_args(server: JudgeServer) -> list[str]:
    return [f"--ragcheck-judge-model={JUDGE_MODEL}", f"--ragcheck-judge-api-base={server.url}"]


@pytest.mark.usefixtures("litellm_preloaded")
def test_record_then_replay_from_the_cache_without_litellm(
    suite: Suite, run_mode: list[str], judge_server: JudgeServer, probe_dir: Path
) -> None:
    _project(suite)
    args = _judge_args(judge_server)
    suite.run(*run_mode, *args).assert_outcomes(passed=2)
    # serial: the second test is served from the first test's verdicts; xdist: both workers
    # may judge the same pairs at once, and one waits for the other's verdict (a lock file
    # beside each entry)
    assert judge_server.count == CALLS
    cache = suite.path / ".ragcheck" / "judge"
    assert len(list(cache.rglob("*.json"))) == CALLS
    assert list(cache.rglob("*.tmp")) == []

    # CI: offline, every verdict from the cache, none corrupt
    judge_server.clear()
    replay = suite.run(*args, "--ragcheck-judge-offline")
    replay.assert_outcomes(passed=2)
    Suite.assert_clean(replay)
    assert "corrupt" not in Suite.text(replay)
    assert judge_server.count == 0

    # a fresh interpreter where the judge could be called: a fully cached run imports no
    # litellm (the inner tests write what they saw to the probe folder)
    _probes(suite)
    replay = suite.run_subprocess(*args)
    replay.assert_outcomes(passed=2)
    assert judge_server.count == 0
    probes = _probes(suite)
    assert set(probes) == {"first-main", "second-main"}
    assert not any(probes.values()), probes


def test_offline_miss_fails_with_the_recording_instructions(
    suite: Suite, judge_server: JudgeServer, probe_dir: Path
) -> None:
    _project(suite)
    result = suite.run_subprocess(*_judge_args(judge_server), "--ragcheck-judge-offline")
    result.assert_outcomes(failed=2)
    Suite.assert_clean(result)
    text = Suite.text(result)
    assert "judge verdict(s) are not in" in text
    assert "case 'q1' chunk 1 (relevance)" in text
    assert "where a judge API key is available" in text
    assert str(Path(".ragcheck") / "judge") in text
    assert "commit" in text
    assert judge_server.count == 0
    assert not (suite.path / ".ragcheck" / "judge").exists() or not list(
        (suite.path / ".ragcheck" / "judge").rglob("*.json")
    )
    assert not any(_probes(suite).values())  # offline: litellm is never imported


@pytest.mark.usefixtures("litellm_preloaded")
def test_marker_keywords_and_the_budget(
    suite: Suite, judge_server: JudgeServer, probe_dir: Path
) -> None:
    source = f"""
    from pytest_ragcheck import ragcheck
    @ragcheck(
        "golden.jsonl", k=3, metrics=["llm_relevancy"], baseline=False,
        judge_model={JUDGE_MODEL!r}, judge_api_base={judge_server.url!r},
        judge_max_calls=2, judge_concurrency=1,
    )
    def test_budget(ragcheck, retriever):
        ragcheck(retriever)
    """
    _project(suite, source)
    result = suite.run()
    result.assert_outcomes(failed=1)
    Suite.assert_clean(result)
    text = Suite.text(result)
    assert "The judge budget ran out (judge_max_calls=2, 2 call(s) made)" in text
    assert "3 verdict(s) are missing" in text
    assert judge_server.count == 2


@pytest.mark.usefixtures("litellm_preloaded")
def test_cache_off_keeps_no_files_and_judges_every_run(
    suite: Suite, judge_server: JudgeServer, probe_dir: Path
) -> None:
    _project(suite)
    args = [*_judge_args(judge_server), "--ragcheck-judge-cache=off"]
    suite.run(*args).assert_outcomes(passed=2)
    assert judge_server.count == 2 * CALLS  # nothing shared between the two tests either
    assert not (suite.path / ".ragcheck").exists()


@pytest.mark.usefixtures("litellm_preloaded")
def test_cache_option_sets_the_folder(
    suite: Suite, judge_server: JudgeServer, probe_dir: Path
) -> None:
    _project(suite)
    suite.run(*_judge_args(judge_server), "--ragcheck-judge-cache=verdicts").assert_outcomes(
        passed=2
    )
    assert len(list((suite.path / "verdicts").rglob("*.json"))) == CALLS
    assert not (suite.path / ".ragcheck").exists()


def test_no_judge_model_is_a_clear_error(suite: Suite, probe_dir: Path) -> None:
    _project(suite)
    result = suite.run()
    assert result.ret != 0
    text = Suite.text(result)
    assert "--ragcheck-judge-model" in text
    Suite.assert_clean(result)


@pytest.mark.usefixtures("litellm_preloaded")
def test_a_failing_judge_threshold_lists_worst_cases_with_reasons(
    suite: Suite, judge_server: JudgeServer, probe_dir: Path
) -> None:
    source = """
    from pytest_ragcheck import ragcheck
    @ragcheck("golden.jsonl", k=3, metrics=["llm_relevancy"], baseline=False,
              min_llm_relevancy_at_3=0.9)
    def test_floor(ragcheck, retriever):
        ragcheck(retriever)
    """
    _project(suite, source)
    result = suite.run(*_judge_args(judge_server))
    result.assert_outcomes(failed=1)
    Suite.assert_clean(result)
    text = Suite.text(result)
    assert "llm_relevancy@3" in text
    assert "q2" in text
    assert "grade marker 0" in text  # the judge's reason for the "no" verdict


@pytest.mark.usefixtures("litellm_preloaded")
def test_damaged_cache_entries_are_reported_and_judged_again(
    suite: Suite, judge_server: JudgeServer, probe_dir: Path
) -> None:
    """A botched merge, an entry nested 50,000 levels deep and a FIFO: each is named as
    damaged and judged again (no RecursionError, no session blocked on the FIFO), and the
    fresh verdict replaces it."""
    _project(suite)
    args = _judge_args(judge_server)
    suite.run(*args).assert_outcomes(passed=2)
    victims = sorted((suite.path / ".ragcheck" / "judge").rglob("*.json"))[:3]
    victims[0].write_text("<<<<<<< HEAD\n", encoding="utf-8")  # e.g. a botched merge
    victims[1].write_text("[" * 50_000 + "]" * 50_000, encoding="utf-8")
    fifo = hasattr(os, "mkfifo")
    if fifo:
        victims[2].unlink()
        os.mkfifo(victims[2])
    damaged = victims if fifo else victims[:2]
    judge_server.clear()
    result = suite.run(*args)
    result.assert_outcomes(passed=2)
    Suite.assert_clean(result)
    text = Suite.text(result)
    assert "RecursionError" not in text
    assert text.count("corrupt cache entry") == 2
    assert "(lists or objects nested too deeply)" in text
    if fifo:
        assert "it is a FIFO, not a regular file; judging it again" in text
    for victim in damaged:
        assert victim.name in text
    assert judge_server.count == len(damaged)
    for victim in damaged:
        assert victim.is_file()
        assert json.loads(victim.read_text(encoding="utf-8"))["answer"]
