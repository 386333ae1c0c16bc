"""The live progress line, driven with a fake clock and writer."""

from __future__ import annotations

import re

import pytest

from pytest_ragcheck.plugin.progress import LiveProgress, format_eta

ANSI = re.compile(r"\x1b(?:7|8|\[K)")


class Fake:
    def __init__(self, width: int = 200) -> None:
        self.now = 0.0
        self.out: list[str] = []
        self.room = width

    def progress(self) -> LiveProgress:
        return LiveProgress(
            write=self.out.append, width=lambda: self.room, clock=lambda: self.now, show_after=0.0
        )

    def shown(self) -> list[str]:
        return [ANSI.sub("", text).strip() for text in self.out]


def test_draws_in_place_and_clears_at_the_end():
    fake = Fake()
    progress = fake.progress()
    fake.now = 1.0
    progress("retrieve", 10, 100)
    fake.now = 2.0
    progress("retrieve", 20, 100)
    # Every draw saves the cursor, writes, clears the rest of the line and restores.
    assert all(t.startswith("\x1b7") and t.endswith("\x1b[K\x1b8") for t in fake.out)
    assert fake.shown() == ["ragcheck: cases 10/100", "ragcheck: cases 20/100 · ETA 0:08"]
    progress("retrieve", 100, 100)
    assert fake.out[-1] == "\x1b[K"  # erased: pytest's next character lands on a clean line


def test_quick_evaluations_draw_nothing():
    fake = Fake()
    progress = LiveProgress(write=fake.out.append, width=lambda: 100, clock=lambda: fake.now)
    for i in range(1, 11):
        fake.now = i * 0.04  # done in 0.4 s
        progress("retrieve", i, 10)
    assert fake.out == []  # nothing drawn, nothing to erase
    slow = LiveProgress(write=fake.out.append, width=lambda: 100, clock=lambda: fake.now)
    for i in range(1, 11):
        fake.now = 10 + i * 0.2  # 2 s
        slow("retrieve", i, 10)
    assert fake.out[0].startswith("\x1b7")
    assert fake.out[-1] == "\x1b[K"


def test_redraws_are_throttled():
    fake = Fake()
    progress = fake.progress()
    for i in range(1, 50):
        fake.now = i * 0.01  # 100 updates per second
        progress("retrieve", i, 1000)
    assert 4 <= len(fake.out) <= 6


def test_judge_calls_and_cached_verdicts():
    fake = Fake()
    progress = fake.progress()
    progress("retrieve", 50, 50)  # retrieval finished (nothing drawn, nothing to erase)
    assert fake.out == []
    fake.now = 10.0
    progress("judge", 30, 130)  # the judge first reports what its cache answered
    fake.now = 20.0
    progress("judge", 80, 130)
    assert fake.shown()[-1] == "ragcheck: cases 50/50 · judge calls 50/100 (30 cached) · ETA 0:10"


def test_nothing_drawn_without_room_and_text_is_cut_to_fit():
    fake = Fake(width=5)
    progress = fake.progress()
    progress("retrieve", 1, 10)
    assert fake.out == []
    fake.room = 20
    fake.now = 1.0
    progress("retrieve", 2, 10)
    assert len(fake.shown()[-1]) == 20
    assert fake.shown()[-1].endswith("…")


@pytest.mark.parametrize(
    ("seconds", "text"), [(0, "0:00"), (59.6, "1:00"), (125, "2:05"), (3725, "1:02:05")]
)
def test_format_eta(seconds, text):
    assert format_eta(seconds) == text
