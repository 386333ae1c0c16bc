"""Verdict cache upkeep: the summary line, ``--ragcheck-judge-prune`` and its dry run.

Verdicts are recorded once with the local judge server; the retriever then stops returning
one chunk, so exactly one entry goes unused, and later runs replay offline (no server).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from harness import SERIAL_ONLY, Suite
from judge_fixtures import JUDGE_MODEL
from judge_fixtures import JUDGED_CHUNKS as CHUNKS
from judge_fixtures import JUDGED_GOLDEN as GOLDEN
from judge_fixtures import NARROWER_CHUNKS as NARROWER
from judge_server import JudgeServer

DROPPED = "alpha letters [g=1]"

SOURCE = """
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=3, metrics=["llm_relevancy"], baseline=False)
def test_first(ragcheck, retriever):
    ragcheck(retriever)


@ragcheck("golden.jsonl", k=3, metrics=["llm_relevancy"], baseline=False)
def test_second(ragcheck, retriever):
    ragcheck(retriever)
"""


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory, judge_server_session: JudgeServer) -> Path:
    """The 5 verdicts of the full rankings, recorded once through the library API (the same
    cache keys as the plugin's: model, base URL, prompt and messages)."""
    from pytest_ragcheck import evaluate

    folder = tmp_path_factory.mktemp("verdicts") / "judge"
    judge = {"model": JUDGE_MODEL, "api_base": judge_server_session.url, "cache_dir": folder}
    result = evaluate(lambda q: CHUNKS[q], GOLDEN, k=3, metrics=["llm_relevancy"], judge=judge)
    assert result.info["judge"]["calls"] == 5
    return folder


@pytest.fixture
def recorded(suite: Suite, verdicts: Path, judge_server_session: JudgeServer) -> Path:
    """A project whose cache holds the 5 verdicts, one of which the current retriever no
    longer needs; runs are offline. Returns the cache folder."""
    suite.make(SOURCE, cases=GOLDEN, rankings=NARROWER)
    # the same model and base URL (both are part of every cache key), never called
    suite.ini(
        ragcheck_judge_model=JUDGE_MODEL,
        ragcheck_judge_api_base=judge_server_session.url,
        ragcheck_judge_offline="true",
    )
    cache = suite.path / ".ragcheck" / "judge"
    shutil.copytree(verdicts, cache)
    (cache / "README.txt").write_text("not an entry: never deleted\n")
    assert len(_entries(cache)) == 5
    return cache


def _entries(cache: Path) -> dict[str, str]:
    """Entry name (prompt/ab/key.json) -> the chunk it judged."""
    return {
        p.relative_to(cache).as_posix(): json.loads(p.read_text())["input"].get("chunk", "")
        for p in cache.glob("*/*/*.json")
    }


def _unused(cache: Path) -> list[str]:
    return [name for name, chunk in _entries(cache).items() if DROPPED in chunk]


def test_prune_deletes_exactly_the_unused_entries(
    suite: Suite, recorded: Path, run_mode: list[str]
) -> None:
    (unused,) = _unused(recorded)
    kept = sorted(set(_entries(recorded)) - {unused})
    result = suite.run(*run_mode, "--ragcheck-judge-prune")
    result.assert_outcomes(passed=2)
    text = Suite.text(result)
    assert "4 verdict(s) from the cache, 0 new, 1 entry not used by this run" in text
    assert "--ragcheck-judge-prune: deleted 1 unused entry from" in text
    assert sorted(_entries(recorded)) == kept
    assert (recorded / "README.txt").exists()
    # the suite still replays offline from what is left
    again = suite.run(*run_mode, "--ragcheck-judge-prune")
    again.assert_outcomes(passed=2)
    assert "0 entries not used" in Suite.text(again)
    assert "--ragcheck-judge-prune: no unused entry; nothing to delete" in Suite.text(again)
    assert "entr(ies)" not in Suite.text(again)
    assert sorted(_entries(recorded)) == kept


def test_dry_run_lists_and_deletes_nothing(suite: Suite, recorded: Path) -> None:
    before = _entries(recorded)
    (unused,) = _unused(recorded)
    result = suite.run("--ragcheck-judge-prune-dry-run")
    result.assert_outcomes(passed=2)
    text = Suite.text(result)
    assert "1 unused entry would be deleted:" in text
    assert unused in text
    assert [n for n in before if n in text] == [unused]
    assert _entries(recorded) == before


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (("-k", "test_first"), "tests were selected with -k or -m"),
        (("test_rag.py::test_first",), "only some tests were named (test_rag.py::test_first)"),
        (("--deselect", "test_rag.py::test_second"), "test(s) were deselected"),
    ],
)
def test_a_partial_run_prunes_nothing(
    suite: Suite, recorded: Path, args: tuple[str, ...], reason: str
) -> None:
    before = _entries(recorded)
    result = suite.run("--ragcheck-judge-prune", *args)
    result.assert_outcomes(passed=1, deselected=None if "::" in args[0] else 1)
    text = Suite.text(result)
    assert "--ragcheck-judge-prune: nothing deleted:" in text
    assert reason in text
    assert _entries(recorded) == before


# Not about processes: pytest-xdist is covered by
# test_prune_deletes_exactly_the_unused_entries[xdist].
@SERIAL_ONLY
def test_a_failing_run_prunes_nothing(suite: Suite, recorded: Path, run_mode: list[str]) -> None:
    before = _entries(recorded)
    suite.test("def test_unrelated():\n    assert False\n", name="test_other")
    result = suite.run(*run_mode, "--ragcheck-judge-prune")
    result.assert_outcomes(passed=2, failed=1)
    assert "nothing deleted: the run did not pass (exit status 1)" in Suite.text(result)
    assert _entries(recorded) == before


def test_a_skipped_ragcheck_test_makes_the_run_partial(suite: Suite, recorded: Path) -> None:
    before = _entries(recorded)
    suite.test(
        SOURCE.replace("def test_second", "@__import__('pytest').mark.skip\ndef test_second")
    )
    result = suite.run("--ragcheck-judge-prune")
    result.assert_outcomes(passed=1, skipped=1)
    assert "1 ragcheck test(s) were skipped (test_rag.py::test_second…)" in Suite.text(result)
    assert _entries(recorded) == before
