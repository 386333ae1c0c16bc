"""Hostile input to ``ragcheck.compare(...)`` and ``--ragcheck-history`` in real sessions."""

from __future__ import annotations

import json
import os
import sys

import pytest
from harness import Suite

#: FIFOs, and file names that are bytes rather than text, are POSIX things.
POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="POSIX FIFOs and byte names")

SOURCE = """
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=5, metrics=["mrr"], baseline=False)
def test_plain(ragcheck, retriever):
    ragcheck(retriever)
"""


def test_a_hand_edited_history_line_with_a_huge_integer_is_not_drawn(suite: Suite) -> None:
    suite.make(SOURCE)
    line = {"test": "test_rag.py::test_plain", "call": 0, "metrics": {"mrr@5": 10**400}}
    path = suite.write("h.jsonl", json.dumps(line) + "\n")
    result = suite.run("--ragcheck-history=h.jsonl", "--ragcheck-report=r.json")
    result.assert_outcomes(passed=1)
    Suite.assert_clean(result)
    assert "ragcheck history: 1 line(s) appended to" in Suite.text(result)
    runs = suite.read_json("r.json")["history"]["tests"][0]["runs"]
    assert runs[0]["metrics"] == {}
    assert runs[1]["metrics"]["mrr@5"] == 1.0
    assert len(path.read_text().splitlines()) == 2


@POSIX_ONLY
def test_a_history_path_that_is_a_pipe_is_not_read_to_the_end(suite: Suite) -> None:
    suite.make(SOURCE)
    fifo = suite.path / "h.fifo"
    os.mkfifo(fifo)
    # Reading a FIFO (or /dev/zero) to its end never returns: the run must not hang on it.
    result = suite.pytester.runpytest_subprocess(
        *Suite.ARGS, f"--ragcheck-history={fifo}", timeout=60
    )
    result.assert_outcomes(passed=1)
    Suite.assert_clean(result)
    assert f"ragcheck history: 1 line(s) appended to {fifo}" in Suite.text(result)


HOSTILE_NAMES = """
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=5, metrics=["mrr"])
def test_names(ragcheck, retriever):
    names = {"ref\\nline": retriever, "\\x1b[31mred": retriever, "z" * 10_000: retriever}
    cmp = ragcheck.compare(names)
    print(cmp)
"""


def test_hostile_system_names_neither_break_nor_recolour_the_table(suite: Suite) -> None:
    suite.make(HOSTILE_NAMES)
    result = suite.run("-s", "--ragcheck-report=r.md,r.json")
    result.assert_outcomes(passed=1)
    text = Suite.text(result)
    assert "\x1b[31m" not in text
    assert "ref\\nline (reference)" in text
    assert "\\x1b[31mred" in text
    assert max(len(line) for line in text.splitlines()) < 400
    markdown = (suite.path / "r.md").read_text(encoding="utf-8")
    assert "\x1b" not in markdown
    assert max(len(line) for line in markdown.splitlines()) < 400
    # the JSON report keeps the names as given
    systems = suite.read_json("r.json")["comparisons"][0]["systems"]
    assert systems == ["ref\nline", "\x1b[31mred", "z" * 10_000]


@POSIX_ONLY
def test_a_golden_file_name_that_is_not_utf8_is_recorded_escaped(suite: Suite) -> None:
    golden = suite.golden()
    name = os.fsdecode(b"gold\xff.jsonl")  # a Latin-1 file name on a UTF-8 system
    golden.rename(suite.path / name)
    suite.make(SOURCE.replace('"golden.jsonl"', f"{name!r}"))
    (suite.path / "golden.jsonl").unlink()
    result = suite.run("--ragcheck-history=h.jsonl", "--ragcheck-report=r.json")
    result.assert_outcomes(passed=1)
    Suite.assert_clean(result)
    (line,) = [json.loads(text) for text in (suite.path / "h.jsonl").read_bytes().splitlines()]
    assert line["source"] == name  # \udcff in the JSON text: valid UTF-8, read back as written


@POSIX_ONLY
def test_a_branch_name_that_is_not_utf8_does_not_stop_the_history(suite: Suite) -> None:
    suite.make(SOURCE)
    git = suite.pytester
    assert git.run("git", "init", "-q", "-b", os.fsdecode(b"br\xff")).ret == 0
    identity = ["-c", "user.email=t@example.invalid", "-c", "user.name=t"]
    assert git.run("git", *identity, "commit", "-q", "--allow-empty", "-m", "x").ret == 0
    result = suite.run("--ragcheck-history=h.jsonl")
    result.assert_outcomes(passed=1)
    Suite.assert_clean(result)
    (line,) = [json.loads(text) for text in (suite.path / "h.jsonl").read_bytes().splitlines()]
    assert line["branch"] == "br\N{REPLACEMENT CHARACTER}"
    assert line["commit"]
