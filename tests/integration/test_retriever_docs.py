"""Golden sets as the docs describe them, through a real pytest session."""

from __future__ import annotations

import json


def test_qrels_grade_too_long_to_read_is_an_error_not_a_header(suite):
    """A first qrels row whose grade is a number too long for ``int()`` is a bad grade, not a
    header: skipping it as one left "no judgments", which hid the real problem."""
    long_grade = "9" * 5000
    suite.write("beir/queries.jsonl", json.dumps({"_id": "q1", "text": "what is alpha"}) + "\n")
    suite.write("beir/qrels.tsv", f"q1\ta\t{long_grade}\n")
    suite.retriever()
    suite.test(
        "from pytest_ragcheck import ragcheck\n\n"
        '@ragcheck("beir", k=2, baseline=False)\n'
        "def test_rag(ragcheck, retriever):\n"
        "    ragcheck(retriever)\n"
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    suite.assert_clean(result)
    text = suite.text(result)
    assert "qrels.tsv:1: grade must be an integer" in text
    assert "has no judgments" not in text
    assert long_grade not in text


def test_compare_without_significance_does_not_claim_no_test() -> None:
    """``significance=None`` only turns the markers off: the paired p-values are still
    computed and printed, so the legend must not say there was no test."""
    from pytest_ragcheck import compare

    cases = [{"id": f"q{i}", "query": f"q{i}", "expected_ids": ["a"]} for i in range(6)]
    cmp = compare(
        {"ref": lambda q: ["a"], "other": lambda q: ["b", "a"]},
        cases,
        k=5,
        metrics=["mrr"],
        significance=None,
    )
    table = cmp.table()
    assert " p=" in table
    assert "no test" not in table
    assert "nothing marked" in table
