"""Hostile retrievers through a real session: what they raise or return is the case's error,
named with its position, in every way of running them (in the calling thread, on worker
threads, async, in batches), never a traceback from inside the plugin."""

from __future__ import annotations

import pytest

TEST = """
from conftest import {name}
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=2, baseline=False, metrics=["mrr"]{extra})
def test_rag(ragcheck):
    result = ragcheck({name})
"""

RETRIEVERS = """
import asyncio

import pytest

def exits(query):
    raise SystemExit(3)

def skips(query):
    pytest.skip("the index is not built")

def fails(query):
    pytest.fail("the service said no")

async def async_exits(query):
    raise SystemExit(3)

async def async_skips(query):
    pytest.skip("the index is not built")

async def async_fails(query):
    pytest.fail("the service said no")

def batch_exits(queries):
    raise SystemExit(3)

def batch_skips(queries):
    pytest.skip("the index is not built")

def batch_fails(queries):
    pytest.fail("the service said no")

class Broken:
    def __getattr__(self, name):
        raise RuntimeError(f"lost connection while reading .{name}")

def broken_second_hit(query):
    return [lookup(query)[0], Broken()]

def batch_generator_raises(queries):
    yield lookup(queries[0])
    raise ValueError("encoder crashed")

async def async_generator_batches(queries):
    for query in queries:
        yield lookup(query)

def lazy_hits_per_query(queries):
    def hits(query):
        yield from lookup(query)
        if "beta" in query:
            raise ValueError("lost the beta shard")
    return [hits(query) for query in queries]


class NotConnected:
    @property
    def invoke(self):
        raise ValueError("the client is not connected")

not_connected = NotConnected()

class UnprintableError(Exception):
    def __str__(self):
        raise RuntimeError("cannot print this error")

def raises_unprintable(query):
    raise UnprintableError()

async def async_raises_unprintable(query):
    raise UnprintableError()

async def swallows_cancellation(query):
    if "beta" in query:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:  # a client that catches it and returns what it has
            return ["b"]
    return lookup(query)

async def batch_swallows_cancellation(queries):
    return [await swallows_cancellation(query) for query in queries]
"""

SERIAL = ", concurrency=1, timeout=None"


def _run(suite, name, extra=""):
    suite.make(TEST.format(name=name, extra=extra), extra=RETRIEVERS)
    result = suite.run()
    suite.assert_clean(result)
    return result, suite.text(result)


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("exits", "SystemExit: 3"),
        ("skips", "Skipped: the index is not built"),
        ("fails", "Failed: the service said no"),
    ],
)
@pytest.mark.parametrize(
    ("prefix", "extra"),
    [
        pytest.param("", SERIAL, id="calling-thread"),
        pytest.param("", "", id="threads"),
        pytest.param("async_", "", id="async"),
        pytest.param("batch_", ", batch_size=2, timeout=None", id="batches"),
        pytest.param("batch_", ", batch_size=2", id="batches-threads"),
    ],
)
def test_base_exceptions_are_each_cases_error_however_the_cases_run(
    suite, name, error, prefix, extra
):
    """``sys.exit()``, ``pytest.skip()`` or ``pytest.fail()`` inside a retriever fails its
    cases, as on worker threads: never a skipped test, nor a traceback through the plugin."""
    result, text = _run(suite, prefix + name, extra)
    result.assert_outcomes(failed=1)
    assert "The retriever failed on all 4 cases" in text
    assert error in text


@pytest.mark.parametrize("extra", [SERIAL, ""], ids=["calling-thread", "threads"])
def test_hit_whose_attribute_raises_names_the_hit(suite, extra):
    result, text = _run(suite, "broken_second_hit", extra)
    result.assert_outcomes(failed=1)
    assert (
        "TypeError: hit #2: reading conftest.Broken raised RuntimeError: lost connection "
        "while reading ." in text
    )


@pytest.mark.parametrize("extra", [", timeout=None", ""], ids=["calling-thread", "threads"])
def test_batch_generator_that_raises_fails_its_batch(suite, extra):
    result, text = _run(suite, "batch_generator_raises", ", batch_size=2" + extra)
    result.assert_outcomes(failed=1)
    # Both batches failed the same way: one error, every case named.
    assert "4 cases: ValueError: encoder crashed (batch 1 of 2, cases 1-2)" in text
    assert "q1, q2, q3, q4 (the same error with each case's own data; shown: q1)" in text


def test_async_generator_of_hit_lists_is_read(suite):
    """A sync function that returns an async generator is read, as without batches."""
    suite.make(
        TEST.format(name="async_generator_batches", extra=", batch_size=3")
        + "    print('MRR', result['mrr@2'])\n",
        extra=RETRIEVERS,
    )
    result = suite.run("-s")
    result.assert_outcomes(passed=1)
    assert "MRR 1.0" in suite.text(result)


