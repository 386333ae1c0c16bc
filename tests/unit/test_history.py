"""The history file: appends, reading back, damaged lines, git fields, trend data; and the
verdict cache entry listing that prune works from."""

from __future__ import annotations

import errno
import json
import os
import subprocess
from pathlib import Path

import pytest

from pytest_ragcheck.explore.history import (
    FORMAT,
    HistoryError,
    append_lines,
    git_info,
    read_history,
    trend,
)
from pytest_ragcheck.plugin.prune import cache_entries, delete_entries

LINE = {"format": FORMAT, "test": "t.py::test_a", "call": 0, "metrics": {"mrr@10": 0.5}}


def test_append_adds_whole_lines_and_supplies_a_missing_newline(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "history.jsonl"
    append_lines(path, [LINE])
    assert read_history(path) == [LINE]
    path.write_bytes(path.read_bytes().rstrip(b"\n"))  # a hand edit without the final newline
    append_lines(path, [LINE, {**LINE, "call": 1}])
    assert [e["call"] for e in read_history(path)] == [0, 0, 1]
    assert path.read_bytes().count(b"\n") == 3
    append_lines(path, [])
    assert path.read_bytes().count(b"\n") == 3


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (b'{"test": "a", "metrics": {}}\n[1, 2]\n', "line 2 is not a JSON object"),
        (b'\n{"test": "a"}\n', "line 2 has no 'test' name or no 'metrics' object"),
        (b'{"test": "a", "metr\n', "line 1 is not JSON"),
        (
            b'{"test": "a", "metrics": {}, "format": 99}\n',
            "line 1 has format 99, written by a newer",
        ),
    ],
)
def test_a_damaged_line_names_its_number(tmp_path: Path, text: bytes, problem: str) -> None:
    path = tmp_path / "h.jsonl"
    path.write_bytes(text)
    with pytest.raises(HistoryError, match=problem):
        read_history(path)
    assert path.read_bytes() == text


