"""``batch_size=N``: the retriever takes lists of queries; bad batches fail only their cases."""

from __future__ import annotations

import pytest

TEST = """
from conftest import {name}
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=2, baseline=False, metrics=["mrr"]{extra})
def test_rag(ragcheck):
    result = ragcheck({name})
    print("MRR", result["mrr@2"], "STATUSES", [c.status for c in result.cases])
    print("LATENCIES", [c.latency_ms for c in result.cases])
    print("BATCHES", result.info["retrieval"]["batches"])
"""

RETRIEVERS = """
import asyncio

CALLS = []

def batched(queries):
    CALLS.append(list(queries))
    return [lookup(q) for q in queries]

async def abatched(queries):
    await asyncio.sleep(0)
    return [lookup(q) for q in queries]

def one_short(queries):
    return [lookup(q) for q in queries][:-1]

def raises_on_beta(queries):
    if any("beta" in q for q in queries):
        raise RuntimeError("encoder out of memory")
    return [lookup(q) for q in queries]

def not_a_list(queries):
    return {"documents": []}

class Runnable:
    '''Shaped like a LangChain retriever: invoke() and batch(); batch must be used.'''

    def invoke(self, query):
        raise AssertionError("invoke called with batch_size set")

    def batch(self, queries, config=None, *, return_exceptions=False, **kwargs):
        return [lookup(q) for q in queries]

runnable = Runnable()

def sizes():
    return [len(c) for c in CALLS]
"""


def _suite(suite, name, extra=""):
    suite.make(TEST.format(name=name, extra=extra), extra=RETRIEVERS)


@pytest.mark.parametrize("name", ["batched", "abatched", "runnable"])
def test_batches_of_queries(suite, name):
    _suite(suite, name, ", batch_size=3")
    result = suite.run("-s")
    result.assert_outcomes(passed=1)
    suite.assert_clean(result)
    text = suite.text(result)
    assert "MRR 1.0 STATUSES ['ok', 'ok', 'ok', 'ok']" in text
    # two calls (3 + 1 queries); every case's latency is its batch's share
    assert "'size': 3, 'calls': 2" in text
    assert "LATENCIES [None" not in text
    assert "batches of 3: 2 calls" in text  # a note in the summary


def test_batch_sizes_sent(suite):
    _suite(
        suite,
        "batched",
        ", batch_size=3",
    )
    suite.test(
        TEST.format(name="batched", extra=", batch_size=3")
        + "\n    from conftest import sizes\n    print('SIZES', sizes())\n"
    )
    result = suite.run("-s")
    result.assert_outcomes(passed=1)
    assert "SIZES [3, 1]" in suite.text(result)


def test_wrong_number_of_hit_lists_names_the_batch(suite):
    _suite(suite, "one_short", ", batch_size=2")
    result = suite.run()
    result.assert_outcomes(failed=1)
    suite.assert_clean(result)
    text = suite.text(result)
    assert (
        "the batch retriever returned 1 hit lists for 2 queries (batch 1 of 2, cases 1-2); "
        "it must return one hit list per query, in query order"
    ) in text
    assert "q1, q2, q3, q4 (the same error with each case's own data; shown: q1)" in text


def test_not_a_list_of_hit_lists(suite):
    _suite(suite, "not_a_list", ", batch_size=4")
    result = suite.run()
    result.assert_outcomes(failed=1)
    assert "the batch retriever returned dict for 4 queries (batch 1 of 1, cases 1-4)" in (
        suite.text(result)
    )


def test_a_batch_that_raises_fails_its_cases_only(suite, run_mode):
    _suite(suite, "raises_on_beta", ", batch_size=2")
    result = suite.run("-s", *run_mode)
    result.assert_outcomes(failed=1)
    suite.assert_clean(result)
    text = suite.text(result)
    # q1, q2 share the failing batch; q3, q4 were evaluated
    assert "The retriever failed on 2 of 4 case(s)" in text
    assert "RuntimeError: encoder out of memory (batch 1 of 2, cases 1-2)" in text
    assert "q3  'gamma and delta'" not in text


@pytest.mark.parametrize("value", ["0", "-1", "2.5", "'8'", "True"])
def test_batch_size_must_be_a_positive_integer(suite, value):
    _suite(suite, "batched", f", batch_size={value}")
    result = suite.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "batch_size must be an integer >= 1" in suite.text(result)


def test_batch_size_with_a_non_callable(suite):
    suite.make(
        TEST.format(name="sizes", extra=", batch_size=2").replace(
            "ragcheck(sizes)", "ragcheck(object())"
        ),
        extra=RETRIEVERS,
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    assert "batch_size needs a callable f(queries) -> one hit list per query" in suite.text(result)
