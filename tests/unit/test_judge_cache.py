"""The verdict cache: content addressing, atomic readable entries, corruption, concurrency."""

from __future__ import annotations

import inspect
import json
import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pytest_ragcheck.judge.cache import VerdictCache, cache_key, public_api_base
from pytest_ragcheck.judge.prompts import GRADE, RELEVANCE
from pytest_ragcheck.judge.render import render_pair

MESSAGES = render_pair(RELEVANCE, query="what is alpha", chunk="alpha is a letter")
BASE: dict[str, Any] = {
    "model": "openai/judge",
    "api_base": "http://localhost:8000/v1",
    "prompt": RELEVANCE,
    "messages": MESSAGES,
    "sampling": {"temperature": 0.0},
}
ANSWER = {"verdict": "yes", "reason": "it defines alpha"}


def _put(cache: VerdictCache, key: str, answer: dict[str, Any] = ANSWER) -> str | None:
    return cache.put(
        RELEVANCE,
        key,
        model="openai/judge",
        api_base="http://localhost:8000/v1",
        sampling={"temperature": 0.0},
        inputs={"query": "what is alpha", "chunk": "alpha is a letter"},
        answer=answer,
    )


def test_key_is_stable_and_hex() -> None:
    key = cache_key(**BASE)
    assert key == cache_key(**BASE)
    assert len(key) == 64
    int(key, 16)


@pytest.mark.parametrize(
    "change",
    [
        {"model": "openai/other"},
        {"api_base": "http://localhost:9000/v1"},
        {"api_base": None},
        {"prompt": replace(RELEVANCE, version=RELEVANCE.version + 1)},
        {"prompt": GRADE},
        {"messages": render_pair(RELEVANCE, query="what is alpha", chunk="alpha is a vowel")},
        {"sampling": {"temperature": 0.7, "sample": 0}},
    ],
    ids=["model", "api_base", "no-api_base", "prompt-version", "prompt", "messages", "sampling"],
)
def test_every_input_of_the_answer_changes_the_key(change: dict[str, Any]) -> None:
    assert cache_key(**{**BASE, **change}) != cache_key(**BASE)


def test_key_takes_no_secret_and_strips_credentials_from_api_base() -> None:
    params = set(inspect.signature(cache_key).parameters)
    assert params == {"model", "api_base", "prompt", "messages", "sampling"}
    with_user = cache_key(**{**BASE, "api_base": "http://user:s3cret@localhost:8000/v1?key=abc"})
    assert with_user == cache_key(**BASE)
    assert public_api_base("https://u:p@host.example:8443/v1/?api-key=xyz#f") == (
        "https://host.example:8443/v1"
    )
    assert public_api_base(None) is None
    assert public_api_base("http://localhost:8000/v1/") == "http://localhost:8000/v1"


def test_put_then_get_round_trips_and_reads_well_in_a_diff(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path)
    key = cache_key(**BASE)
    assert cache.get(RELEVANCE, key).answer is None
    assert _put(cache, key) is None
    read = cache.get(RELEVANCE, key)
    assert read.answer == ANSWER
    assert read.problem is None
    path = cache.path(RELEVANCE, key)
    assert path == tmp_path / "relevance" / key[:2] / f"{key}.json"
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    assert len(text.splitlines()) > 10  # indented, one field per line
    entry = json.loads(text)
    assert entry["prompt"] == "relevance@1"
    assert entry["input"] == {"query": "what is alpha", "chunk": "alpha is a letter"}
    assert entry["answer"] == ANSWER
    assert list(tmp_path.rglob("*.tmp")) == []


