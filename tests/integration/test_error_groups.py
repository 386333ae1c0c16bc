"""Identical errors are grouped: one line with the count and one example, not one per case.

A retriever returning ``{id: score}`` fails every case with the same TypeError, each embedding
that case's own scores; the message says it once, with the count and the first case ids.
"""

from __future__ import annotations

from harness import Suite, ragcheck_module

CASES = [{"id": f"q{i}", "query": f"question {i}", "expected_ids": [f"d{i}"]} for i in range(12)]

RETRIEVERS = """

def scores(query):
    n = int(query.split()[1])
    return {f"d{n}": 10.0 + n / 7, f"x{n}": 5.0 - n / 3, "y": 1.0}


def mixed(query):
    n = int(query.split()[1])
    if n % 4 == 0:
        raise ConnectionError(f"index shard {n} is offline")
    return scores(query)
"""


def test_a_dict_of_scores_is_one_error_with_a_count(suite: Suite) -> None:
    suite.make(
        ragcheck_module(
            '"golden.jsonl", baseline=False', body="ragcheck(scores)", extra=RETRIEVERS
        ),
        cases=CASES,
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    suite.assert_clean(result)
    message = suite.text(result).split("ragcheck summary")[0]
    assert message.count("the retriever returned a dict of id -> score") == 1
    result.stdout.fnmatch_lines(
        [
            "The retriever failed on all 12 cases; no case could be evaluated:",
            "  12 cases: TypeError: the retriever returned a dict of id -> score ({'d0': 10.0,*",
            "    q0, q1, q2, q3, q4 and 7 more (the same error with each case's own data; "
            "shown: q0)",
        ]
    )
    assert "more distinct errors" not in message


def test_different_errors_stay_apart_largest_first(suite: Suite) -> None:
    suite.make(
        ragcheck_module('"golden.jsonl", baseline=False', body="ragcheck(mixed)", extra=RETRIEVERS),
        cases=CASES,
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "The retriever failed on all 12 cases; no case could be evaluated:",
            "  9 cases: TypeError: the retriever returned a dict of id -> score*",
            "    q1, q2, q3, q5, q6 and 4 more (the same error with each case's own data; shown: q1)",
            "  3 cases: ConnectionError: index shard 0 is offline",
            "    q0, q4, q8 (the same error with each case's own data; shown: q0)",
        ]
    )