@pytest.mark.parametrize("extra", [", timeout=None", ""], ids=["calling-thread", "threads"])
def test_lazy_hits_of_one_query_that_raise_fail_only_that_case(suite, extra):
    result, text = _run(suite, "lazy_hits_per_query", ", batch_size=4" + extra)
    result.assert_outcomes(failed=1)
    assert "The retriever failed on 1 of 4 case(s)" in text
    assert "q2  'what is beta': ValueError: lost the beta shard" in text


def test_retriever_whose_property_raises_while_inspected(suite):
    """A property that raises (a client not connected yet) is named with where it raised,
    not a traceback through the plugin's framework detection."""
    result, text = _run(suite, "not_connected")
    result.assert_outcomes(failed=1)
    assert (
        "cannot use NotConnected as a retriever: reading its attributes raised ValueError: "
        "the client is not connected at " in text
    )
    assert "conftest.py:" in text


def test_batch_retriever_returning_a_numpy_array_of_ids(suite):
    """FAISS's ``index.search`` gives one row of integer ids per query: read as hit lists,
    as a numpy array is for one query."""
    suite.make(
        """
        import numpy as np
        from pytest_ragcheck import ragcheck
        ROWS = {"what is alpha": [1, 9], "what is beta": [9, 2], "gamma and delta": [3, 4],
                "what is epsilon": [9, 9]}

        def faiss_like(queries, k):
            return np.array([ROWS[q] for q in queries], dtype=np.int64)

        @ragcheck("golden.jsonl", k=2, baseline=False, metrics=["mrr"], batch_size=3)
        def test_rag(ragcheck):
            print("MRR", ragcheck(faiss_like)["mrr@2"])
        """,
        cases=[
            {"id": "q1", "query": "what is alpha", "expected_ids": [1]},
            {"id": "q2", "query": "what is beta", "expected_ids": [2]},
            {"id": "q3", "query": "gamma and delta", "expected_ids": [3, 4]},
            {"id": "q4", "query": "what is epsilon", "expected_ids": [5]},
        ],
    )
    result = suite.run("-s")
    result.assert_outcomes(passed=1)
    assert "MRR 0.625" in suite.text(result)  # (1 + 1/2 + 1 + 0) / 4


@pytest.mark.parametrize("extra", [", timeout=None", ""], ids=["calling-thread", "threads"])
def test_batch_retriever_that_drains_its_list_of_queries(suite, extra):
    """``while queries: queries.pop(0)`` emptied the batch itself: a division by zero."""
    suite.make(
        """
        from conftest import lookup
        from pytest_ragcheck import ragcheck
        def draining(queries):
            hits = []
            while queries:
                hits.append(lookup(queries.pop(0)))
            return hits

        @ragcheck("golden.jsonl", k=2, baseline=False, metrics=["mrr"], batch_size=3EXTRA)
        def test_rag(ragcheck):
            result = ragcheck(draining)
            print("MRR", result["mrr@2"], [case.query for case in result.cases])
        """.replace("EXTRA", extra),
    )
    result = suite.run("-s")
    result.assert_outcomes(passed=1)
    text = suite.text(result)
    assert "MRR 1.0 ['what is alpha', 'what is beta', 'gamma and delta', 'what is epsilon']" in text


@pytest.mark.parametrize(
    ("name", "extra"),
    [
        pytest.param("raises_unprintable", SERIAL, id="calling-thread"),
        pytest.param("raises_unprintable", "", id="threads"),
        pytest.param("async_raises_unprintable", "", id="async"),
    ],
)
def test_error_whose_str_raises_is_still_named(suite, name, extra):
    result, text = _run(suite, name, extra)
    result.assert_outcomes(failed=1)
    assert "4 cases: conftest.UnprintableError: <exception str() failed>" in text


@pytest.mark.parametrize(
    ("name", "extra", "error"),
    [
        ("swallows_cancellation", "", "q2  'what is beta': timed out after 0.2 s"),
        (
            "batch_swallows_cancellation",
            ", batch_size=2",
            "2 cases: timed out after 0.2 s (batch 1 of 2, cases 1-2)",
        ),
    ],
)
def test_async_retriever_that_swallows_its_timeout_is_timed_out(suite, name, extra, error):
    """Past its timeout, an async retriever that catches the cancellation and returns hits is
    still recorded as timed out, as a sync one is."""
    result, text = _run(suite, name, ", timeout=0.2" + extra)
    result.assert_outcomes(failed=1)
    assert error in text
