"""Stored baselines as git, editors and other tools leave them: a clear failure naming the file
and what to do, never a silent pass against numbers no run could have stored.

Each test runs real pytest sessions on a small project and checks what the user sees.
"""

from __future__ import annotations

from pathlib import Path

from harness import Suite, ragcheck_module

SNAPSHOT = "__snapshots__/test_rag/test_rag[ragcheck].json"


def _flat(suite: Suite, result: object) -> str:
    return " ".join(suite.text(result).split())  # type: ignore[arg-type]


def _conflicted(ours: str, theirs: str) -> str:
    """What ``git merge`` leaves when both branches re-recorded the file: each run of
    differing lines wrapped in conflict markers (both texts have the same number of lines)."""
    out: list[str] = []
    mine, other = ours.splitlines(keepends=True), theirs.splitlines(keepends=True)
    assert len(mine) == len(other)
    at = 0
    while at < len(mine):
        if mine[at] == other[at]:
            out.append(mine[at])
            at += 1
            continue
        end = at
        while end < len(mine) and mine[end] != other[end]:
            end += 1
        out += ["<<<<<<< HEAD\n", *mine[at:end], "=======\n", *other[at:end], ">>>>>>> rerank\n"]
        at = end
    return "".join(out)


def _record(suite: Suite, rankings: object) -> str:
    suite.update_baselines(rankings).assert_outcomes(passed=1)  # type: ignore[arg-type]
    return (suite.path / SNAPSHOT).read_text("utf-8")


def test_a_merge_conflict_in_a_baseline_says_so_and_update_repairs_it(suite, run_mode) -> None:
    suite.make(ragcheck_module('"golden.jsonl", k=5'))
    theirs = _record(suite, suite.WORSE)
    ours = _record(suite, suite.PERFECT)
    path: Path = suite.path / SNAPSHOT
    conflicted = _conflicted(ours, theirs)
    path.write_text(conflicted, "utf-8")
    first = conflicted.splitlines().index("<<<<<<< HEAD") + 1

    result = suite.run(*run_mode)
    result.assert_outcomes(failed=1)
    text = _flat(suite, result)
    assert (
        f"{SNAPSHOT}: has unresolved git merge conflict markers (line {first}: '<<<<<<< HEAD')"
        in text
    )
    assert "re-run with --snapshot-update on the merged branch" in text
    assert 'pytest "test_rag.py::test_rag" --snapshot-update' in text
    assert "not valid JSON" not in text
    suite.assert_clean(result)
    assert path.read_text("utf-8") == conflicted

    result = suite.run("--snapshot-update", *run_mode)
    result.assert_outcomes(passed=1)
    assert path.read_text("utf-8") == ours
    suite.run(*run_mode).assert_outcomes(passed=1)
