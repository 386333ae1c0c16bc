"""A retriever that is unusable, returns garbage, raises or hangs: clear messages, and every
other case is still evaluated and reported."""

from __future__ import annotations

import pytest
from harness import SERIAL_ONLY

TEST = """
from conftest import {name}
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=2, baseline=False, metrics=["mrr"]{extra})
def test_rag(ragcheck):
    result = ragcheck({name})
    print("MRR", result["mrr@2"], "STATUSES", [c.status for c in result.cases])
    print("ERRORS", [c.error for c in result.cases])
"""

RETRIEVERS = """
import threading

class NotARetriever:
    pass

not_callable = NotARetriever()

def returns_int(query):
    return 42

def returns_none(query):
    return None

class Opaque:
    pass

def unknown_shape(query):
    return [Opaque()]

def raises_on_beta(query):
    if "beta" in query:
        raise ValueError("index offline for beta")
    return lookup(query)

HANG = threading.Event()

def hangs_on_beta(query):
    if "beta" in query:
        HANG.wait(3)  # longer than the test's timeout; the daemon thread is then abandoned
    return lookup(query)
"""


def _suite(suite, name, extra=""):
    suite.make(TEST.format(name=name, extra=extra), extra=RETRIEVERS)


def test_not_callable(suite):
    _suite(suite, "not_callable")
    result = suite.run()
    result.assert_outcomes(failed=1)
    suite.assert_clean(result)
    text = suite.text(result)
    assert "cannot use NotARetriever as a retriever" in text
    assert ".invoke" in text  # names what is accepted


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param(
            "returns_int", ["the retriever returned int 42, which is not a list of hits"], id="int"
        ),
        pytest.param("returns_none", ["the retriever returned None"], id="none"),
        pytest.param(
            "unknown_shape",
            ["hit #1: cannot read a hit from conftest.Opaque", "a hit must be a str id"],
            id="shape",
        ),
    ],
)
def test_bad_return_values_fail_every_case(suite, name, expected):
    _suite(suite, name)
    result = suite.run()
    result.assert_outcomes(failed=1)
    suite.assert_clean(result)
    text = suite.text(result)
    # One line per distinct error, with the count and the cases it hit.
    assert "The retriever failed on all 4 cases; no case could be evaluated:" in text
    assert "the other cases were evaluated" not in text
    for fragment in expected:
        assert fragment in text
    assert text.count(expected[0]) == 1
    result.stdout.fnmatch_lines(["  4 cases: TypeError: *", "    q1, q2, q3, q4"])


# Not about processes: pytest-xdist is covered by
# test_summary.py::test_summary_after_a_regression[xdist].
@SERIAL_ONLY
def test_raising_and_hanging_cases_fail_and_others_are_evaluated(suite, run_mode):
    suite.make(TEST.format(name="raises_on_beta", extra=""), extra=RETRIEVERS, name="test_raises")
    suite.test(TEST.format(name="hangs_on_beta", extra=", timeout=0.3"), name="test_hangs")
    result = suite.run(*run_mode)
    result.assert_outcomes(failed=2)
    suite.assert_clean(result)
    text = suite.text(result)
    # One failure message per test (the terminal summary repeats it, indented), each headed
    # by its finding, which pytest's short summary shows.
    messages = [
        line
        for line in result.outlines
        if line.startswith("The retriever failed on 1 of 4 case(s) (the other")
    ]
    assert len(messages) == 2
    result.stdout.fnmatch_lines(["FAILED *::test_rag - Failed: The retriever failed on 1 of 4*"])
    result.stdout.fnmatch_lines(
        ["*q2  'what is beta': ValueError: index offline for beta*"], consecutive=False
    )
    result.stdout.fnmatch_lines(["*q2  'what is beta': timed out after 0.3 s*"], consecutive=False)
    assert "q1  'what is alpha':" not in text


def test_raising_case_scored_zero_with_on_error_zero(suite):
    _suite(suite, "raises_on_beta", extra=", on_error='zero'")
    result = suite.run("-s")
    result.assert_outcomes(passed=1)
    # The three other cases rank their document first: (1 + 0 + 1 + 1) / 4.
    text = suite.text(result)
    assert "MRR 0.75 STATUSES ['ok', 'error', 'ok', 'ok']" in text
    assert "ERRORS [None, 'ValueError: index offline for beta', None, None]" in text


def test_hanging_case_scored_zero_with_on_error_zero(suite):
    _suite(suite, "hangs_on_beta", extra=", timeout=0.3, on_error='zero'")
    result = suite.run("-s")
    result.assert_outcomes(passed=1)
    text = suite.text(result)
    assert "MRR 0.75 STATUSES ['ok', 'error', 'ok', 'ok']" in text
    assert "'timed out after 0.3 s'" in text


ESCAPES_SOURCE = """
from pytest_ragcheck import ragcheck
def retriever(query):
    if query == "what is beta":
        raise RuntimeError("backend down \\x1b[31mRED\\x1b[0m\\x07 \\x9b2J")
    return {"what is alpha": ["a"], "gamma and delta": ["c", "d"]}.get(query, ["e"])

@ragcheck("g\\x1b[2Jold.jsonl", k=2, baseline=False)
def test_raw(ragcheck):
    ragcheck(retriever)

@ragcheck("g\\x1b[2Jold.jsonl", k=2, baseline=False, on_error="zero", min_mrr=0.99)
def test_zero(ragcheck):
    ragcheck(retriever)
"""


def test_control_characters_reach_the_terminal_escaped(suite):
    """A retriever's error message and a golden file name with terminal escape sequences
    (a colour, a screen clear, a bell, a C1 CSI) are printed as ``\\x1b``, never raw."""
    suite.golden(name="g\x1b[2Jold.jsonl")
    suite.test(ESCAPES_SOURCE)
    result = suite.run("-rA")
    result.assert_outcomes(failed=2)
    text = suite.text(result)
    for raw in ("\x1b", "\x07", "\x9b"):
        assert raw not in text
    assert "RuntimeError: backend down \\x1b[31mRED\\x1b[0m\\x07 \\x9b2J" in text
    assert "BELOW FLOOR    test_rag.py::test_zero  g\\x1b[2Jold.jsonl (4 cases, k=2)" in text
