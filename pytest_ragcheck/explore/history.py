"""``--ragcheck-history=FILE``: one JSON line per ragcheck test per run, and the trend it gives.

Each line (format 1) holds ``format``, ``timestamp`` (UTC, ISO 8601), ``commit`` and
``branch`` (``null`` outside a git checkout), ``test`` (node id), ``call`` (0 for the first
``ragcheck(...)`` call of the test), ``source``, ``golden_hash``, ``k``, ``n_cases``,
``status``, ``metrics`` (name -> mean) and ``judge_model``; a session that did not run every
selected test (Ctrl-C, ``-x``) adds ``incomplete``, why: its lines are whole results, but the
run lacks tests a trend reader would expect. Only the controller writes, once at the end of
the run and with a single append, so a ``-n 2`` run adds whole lines and two runs sharing the
file do not interleave within a line. An append is all or nothing: one that fails part-way (a
full disk) cuts the file back to where it began. The file is otherwise only ever appended to:
a line that does not parse stops the append (with the line number) and nothing is rewritten,
but for a last line cut short (an earlier version's append that failed part-way), which is
skipped with a warning and dropped when the next lines are appended.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import subprocess
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pytest_ragcheck.common.display import shown_id
from pytest_ragcheck.common.errors import RagcheckError

__all__ = [
    "FORMAT",
    "HistoryError",
    "append_lines",
    "git_info",
    "history_lines",
    "read_history",
    "trend",
]

FORMAT = 1
#: Runs the HTML report draws per test (the newest); the file itself keeps everything.
MAX_RUNS = 60


class HistoryError(RagcheckError):
    """The history file cannot be read as history lines."""


def _git(args: Sequence[str], cwd: Path) -> str | None:
    try:
        # errors="replace": a branch named in another encoding than UTF-8 is still a label
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    text = done.stdout.strip()
    return text if done.returncode == 0 and text else None


def git_info(rootdir: Path, environ: Mapping[str, str] | None = None) -> dict[str, str | None]:
    """The checked-out commit and branch; a detached CI checkout names its branch in the
    environment (GitHub Actions), anything else unknown is ``None``."""
    env = os.environ if environ is None else environ
    commit = _git(["rev-parse", "HEAD"], rootdir)
    branch = _git(["symbolic-ref", "--short", "-q", "HEAD"], rootdir) if commit else None
    if commit and branch is None:
        branch = env.get("GITHUB_HEAD_REF") or env.get("GITHUB_REF_NAME") or None
    return {"commit": commit, "branch": branch}


def history_lines(
    document: Mapping[str, Any], *, git: Mapping[str, str | None], timestamp: datetime | None = None
) -> list[dict[str, Any]]:
    """The lines of one run: one per test entry of the report document."""
    when = (timestamp or datetime.now(UTC)).isoformat(timespec="seconds")
    incomplete = (document.get("run") or {}).get("incomplete")
    lines = []
    for test in document.get("tests") or []:
        judge = (test.get("config") or {}).get("judge") or {}
        lines.append(
            {
                **({"incomplete": incomplete} if incomplete else {}),
                "format": FORMAT,
                "timestamp": when,
                "commit": git.get("commit"),
                "branch": git.get("branch"),
                "test": test["nodeid"],
                "call": test.get("call", 0),
                "source": test.get("source"),
                "golden_hash": test.get("golden_hash"),
                "k": test.get("k"),
                "n_cases": test.get("n_cases"),
                "status": test.get("status"),
                "metrics": dict(test.get("aggregates") or {}),
                "judge_model": judge.get("model"),
            }
        )
    return lines


def read_history(path: Path, warnings: list[str] | None = None) -> list[dict[str, Any]]:
    """Every line of ``path`` (none when it does not exist); a bad line is a HistoryError.

    A last line without its newline that is not JSON was cut short by an append that did
    not finish: it is skipped, and what was skipped is added to ``warnings``. Only a regular
    file is read: a FIFO or a device (``/dev/null``, ``/dev/full``) has no history, and
    reading one to its end would block or never finish.
    """
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return []
        raw = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise HistoryError(f"cannot read the history file {path}: {exc.strerror or exc}") from None
    entries: list[dict[str, Any]] = []
    lines = raw.split(b"\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError as exc:
            if number == len(lines):  # no newline after it: cut short
                if warnings is not None:
                    warnings.append(_cut_warning(path, number, line))
                continue
            problem = f"is not JSON ({exc})"
        else:
            problem = _problem(entry)
        if problem:
            raise HistoryError(
                f"history file {path}, line {number} {problem}; the file was left as it is and "
                "this run was not added: fix or delete that line (each line is one JSON object, "
                "see docs/reports.md)"
            )
        entries.append(entry)
    return entries


def _cut_warning(path: Path, number: int, line: bytes) -> str:
    start = shown_id(line.decode("utf-8", "replace"), 40)
    return (
        f"history file {path}, line {number} is cut short ({start}, {len(line)} bytes: an "
        "append that did not finish, e.g. on a full disk): skipped; it is dropped when this "
        "run's lines are appended"
    )


def _problem(entry: object) -> str:
    if not isinstance(entry, dict):
        return "is not a JSON object"
    if not isinstance(entry.get("test"), str) or not isinstance(entry.get("metrics"), dict):
        return "has no 'test' name or no 'metrics' object"
    if isinstance(entry.get("format"), int) and entry["format"] > FORMAT:
        return f"has format {entry['format']}, written by a newer pytest-ragcheck"
    return ""


def append_lines(path: Path, lines: Sequence[Mapping[str, Any]]) -> None:
    """Append ``lines`` with one write, all or nothing: whole lines, a missing final newline
    supplied, a last line cut short dropped first; a write that fails part-way is undone."""
    if not lines:
        return
    text = "".join(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n" for line in lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        start = _whole_lines_end(fd)
        if start < os.fstat(fd).st_size:
            os.ftruncate(fd, start)  # the rest of a line an earlier append did not finish
        elif start and os.pread(fd, 1, start - 1) != b"\n":
            text = "\n" + text  # a whole last line, written by hand without its newline
        # A text read with surrogateescape (a file name not in UTF-8) keeps its lone surrogate
        # as the JSON escape ``\udcff``: valid UTF-8, and json reads it back as it was.
        data = text.encode("utf-8", "backslashreplace")
        try:
            while data:
                data = data[os.write(fd, data) :]
        except BaseException:
            # A full disk took part of it: no half line may stay for the next run to trip on.
            # (Another run appending meanwhile would lose its lines too; runs end apart.)
            with contextlib.suppress(OSError):  # a device (/dev/full) cannot be truncated
                os.ftruncate(fd, start)
            raise
    finally:
        os.close(fd)


def _whole_lines_end(fd: int) -> int:
    """Where the file's whole lines end: its size, unless its last line (no newline after
    it) is not JSON, which is then where that line starts."""
    size = os.fstat(fd).st_size
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return size
    end = size
    while end > 0:  # back to the last newline, a block at a time
        block = os.pread(fd, min(end, 65536), max(0, end - 65536))
        cut = block.rfind(b"\n")
        if cut >= 0:
            end = end - len(block) + cut + 1
            break
        end -= len(block)
    try:
        json.loads(os.pread(fd, size - end, end))
    except ValueError:  # cut short, as read_history skips it
        return end
    return size


def trend(
    entries: Sequence[Mapping[str, Any]], document: Mapping[str, Any], *, file: str
) -> dict[str, Any]:
    """``document["history"]``: per test of this run, the recorded runs and its baseline."""
    tests = []
    # the lines grouped once by test and call: a long history (100,000 lines) read for each
    # of 500 tests took 20 s at the end of every run
    by_test: dict[tuple[str, object], list[Mapping[str, Any]]] = {}
    for e in entries:
        call = e.get("call", 0)
        if isinstance(call, int | float | str):  # a hand-edited list or object matches nothing
            by_test.setdefault((e["test"], call), []).append(e)
    for test in document.get("tests") or []:
        key = (test["nodeid"], test.get("call", 0))
        runs = [
            {
                "timestamp": _text(e.get("timestamp")),
                "commit": _text(e.get("commit")),
                "branch": _text(e.get("branch")),
                "metrics": {str(n): v for n, v in e["metrics"].items() if _number(v)},
            }
            for e in by_test.get(key, [])[-MAX_RUNS:]
        ]
        metrics = [m["name"] for m in test.get("metrics") or [] if " [tag " not in m["name"]]
        baseline = {
            m["name"]: m["baseline"]
            for m in test.get("metrics") or []
            if m["name"] in metrics and m.get("baseline") is not None
        }
        tests.append(
            {
                "nodeid": key[0],
                "call": key[1],
                "metrics": metrics,
                "baseline": baseline or None,
                "runs": runs,
            }
        )
    return {"file": file, "lines": len(entries), "tests": tests}


def _text(value: object) -> str | None:
    """A string field as written, anything else (a hand-edited line) as unknown."""
    return value if isinstance(value, str) else None


def _number(value: object) -> bool:
    """A value to draw: a finite float (a hand-written ``NaN`` or ``1e999``, or an integer too
    large for a float, must not stop the report)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # int beyond float range
        return False
