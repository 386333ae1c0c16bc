"""Live progress on a terminal.

On an interactive terminal a long evaluation shows one line that updates in place (cases
done / total, judge calls made / cached, ETA), drawn after pytest's own output on the current
line and erased when the stage ends. In CI logs (no TTY), under ``TERM=dumb`` and on
pytest-xdist workers nothing is drawn, so logs stay as pytest writes them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_ragcheck.plugin.items import is_worker

if TYPE_CHECKING:
    import pytest

__all__ = ["LiveProgress", "format_eta", "make_live_progress"]

#: Seconds between two redraws.
REDRAW_EVERY = 0.1
#: Seconds an evaluation runs before the line appears (quick ones never flicker).
SHOW_AFTER = 0.5
_SAVE, _RESTORE, _CLEAR = "\x1b7", "\x1b8", "\x1b[K"


def format_eta(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


@dataclass(slots=True)
class _Stage:
    done: int = 0
    total: int = 0
    started: float = 0.0
    #: ``done`` at the first report: for the judge, the verdicts the cache answered.
    base: int = 0


@dataclass
class LiveProgress:
    """The callback given to the evaluation: ``progress(stage, done, total)``.

    Stages: ``"retrieve"`` (cases) and ``"judge"`` (judge calls). The first report of a stage
    is its starting point: the judge reports the verdicts its cache answered first, so they
    show as "cached" and do not count towards the ETA. ``write`` receives ready-made terminal
    text (ANSI cursor save/restore around the line); ``width`` is the room left on the line.
    """

    write: Callable[[str], None]
    width: Callable[[], int]
    clock: Callable[[], float] = time.monotonic
    show_after: float = SHOW_AFTER
    stages: dict[str, _Stage] = field(default_factory=dict)
    _first: float | None = None
    _last_draw: float = -1e9
    _drawn: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, stage: str, done: int, total: int) -> None:
        with self._lock:
            now = self.clock()
            if self._first is None:
                self._first = now
            state = self.stages.get(stage)
            if state is None or done < state.done:
                state = self.stages[stage] = _Stage(started=now, base=done)
            state.done, state.total = done, total
            if done >= total:
                self.clear()
                return
            if now - self._first < self.show_after or now - self._last_draw < REDRAW_EVERY:
                return
            self._last_draw = now
            self._draw(self.text(now))

    def text(self, now: float) -> str:
        parts = []
        retrieve = self.stages.get("retrieve")
        if retrieve is not None:
            parts.append(f"cases {retrieve.done}/{retrieve.total}")
        judge = self.stages.get("judge")
        current = retrieve
        if judge is not None:
            parts.append(f"judge calls {judge.done - judge.base}/{judge.total - judge.base}")
            if judge.base:
                parts[-1] += f" ({judge.base} cached)"
            if judge.done < judge.total:
                current = judge
        if current is not None:
            made = current.done - current.base
            if made > 0 and now - current.started >= 0.5:
                rate = (now - current.started) / made
                parts.append(f"ETA {format_eta(rate * (current.total - current.done))}")
        return "ragcheck: " + " · ".join(parts)

    def _draw(self, text: str) -> None:
        room = self.width()
        if room < 12:
            return
        shown = text if len(text) <= room else text[: room - 1] + "…"
        self.write(f"{_SAVE} {shown}{_CLEAR}{_RESTORE}")
        self._drawn = True

    def clear(self) -> None:
        """Erase the progress text (the cursor never moved, so pytest carries on)."""
        if self._drawn:
            self.write(_CLEAR)
            self._drawn = False


class _Cleanup:
    """Erases a leftover progress line when the test's report arrives (e.g. after Ctrl-C)."""

    def __init__(self, config: pytest.Config, progress: LiveProgress, nodeid: str) -> None:
        self.config = config
        self.progress = progress
        self.nodeid = nodeid

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.nodeid != self.nodeid:
            return
        with self.progress._lock:
            self.progress.clear()
        if self.config.pluginmanager.is_registered(self):
            self.config.pluginmanager.unregister(self)


def make_live_progress(config: pytest.Config, nodeid: str) -> LiveProgress | None:
    if is_worker(config):
        return None
    reporter: Any = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or not getattr(reporter, "isatty", False) or not reporter.hasmarkup:
        return None
    capman: Any = config.pluginmanager.get_plugin("capturemanager")
    tw = reporter._tw

    def write(text: str) -> None:
        if capman is None:
            tw.write(text, flush=True)
            return
        with capman.global_and_fixture_disabled():
            tw.write(text, flush=True)

    def width() -> int:
        return int(tw.fullwidth) - int(tw.width_of_current_line) - 2

    progress = LiveProgress(write=write, width=width)
    cleanup = _Cleanup(config, progress, nodeid)
    config.pluginmanager.register(cleanup)
    return progress