def test_an_append_that_fails_part_way_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk after part of the lines: the file is cut back to where the append began
    (no half line for every later run to trip on), and the error reaches the caller."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(json.dumps(LINE).encode() + b"\n")
    before = path.read_bytes()
    real_write = os.write
    written: list[int] = []

    def fill_up(fd: int, data: bytes) -> int:
        if written:
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(real_write(fd, data[: len(data) // 2]))
        return written[-1]

    monkeypatch.setattr("pytest_ragcheck.explore.history.os.write", fill_up)
    with pytest.raises(OSError, match="No space left"):
        append_lines(path, [LINE, {**LINE, "call": 1}])
    monkeypatch.undo()
    assert written[0] > 0  # half of it had reached the file
    assert path.read_bytes() == before
    append_lines(path, [{**LINE, "call": 2}])
    assert [e["call"] for e in read_history(path)] == [0, 2]


def test_a_missing_newline_is_taken_back_with_a_failed_append(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "h.jsonl"
    path.write_bytes(json.dumps(LINE).encode())  # a whole line, by hand, without its newline

    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("pytest_ragcheck.explore.history.os.write", full)
    with pytest.raises(OSError):
        append_lines(path, [LINE])
    assert path.read_bytes() == json.dumps(LINE).encode()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_a_full_device_raises_the_os_error() -> None:
    with pytest.raises(OSError) as raised:
        append_lines(Path("/dev/full"), [LINE])
    assert raised.value.errno == errno.ENOSPC


def test_a_last_line_cut_short_is_skipped_with_a_warning_and_dropped_by_the_next_append(
    tmp_path: Path,
) -> None:
    """What an earlier version left after a failed append: every later run used to refuse
    the file ("line 2 is not JSON") until it was edited by hand."""
    path = tmp_path / "h.jsonl"
    whole = json.dumps(LINE).encode() + b"\n"
    path.write_bytes(whole + b'{"test": "t.py::test_a", "metr\x1b[31m')
    warnings: list[str] = []
    assert read_history(path, warnings) == [LINE]
    assert warnings == [
        f'history file {path}, line 2 is cut short ({{"test": "t.py::test_a", "metr'
        "\\x1b[31m, 35 bytes: an append that did not finish, e.g. on a full disk): skipped; "
        "it is dropped when this run's lines are appended"
    ]
    assert read_history(path) == [LINE]  # no list given: skipped all the same
    append_lines(path, [{**LINE, "call": 1}])
    assert path.read_bytes().startswith(whole + b"{")
    warnings.clear()
    assert [e["call"] for e in read_history(path, warnings)] == [0, 1]
    assert warnings == []


def test_a_line_that_is_not_json_before_the_last_is_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    text = b'{"test": "a", "metr\n' + json.dumps(LINE).encode() + b"\n"
    path.write_bytes(text)
    with pytest.raises(HistoryError, match="line 1 is not JSON"):
        read_history(path, [])
    assert path.read_bytes() == text


def test_a_missing_file_is_an_empty_history(tmp_path: Path) -> None:
    assert read_history(tmp_path / "none.jsonl") == []


def test_git_fields_outside_and_inside_a_checkout(tmp_path: Path) -> None:
    assert git_info(tmp_path) == {"commit": None, "branch": None}
    run = ["git", "-C", str(tmp_path), "-c", "user.email=t@example.invalid", "-c", "user.name=t"]
    subprocess.run([*run, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*run, "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    info = git_info(tmp_path, environ={})
    assert info["branch"] == "main"
    assert len(str(info["commit"])) == 40
    subprocess.run([*run, "checkout", "-q", "--detach"], check=True)
    assert git_info(tmp_path, environ={})["branch"] is None
    assert git_info(tmp_path, environ={"GITHUB_HEAD_REF": "feature"})["branch"] == "feature"


def test_trend_keeps_each_test_and_call_apart_with_its_baseline() -> None:
    entries = [
        {**LINE, "timestamp": "t1", "metrics": {"mrr@10": 0.4, "note": "x"}},
        {**LINE, "call": 1, "timestamp": "t1", "metrics": {"mrr@10": 0.9}},
        {**LINE, "timestamp": "t2", "metrics": {"mrr@10": 0.6}},
        {**LINE, "test": "other", "timestamp": "t2", "metrics": {"mrr@10": 0.1}},
    ]
    document = {
        "tests": [
            {
                "nodeid": "t.py::test_a",
                "call": 0,
                "metrics": [
                    {"name": "mrr@10", "baseline": 0.5},
                    {"name": "mrr@10 [tag a]", "baseline": 0.2},
                ],
            }
        ]
    }
    data = trend(entries, document, file="h.jsonl")
    assert data["lines"] == 4
    (test,) = data["tests"]
    assert test["metrics"] == ["mrr@10"]
    assert test["baseline"] == {"mrr@10": 0.5}
    assert [r["metrics"] for r in test["runs"]] == [{"mrr@10": 0.4}, {"mrr@10": 0.6}]


def test_cache_entries_are_the_content_addressed_files_only(tmp_path: Path) -> None:
    key = "ab" + "0" * 62
    entry = tmp_path / "relevance" / "ab" / f"{key}.json"
    entry.parent.mkdir(parents=True)
    entry.write_text(json.dumps({"key": key}))
    (tmp_path / "relevance" / "ab" / ".tmp-123.tmp").write_text("")
    (tmp_path / "README.json").write_text("{}")
    (tmp_path / "relevance" / "ab" / "notes.json").write_text("{}")
    assert cache_entries(tmp_path) == [f"relevance/ab/{key}.json"]
    assert delete_entries(tmp_path, [f"relevance/ab/{key}.json", "relevance/cd/gone.json"]) == 1
    assert (tmp_path / "relevance" / "ab").is_dir()  # still holds other files
    (tmp_path / "relevance" / "ab" / ".tmp-123.tmp").unlink()
    (tmp_path / "relevance" / "ab" / "notes.json").unlink()
    key2 = "cd" + "1" * 62
    other = tmp_path / "relevance" / "cd" / f"{key2}.json"
    other.parent.mkdir()
    other.write_text("{}")
    delete_entries(tmp_path, [f"relevance/cd/{key2}.json"])
    assert not (tmp_path / "relevance" / "cd").exists()
    assert cache_entries(tmp_path / "missing") == []
