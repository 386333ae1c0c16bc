"""Bad golden sets end to end: the test fails with a message naming the file, line and field,
never with a traceback from inside the plugin."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading

import pytest
from harness import SERIAL_ONLY, ragcheck_module

GOOD = json.dumps({"id": "q1", "query": "what is alpha", "expected_ids": ["a"]})


def _module(path: str) -> str:
    """A ragcheck test on the golden set at ``path``, and a plain test beside it."""
    return ragcheck_module(
        f'"{path}", k=2, baseline=False',
        extra="""

        def test_unrelated():
            pass
        """,
    )


BAD_JSONL = [
    pytest.param(
        GOOD + "\n" + '{"id": "q2", "query": "what is beta", "expected_ids": ["b"]\n',
        ["golden.jsonl:2", "malformed JSON"],
        id="malformed-json",
    ),
    pytest.param(
        GOOD + "\n" + json.dumps({"id": "q2", "expected_ids": ["b"]}) + "\n",
        ["golden.jsonl:2: ", "missing required field 'query'"],
        id="missing-query",
    ),
    pytest.param(
        GOOD + "\n\n" + json.dumps({"id": "q2", "query": "  ", "expected_ids": ["b"]}) + "\n",
        ["golden.jsonl:3: ", "'query'", "must not be empty"],
        id="empty-query",
    ),
    pytest.param(
        GOOD + "\n" + GOOD + "\n",
        ["golden.jsonl:2: ", "duplicate", "'q1'"],
        id="duplicate-id",
    ),
    pytest.param(
        GOOD + "\n" + json.dumps({"query": "what is beta", "expected_id": ["b"]}) + "\n",
        ["golden.jsonl:2: ", "unknown field 'expected_id' (did you mean 'expected_ids'?)"],
        id="unknown-field",
    ),
    pytest.param(
        GOOD + "\n" + json.dumps({"query": "what is beta", "expected_ids": "b"}) + "\n",
        ["golden.jsonl:2: ", "'expected_ids'"],
        id="wrong-type",
    ),
    pytest.param("", ["golden.jsonl is empty"], id="empty-file"),
]


@pytest.mark.parametrize(("content", "expected"), BAD_JSONL)
def test_bad_jsonl(suite, content, expected):
    suite.write("golden.jsonl", content)
    suite.retriever()
    suite.test(_module("golden.jsonl"))
    result = suite.run()
    result.assert_outcomes(failed=1, passed=1)
    suite.assert_clean(result)
    text = suite.text(result)
    for fragment in expected:
        assert fragment in text


# Not about processes: pytest-xdist is covered by
# test_summary.py::test_summary_after_a_regression[xdist].
@SERIAL_ONLY
def test_bad_golden_sets_in_one_session(suite, run_mode):
    """A malformed .json list, an unknown field and a missing file, each in its own module."""
    suite.write(
        "golden.json",
        '[\n  {"query": "what is alpha", "expected_ids": ["a"]},\n  {"query": }\n]\n',
    )
    unknown = {"query": "what is beta", "expected_ids": ["b"], "tgas": []}
    suite.write("golden.jsonl", GOOD + "\n" + json.dumps(unknown) + "\n")
    suite.retriever()
    suite.test(_module("golden.json"), name="test_json")
    suite.test(_module("golden.jsonl"), name="test_jsonl")
    suite.test(_module("golden/faq.jsonl"), name="test_missing")
    result = suite.run(*run_mode)
    result.assert_outcomes(failed=3, passed=3)
    suite.assert_clean(result)
    text = suite.text(result)
    result.stdout.fnmatch_lines(["*golden.json:3:*malformed JSON*"], consecutive=False)
    assert "golden.jsonl:2: unknown field 'tgas' (did you mean 'tags'?)" in text
    assert "golden set 'golden/faq.jsonl' not found; looked in:" in text
    assert str(suite.path / "golden" / "faq.jsonl") in text


def test_case_without_relevance_for_rank_metrics(suite):
    suite.write(
        "golden.jsonl", GOOD + "\n" + json.dumps({"id": "q9", "query": "what is beta"}) + "\n"
    )
    suite.retriever()
    suite.test(_module("golden.jsonl"))
    result = suite.run()
    result.assert_outcomes(failed=1, passed=1)
    suite.assert_clean(result)
    text = suite.text(result)
    assert "1 case(s) have no relevant document" in text
    assert "'q9'" in text


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX FIFOs")
@pytest.mark.parametrize("name", ["golden.jsonl", "golden.json", "beir/queries.jsonl"])
def test_a_fifo_as_the_golden_set_is_named_not_waited_on(suite, name):
    """Opening a FIFO for reading waits for a writer: the session hung until killed."""
    if name.startswith("beir/"):
        suite.write("beir/qrels.tsv", "query-id\tcorpus-id\tscore\nq1\ta\t1\n")
    path = suite.path / name
    path.parent.mkdir(exist_ok=True)
    os.mkfifo(path)
    suite.retriever()
    suite.test(_module(name.split("/")[0]))
    timer = threading.Timer(30, _unblock, [path])  # a hang becomes a failure
    timer.start()
    try:
        result = suite.run()
    finally:
        timer.cancel()
    result.assert_outcomes(passed=1, failed=1)
    text = " ".join(suite.text(result).split())
    assert (
        f"cannot read golden set {name}: not a regular file: it is a FIFO (named pipe)" in text
    ), text
    suite.assert_clean(result)


def _unblock(fifo) -> None:
    with contextlib.suppress(OSError):  # no reader: nothing waits
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
