"""Verdict cache entries that are not what they seem: nested too deeply, a FIFO, a folder,
a runaway reason. Each is reported like any damaged entry and judged again, never a crash or
a hang."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from pytest_ragcheck.common.display import TEXT_LIMIT
from pytest_ragcheck.judge.cache import VerdictCache, cache_key, embedding_key
from pytest_ragcheck.judge.prompts import RELEVANCE
from pytest_ragcheck.judge.render import render_pair

KEY = cache_key(
    model="openai/judge",
    api_base=None,
    prompt=RELEVANCE,
    messages=render_pair(RELEVANCE, query="what is alpha", chunk="alpha is a letter"),
    sampling={"temperature": 0.0},
)
ANSWER = {"verdict": "yes", "reason": "it defines alpha"}
T = TypeVar("T")
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")


def _put(cache: VerdictCache, answer: dict[str, str] = ANSWER) -> str | None:
    return cache.put(
        RELEVANCE,
        KEY,
        model="openai/judge",
        api_base=None,
        sampling={"temperature": 0.0},
        inputs={"query": "what is alpha", "chunk": "alpha is a letter"},
        answer=answer,
    )


def _entry(cache: VerdictCache) -> Path:
    path = cache.path(RELEVANCE, KEY)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_an_entry_nested_fifty_thousand_levels_deep_is_damaged(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path)
    deep = "[" * 50_000 + "]" * 50_000
    _entry(cache).write_text(f'{{"key": "{KEY}", "answer": {deep}}}', encoding="utf-8")
    read = cache.get(RELEVANCE, KEY)
    assert read.answer is None
    assert read.problem == (
        f"corrupt cache entry relevance/{KEY[:2]}/{KEY}.json (lists or objects nested too "
        f"deeply) in {tmp_path}; judging it again"
    )
    assert _put(cache) is None  # the fresh verdict replaces it
    assert cache.get(RELEVANCE, KEY).answer == ANSWER


def test_a_deep_embedding_entry_is_fetched_again(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path)
    key = embedding_key(model="emb", api_base=None, text="lift")
    path = tmp_path / "embedding" / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True)
    deep = "[" * 50_000
    path.write_text(f'{{"key": "{key}", "embedding": {deep}}}', encoding="utf-8")
    assert cache.get_embedding(key) is None


def _unblocked(fifo: Path, read: Callable[[], T]) -> T:
    """``read()``, which must return at once although ``fifo`` has no writer; a blocked read
    is released (a writer opens and closes the FIFO) and the test fails."""
    results: list[T] = []
    reader = threading.Thread(target=lambda: results.append(read()), daemon=True)
    reader.start()
    reader.join(timeout=5)
    if reader.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=5)
        pytest.fail(f"reading the FIFO {fifo} blocked")
    return results[0]


@needs_fifo
def test_a_fifo_entry_is_never_opened_for_reading(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path)
    path = _entry(cache)
    os.mkfifo(path)
    read = _unblocked(path, lambda: cache.get(RELEVANCE, KEY))
    assert read.answer is None
    assert read.problem == (
        f"cannot read cache entry {path}: it is a FIFO, not a regular file; judging it again"
    )
    assert _put(cache) is None  # the fresh verdict replaces the FIFO with a regular file
    assert path.is_file()
    assert cache.get(RELEVANCE, KEY).answer == ANSWER


@needs_fifo
def test_a_fifo_embedding_entry_is_fetched_again(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path)
    key = embedding_key(model="emb", api_base=None, text="lift")
    path = tmp_path / "embedding" / key[:2] / f"{key}.json"
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    assert _unblocked(path, lambda: cache.get_embedding(key)) is None


def test_a_folder_in_place_of_an_entry_is_reported(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path)
    _entry(cache).mkdir()
    read = cache.get(RELEVANCE, KEY)
    assert read.answer is None
    assert read.problem is not None
    assert read.problem.startswith(f"cannot read cache entry {cache.path(RELEVANCE, KEY)}")


def test_a_runaway_reason_is_stored_cut_to_what_reports_show(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path)
    reason = "r" * 30_000_000
    assert _put(cache, {"verdict": "no", "reason": reason}) is None
    path = cache.path(RELEVANCE, KEY)
    assert path.stat().st_size < 2_000
    stored = json.loads(path.read_text(encoding="utf-8"))["answer"]["reason"]
    assert stored == "r" * (TEXT_LIMIT - 1) + "…"
    assert cache.get(RELEVANCE, KEY).answer == {"verdict": "no", "reason": stored}


def test_an_old_entry_with_a_long_reason_reads_cut(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path)
    entry = {"key": KEY, "answer": {"verdict": "yes", "reason": "x" * 5000}}
    _entry(cache).write_text(json.dumps(entry), encoding="utf-8")
    answer = cache.get(RELEVANCE, KEY).answer
    assert answer is not None
    assert len(answer["reason"]) == TEXT_LIMIT
    assert answer["reason"].endswith("…")


def test_a_hex_secret_sharing_digits_with_the_key_leaves_the_entry_readable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entry's own hash is never masked, even where a piece of a hex token shows in it."""
    monkeypatch.setenv("DEPLOY_TOKEN", KEY[10:30] + "00ff00ff00ff")
    cache = VerdictCache(tmp_path)
    assert _put(cache, {"verdict": "yes", "reason": f"echo {KEY[10:30]}"}) is None
    read = cache.get(RELEVANCE, KEY)
    assert read.problem is None
    assert read.answer == {"verdict": "yes", "reason": "echo [redacted]"}
