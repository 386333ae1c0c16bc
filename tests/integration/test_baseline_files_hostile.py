"""Stored baselines as git, editors and other tools leave them: a clear failure naming the file
and what to do, never a silent pass against numbers no run could have stored.

Each test runs real pytest sessions on a small project and checks what the user sees.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import SERIAL_ONLY, Suite, ragcheck_module
from judge_fixtures import JUDGE_MODEL

SNAPSHOT = "__ragcheck__/test_rag/test_rag[ragcheck].json"


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


#: test name -> (a hand edit of the stored text, what the failure must say).
OUT_OF_RANGE = {
    "case_value": (
        lambda t: t.replace('"mrr@5": 1.0', '"mrr@5": 5.0', 2).replace(
            '"mrr@5": 5.0', '"mrr@5": 1.0', 1
        ),
        "cases['q1']['mrr@5'] is 5.0, not a score: finite values only, -1 to 1",
    ),
    "negative": (
        lambda t: t.replace('"recall@5": 1.0}', '"recall@5": -3.0}', 1),
        "cases['q1']['recall@5'] is -3.0, not a score",
    ),
    "huge": (
        lambda t: t.replace('"map@5": 1.0, "mrr', '"map@5": 1e+300, "mrr', 1),
        "cases['q1']['map@5'] is 1e+300, not a score",
    ),
    "aggregate": (
        lambda t: t.replace('"mrr@5": 1.0,', '"mrr@5": 7.5,', 1),
        "aggregates['mrr@5'] is 7.5, not a score",
    ),
}


# Not about processes: reading a stored file is the same in every worker.
@SERIAL_ONLY
def test_a_hand_edited_value_no_metric_can_have_is_a_damaged_file(suite, run_mode) -> None:
    """A stored 5.0 was compared as if a run had scored it: a case's value was ignored
    (the stored means are used while the cases are unchanged) and an aggregate's drop was
    called noise, so the test passed against numbers no run could have stored."""
    suite.golden()
    suite.retriever()
    for name in OUT_OF_RANGE:
        suite.test(ragcheck_module('"golden.jsonl", k=5', function=f"test_{name}"), f"test_{name}")
    suite.update_baselines().assert_outcomes(passed=len(OUT_OF_RANGE))
    paths = {n: suite.path / f"__ragcheck__/test_{n}/test_{n}[ragcheck].json" for n in OUT_OF_RANGE}
    good = {name: path.read_text("utf-8") for name, path in paths.items()}
    for name, (edit, _) in OUT_OF_RANGE.items():
        edited = edit(good[name])
        assert edited != good[name], name
        paths[name].write_text(edited, "utf-8")

    result = suite.run(*run_mode)
    result.assert_outcomes(failed=len(OUT_OF_RANGE))
    text = _flat(suite, result)
    for name, (_, expected) in OUT_OF_RANGE.items():
        assert f"__ragcheck__/test_{name}/test_{name}[ragcheck].json: {expected}" in text, name
    assert text.count("Fix the file, or re-run with --snapshot-update") == len(OUT_OF_RANGE)
    suite.assert_clean(result)

    suite.run("--snapshot-update", *run_mode).assert_outcomes(passed=len(OUT_OF_RANGE))
    assert {name: path.read_text("utf-8") for name, path in paths.items()} == good


@SERIAL_ONLY
def test_a_git_lfs_pointer_in_place_of_a_baseline_says_to_fetch_it(suite, run_mode) -> None:
    """A checkout without LFS files holds a three-line pointer: not a damaged file to fix."""
    suite.make(ragcheck_module('"golden.jsonl", k=5'))
    recorded = _record(suite, suite.PERFECT)
    path: Path = suite.path / SNAPSHOT
    pointer = (
        "version https://git-lfs.github.com/spec/v1\n"
        "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
        f"size {len(recorded.encode('utf-8'))}\n"
    )
    path.write_text(pointer, "utf-8")

    result = suite.run(*run_mode)
    result.assert_outcomes(failed=1)
    text = _flat(suite, result)
    assert f"{SNAPSHOT}: is a Git LFS pointer, not the baseline" in text
    assert "Fetch it with `git lfs pull`" in text
    assert "not valid JSON" not in text
    suite.assert_clean(result)
    assert path.read_text("utf-8") == pointer

    path.write_text(recorded, "utf-8")  # fetched
    suite.run(*run_mode).assert_outcomes(passed=1)


@SERIAL_ONLY
def test_a_regression_is_explained_from_a_file_with_blanks_after_a_comma(suite, run_mode) -> None:
    """Blanks after a case line's comma are valid JSON; explaining the regressed case from its
    stored ranking ended in an internal JSONDecodeError instead of the regression message."""
    suite.make(ragcheck_module('"golden.jsonl", metrics=["mrr"]'))
    suite.rebaseline(suite.PERFECT, suite.WORSE)
    path: Path = suite.path / SNAPSHOT
    path.write_text(path.read_text("utf-8").replace("}},\n", "}},  \n"), "utf-8")

    result = suite.run(*run_mode)
    result.assert_outcomes(failed=1)
    text = _flat(suite, result)
    assert "mrr@10 regressed (tolerance; too few changed cases to test) 1.000 → 0.708" in text
    assert "a rank 1 → 2" in text  # q1's relevant document, from the stored ranking
    assert "JSONDecodeError" not in text
    suite.assert_clean(result)


def _resolved_by_sides(ours: str, theirs: str) -> str:
    """A conflict resolved hunk by hunk: our aggregates kept, their cases taken."""
    cases = theirs.index('  "cases": {')
    return ours[: ours.index('  "cases": {')] + theirs[cases:]


@SERIAL_ONLY
def test_stored_means_that_are_not_their_cases_means_are_a_damaged_file(suite, run_mode) -> None:
    """While the cases are unchanged the stored means are compared as they are: a hand-lowered
    mean, or a conflict resolved with one side's means and the other's cases, turned a drop
    into an "improvement" or hid it, against numbers no run had scored."""
    suite.make(ragcheck_module('"golden.jsonl", metrics=["mrr"]'))
    worse = _record(suite, suite.WORSE)
    perfect = _record(suite, suite.PERFECT)
    path: Path = suite.path / SNAPSHOT
    suite.retriever(suite.WORSE)
    expected = "aggregates['mrr@10'] is 0.7083, but the mean of its 4 cases is 1.0"
    for text in (
        _resolved_by_sides(worse, perfect),
        perfect.replace('"mrr@10": 1.0\n', '"mrr@10": 0.7083\n', 1),  # "accepting" the drop
    ):
        assert text != perfect
        path.write_text(text, "utf-8")
        result = suite.run(*run_mode)
        result.assert_outcomes(failed=1)
        flat = _flat(suite, result)
        assert f"{SNAPSHOT}: {expected}" in flat
        assert "Fix the file, or re-run with --snapshot-update" in flat
        suite.assert_clean(result)
        assert path.read_text("utf-8") == text

    suite.run("--snapshot-update", *run_mode).assert_outcomes(passed=1)
    assert path.read_text("utf-8") == worse


def test_a_baseline_with_a_case_the_judge_abstained_on_is_read_back(suite, judge_server) -> None:
    """With judge_disagreement="abstain" a case whose every judged item was left out has no
    value of the judge metric, and its baseline stores none: every later run failed with
    "Baseline cannot be read ... has no value" (and --snapshot-update wrote the same file)."""
    suite.make(
        ragcheck_module(
            '"golden.jsonl", k=5, metrics=["llm_relevancy", "mrr"], judge_samples=2, '
            'judge_disagreement="abstain"',
            function="test_judge",
        ),
        cases=[
            {"id": "q1", "query": "what is alpha", "relevance": {"d1": 2}},
            {"id": "q2", "query": "what is delta", "relevance": {"e1": 2}},
        ],
        rankings={  # the judge server answers each second sample about a [wobble] wrongly
            "what is alpha": [{"id": "d1", "text": "d1 [g=2]"}, {"id": "d2", "text": "d2 [g=0]"}],
            "what is delta": [
                {"id": "e1", "text": "e1 [g=2] [wobble]"},
                {"id": "e2", "text": "e2 [g=0] [wobble]"},
            ],
        },
    )
    judge = [
        f"--ragcheck-judge-model={JUDGE_MODEL}",
        f"--ragcheck-judge-api-base={judge_server.url}",
    ]
    suite.update_baselines(None, *judge).assert_outcomes(passed=1)
    stored = suite.read_json("__ragcheck__/test_rag/test_judge[ragcheck].json")
    assert stored["cases"]["q2"]["values"] == {"mrr@5": 1.0}  # no llm_relevancy@5 for q2

    result = suite.run(*judge)
    result.assert_outcomes(passed=1)
    text = _flat(suite, result)
    assert "Baseline cannot be read" not in text
    assert (
        "llm_relevancy@5 compared on the 1 shared case with a value of it in the baseline and "
        "in this run" in text
    )
    assert "1 snapshot passed" in text
    suite.assert_clean(result)

    # ... and compared there: q1 losing its relevant chunk is a regression
    suite.retriever(
        {
            "what is alpha": [{"id": "d2", "text": "d2 [g=0]"}],
            "what is delta": [
                {"id": "e1", "text": "e1 [g=2] [wobble]"},
                {"id": "e2", "text": "e2 [g=0] [wobble]"},
            ],
        }
    )
    worse = suite.run(*judge)
    worse.assert_outcomes(failed=1)
    text = _flat(suite, worse)
    assert re.search(r"llm_relevancy@5 +0\.000 +0\.500 +−0\.500 .*regressed", text), text


@SERIAL_ONLY
def test_a_baseline_saved_as_utf16_is_read(suite, run_mode) -> None:
    """Windows PowerShell's ``>`` and ``Out-File`` write UTF-16 with a byte-order mark: the
    baseline is the same numbers, compared as such (it was "not valid JSON")."""
    suite.make(ragcheck_module('"golden.jsonl", k=5'))
    text = _record(suite, suite.PERFECT)
    path: Path = suite.path / SNAPSHOT
    path.write_bytes(text.replace("\n", "\r\n").encode("utf-16"))  # BOM, little-endian here
    saved = path.read_bytes()
    suite.retriever(suite.PERFECT)
    suite.run(*run_mode).assert_outcomes(passed=1)
    assert path.read_bytes() == saved  # unchanged, so kept as it is
    suite.retriever(suite.WORSE)
    worse = suite.run(*run_mode)
    worse.assert_outcomes(failed=1)
    assert "regressed" in _flat(suite, worse)
    assert "Baseline cannot be read" not in _flat(suite, worse)
    suite.run("--snapshot-update", *run_mode).assert_outcomes(passed=1)
    assert path.read_bytes().startswith(b"{")  # re-recorded as UTF-8


# Not about processes: reading a stored file is the same in every worker.
@SERIAL_ONLY
def test_a_baseline_nested_too_deeply_is_a_damaged_file(suite, run_mode) -> None:
    """50,000 nested lists raised RecursionError through the plugin's frames, and
    --snapshot-update, the documented repair, crashed the same way (and lost the file)."""
    suite.make(ragcheck_module('"golden.jsonl", k=5'))
    recorded = _record(suite, suite.PERFECT)
    path: Path = suite.path / SNAPSHOT
    deep = "[" * 50_000 + "]" * 50_000
    one_case = recorded.replace('"hits": ["a", "x"]', f'"hits": {deep}', 1)  # chunked read
    assert one_case != recorded
    for text in (deep + "\n", one_case):
        path.write_text(text, "utf-8")
        result = suite.run(*run_mode)
        result.assert_outcomes(failed=1)
        flat = _flat(suite, result)
        assert f"Baseline cannot be read: {SNAPSHOT}: not valid JSON" in flat, flat
        assert "lists or objects nested too deeply" in flat
        assert "Fix the file, or re-run with --snapshot-update" in flat
        assert "RecursionError" not in flat
        suite.assert_clean(result)
        assert path.read_text("utf-8") == text

        result = suite.run("--snapshot-update", *run_mode)
        result.assert_outcomes(passed=1)
        assert path.read_text("utf-8") == recorded


POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="POSIX FIFOs")


@contextlib.contextmanager
def unblocked_after(fifo: Path, *, seconds: float) -> Iterator[None]:
    """Open ``fifo`` for writing (and close it) after ``seconds``: a reader waiting on it then
    reads nothing and goes on, so code that waits on the FIFO fails the test, not hangs it."""

    def writer() -> None:
        with contextlib.suppress(OSError):  # no reader: nothing waits
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    timer = threading.Timer(seconds, writer)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


@SERIAL_ONLY
@POSIX_ONLY
def test_a_fifo_in_place_of_a_baseline_is_named_not_waited_on(suite, run_mode) -> None:
    """Opening a FIFO for reading waits for a writer: the session hung until killed."""
    suite.make(ragcheck_module('"golden.jsonl", k=5'))
    path: Path = suite.path / SNAPSHOT
    for recorded in (False, True):
        if recorded:  # an old baseline's place too (__snapshots__/, read before it is moved)
            path.unlink()
            path = suite.path / SNAPSHOT.replace("__ragcheck__", "__snapshots__")
            path.parent.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True)
        os.mkfifo(path)
        for args in ([], ["--snapshot-update"]):
            with unblocked_after(path, seconds=30):  # a hang becomes a failure
                result = suite.run(*args)
            result.assert_outcomes(failed=1)
            flat = _flat(suite, result)
            shown = path.relative_to(suite.path).as_posix()
            assert (
                f"Baseline cannot be read: {shown}: not a regular file: it is a FIFO (named "
                "pipe); the file was left as it is" in flat
            ), flat
            suite.assert_clean(result)
            assert stat.S_ISFIFO(path.stat().st_mode)
