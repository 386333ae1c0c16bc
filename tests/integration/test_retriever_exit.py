"""``pytest.exit()`` inside a retriever stops the session, as it does in any test: its message
and return code, the remaining cases and tests not run, however the cases run. ``sys.exit()``,
``pytest.skip()`` and ``pytest.fail()`` stay each case's error (test_explore_runner.py)."""

from __future__ import annotations

import pytest

TEST = """
from conftest import {name}
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=2, baseline=False, metrics=["mrr"]{extra})
def test_rag(ragcheck):
    ragcheck({name})

def test_after():
    pass
"""

RETRIEVERS = """
import asyncio
import itertools
import pathlib

import pytest

CALLS = itertools.count(1)

def _call():
    n = next(CALLS)
    with open("calls.txt", "a") as f:
        f.write(f"{n}\\n")
    if n == 3:
        pytest.exit("the index is gone, stopping", returncode=7)

def exits(query):
    _call()
    return lookup(query)

async def async_exits(query):
    await asyncio.sleep(0.001)
    _call()
    return lookup(query)

def lazy_exits(query):
    yield from lookup(query)
    _call()

def batch_exits(queries):
    _call()
    return [lookup(q) for q in queries]

async def async_batch_exits(queries):
    _call()
    return [lookup(q) for q in queries]
"""

#: Queries (and batches of one) enough that a run that went on would be seen.
CASES = [{"id": f"c{i}", "query": f"query {i}", "expected_ids": ["d1"]} for i in range(30)]

MODES = [
    pytest.param("exits", ", concurrency=1, timeout=None", id="calling-thread"),
    pytest.param("exits", "", id="threads"),
    pytest.param("exits", ", concurrency=4", id="concurrent"),
    pytest.param("lazy_exits", "", id="lazy-hits"),
    pytest.param("async_exits", "", id="async"),
    pytest.param("async_exits", ", concurrency=1", id="async-serial"),
    pytest.param("batch_exits", ", batch_size=1, timeout=None", id="batches"),
    pytest.param("batch_exits", ", batch_size=1, concurrency=4", id="batches-threads"),
    pytest.param("async_batch_exits", ", batch_size=1", id="async-batches"),
]


def _make(suite, name, extra):
    suite.make(TEST.format(name=name, extra=extra), cases=CASES, extra=RETRIEVERS)


@pytest.mark.parametrize(("name", "extra"), MODES)
def test_pytest_exit_in_a_retriever_stops_the_session(suite, name, extra):
    _make(suite, name, extra)
    result = suite.run()
    text = suite.text(result)
    assert result.ret == 7, text
    assert "Exit: the index is gone, stopping" in text
    assert "The retriever failed" not in text
    result.assert_outcomes()  # neither test reported: the session stopped in the first
    calls = (suite.path / "calls.txt").read_text().split()
    assert len(calls) < 3 + 8, calls  # the calls in flight end; no more start


@pytest.mark.slow
def test_pytest_exit_in_a_retriever_under_xdist_is_like_a_tests_own(suite):
    """pytest-xdist has its own way with ``pytest.exit()`` in a worker (it reports the worker's
    test as a crash); a retriever's gives the same session as a test's own."""
    _make(suite, "exits", "")
    suite.write(
        "test_plain.py",
        "import pytest\n\ndef test_plain():\n    pytest.exit('stop', returncode=7)\n",
    )
    plain = suite.run("-n", "2", "test_plain.py")
    result = suite.run("-n", "2", "test_rag.py")
    text = suite.text(result)
    assert result.ret == plain.ret, text
    assert "The retriever failed" not in text
    assert "test_rag.py::test_rag" in text  # named as the test the worker stopped in
