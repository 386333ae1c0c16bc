"""Odd and hostile input a new user may feed the plugin, end to end: golden files, marker
keywords and report paths get a clear message naming what is wrong, and reports show ids and
queries exactly as written."""

from __future__ import annotations

import json

import pytest
from harness import ragcheck_module

GOOD = json.dumps({"id": "q1", "query": "what is alpha", "expected_ids": ["a"]})
DEEP = "[" * 5000 + "]" * 5000


@pytest.mark.parametrize(
    ("name", "content", "where"),
    [
        pytest.param(
            "golden.jsonl",
            GOOD + "\n" + '{"query": "what is beta", "metadata": ' + DEEP + "}\n",
            "golden.jsonl:2: ",
            id="jsonl",
        ),
        pytest.param("golden.json", DEEP, "golden.json: ", id="json"),
    ],
)
def test_deeply_nested_json_is_a_golden_set_error(suite, name, content, where):
    suite.write(name, content)
    suite.retriever()
    suite.test(ragcheck_module(f'"{name}", k=2, baseline=False'))
    result = suite.run()
    result.assert_outcomes(failed=1)
    suite.assert_clean(result)
    assert f"{where}malformed JSON: lists or objects nested too deeply" in suite.text(result)


def test_a_cutoff_in_other_digits_is_a_usage_error(suite):
    """``"²"`` passes ``str.isdigit`` but not ``int``: a usage error, not an internal one."""
    suite.make(ragcheck_module('"golden.jsonl", baseline=False, metrics=["mrr@²"]'))
    result = suite.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    suite.assert_clean(result)
    assert "bad cutoff in metric 'mrr@²': k must be an integer >= 1" in suite.text(result)


def test_the_calls_bound_wins_over_the_markers_thresholds(suite):
    """Call overrides > marker, whether a bound is spelled ``min_mrr`` or ``thresholds=``.

    WORSE scores mrr@10 0.708: a marker floor of 0.9 fails, the call's 0.5 passes."""
    suite.make(
        ragcheck_module(
            '"golden.jsonl", baseline=False, thresholds={"mrr@10": 0.9}',
            function="test_relaxed_by_keyword",
            body="ragcheck(retriever, min_mrr=0.5)",
        )
        + ragcheck_module(
            '"golden.jsonl", baseline=False, min_mrr=0.9',
            function="test_relaxed_by_dict",
            body='ragcheck(retriever, thresholds={"mrr@10": 0.5})',
        ).removeprefix("from pytest_ragcheck import ragcheck\n"),
        rankings=suite.WORSE,
    )
    result = suite.run()
    result.assert_outcomes(passed=2)
    suite.assert_clean(result)


def test_one_metric_bounded_twice_is_a_usage_error(suite):
    suite.make(
        ragcheck_module('"golden.jsonl", baseline=False, min_mrr=0.5, thresholds={"mrr@10": 0.9}')
    )
    result = suite.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    suite.assert_clean(result)
    assert (
        "mrr@10 is bounded twice: min_mrr=0.5 and thresholds['mrr@10']=0.9; keep one"
        in suite.text(result)
    )
