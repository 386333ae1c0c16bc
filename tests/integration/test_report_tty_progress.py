"""Live progress: drawn in place on a real terminal (a pty), absent from logs."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time

SLOW = """
import time

from pytest_ragcheck import ragcheck
def slow(query):
    time.sleep(0.3)
    return ["a", "b", "c", "d", "e"]

@ragcheck("golden.jsonl", baseline=False, concurrency=1, metrics=["hit_rate"])
def test_slow(ragcheck):
    ragcheck(slow)
"""


def _run_in_terminal(cwd, *args: str, timeout: float = 120) -> str:
    """pytest in a pseudo-terminal 120 columns wide; everything it printed."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "PY_COLORS", "CI")}
    env.update(TERM="xterm-256color", COLUMNS="120")
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
    )
    os.close(slave)
    out = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 1 << 16)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                out += chunk
            elif proc.poll() is not None:
                break
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)
        os.close(master)
    return out.decode("utf-8", errors="replace")


def test_progress_line_on_a_terminal(suite):
    suite.golden()
    suite.test(SLOW)
    out = _run_in_terminal(suite.path)
    assert re.search(r"1 passed", out), out
    # Drawn after pytest's own text without moving the cursor (save, text, clear, restore)...
    draws = re.findall(r"\x1b7 (ragcheck: cases (\d)/4[^\x1b]*)\x1b\[K\x1b8", out)
    assert draws, out
    assert all(int(done) < 4 for _, done in draws)
    assert any("ETA 0:0" in text for text, _ in draws)
    # ...and erased before pytest writes the test's result (a green dot) on that line.
    assert re.search(r"test_rag\.py \x1b7[^\n]*\x1b8\x1b\[K(?:\x1b\[\d+m)*\.", out), out


def test_no_progress_in_logs(suite):
    suite.golden()
    suite.test(SLOW)
    result = suite.run()  # stdout is not a terminal (xdist workers never draw at all)
    result.assert_outcomes(passed=1)
    text = suite.text(result)
    assert "\x1b" not in text
    assert "ragcheck: cases" not in text