def test_an_entry_never_holds_credentials(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path)
    key = cache_key(**BASE)
    cache.put(
        RELEVANCE,
        key,
        model="openai/judge",
        api_base="https://user:pw-secret@host/v1?api_key=query-secret",
        sampling={"temperature": 0.0},
        inputs={"query": "q", "chunk": "c"},
        answer=ANSWER,
    )
    text = cache.path(RELEVANCE, key).read_text(encoding="utf-8")
    assert "secret" not in text
    assert json.loads(text)["api_base"] == "https://host/v1"


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "corrupt cache entry"),
        ('["a list"]', "not a JSON object"),
        ('{"key": "someone-else", "answer": {"verdict": "yes", "reason": ""}}', "key does not"),
        ("KEY_PLACEHOLDER_BAD_ANSWER", "wrong shape"),
        ("", "corrupt cache entry"),
    ],
)
def test_a_corrupt_entry_is_reported_and_treated_as_a_miss(
    tmp_path: Path, content: str, problem: str
) -> None:
    cache = VerdictCache(tmp_path)
    key = cache_key(**BASE)
    if content == "KEY_PLACEHOLDER_BAD_ANSWER":
        content = json.dumps({"key": key, "answer": {"verdict": "perhaps", "reason": ""}})
    path = cache.path(RELEVANCE, key)
    path.parent.mkdir(parents=True)
    path.write_text(content, encoding="utf-8")
    read = cache.get(RELEVANCE, key)
    assert read.answer is None
    assert read.problem is not None
    assert problem in read.problem
    assert f"relevance/{key[:2]}/{key}.json" in read.problem
    assert str(tmp_path) in read.problem
    assert "judging it again" in read.problem


def test_an_unwritable_cache_reports_instead_of_raising(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    cache = VerdictCache(blocker)
    problem = _put(cache, cache_key(**BASE))
    assert problem is not None
    assert "cannot write cache entry" in problem


def _write_many(root: str, start: int, count: int) -> int:
    cache = VerdictCache(Path(root))
    for i in range(start, start + count):
        key = cache_key(**{**BASE, "sampling": {"temperature": 0.0, "n": i % 40}})
        _put(cache, key, {"verdict": "yes", "reason": f"writer {start}"})
    return count


def test_concurrent_threads_and_processes_never_corrupt_or_lose_entries(tmp_path: Path) -> None:
    # Two processes (like two pytest-xdist workers) and four threads write overlapping keys.
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=2, mp_context=ctx) as pool:
        futures = [pool.submit(_write_many, str(tmp_path), s, 40) for s in (0, 1000)]
        threads = [
            threading.Thread(target=_write_many, args=(str(tmp_path), s, 40))
            for s in (0, 7, 13, 21)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [f.result() for f in futures] == [40, 40]
    cache = VerdictCache(tmp_path)
    for n in range(40):
        key = cache_key(**{**BASE, "sampling": {"temperature": 0.0, "n": n}})
        read = cache.get(RELEVANCE, key)
        assert read.problem is None
        assert read.answer is not None
        assert read.answer["verdict"] == "yes"
    assert len(list(tmp_path.rglob("*.json"))) == 40
    assert list(tmp_path.rglob("*.tmp")) == []


def test_embedding_entries_are_journaled_so_prune_keeps_them_and_lists_them(
    tmp_path: Path,
) -> None:
    from pytest_ragcheck.judge import journal
    from pytest_ragcheck.judge.cache import embedding_key
    from pytest_ragcheck.plugin.prune import cache_entries

    journal.clear()
    cache = VerdictCache(tmp_path)
    key = embedding_key(model="emb", api_base=None, text="what is lift?")
    name = f"embedding/{key[:2]}/{key}.json"
    assert (
        cache.put_embedding(
            key, model="emb", api_base=None, text="what is lift?", vector=[1.0, 0.5]
        )
        is None
    )
    assert journal.snapshot()[str(tmp_path.resolve())] == {"new": [name]}
    journal.clear()
    assert cache.get_embedding(key) == [1.0, 0.5]
    assert journal.snapshot()[str(tmp_path.resolve())] == {"hit": [name]}
    assert cache_entries(tmp_path) == [name]
    journal.clear()
