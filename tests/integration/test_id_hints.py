"""Hints only when likely true: the ``id_key`` hint needs evidence of an id mismatch.

Most cases finding no id of the golden set is a mismatch when (almost) no hit of the whole run
is a known id, or when a metadata key of the hits holds known ids. When other cases' hits are
ids of the golden set, those cases simply missed: the note says so, and names no ``id_key``.
"""

from __future__ import annotations

from harness import Suite, ragcheck_module

FIVE = [{"id": f"q{i}", "query": f"question {i}", "expected_ids": [f"d{i}"]} for i in range(1, 6)]
#: Right ids; three of five cases retrieve only documents of no golden case.
MISSES = {
    "question 1": ["d1", "d2", "x1"],
    "question 2": ["d2", "x1", "x2"],
    "question 3": ["x3", "x4", "x5"],
    "question 4": ["x6", "x7", "x8"],
    "question 5": ["x9", "x10", "x11"],
}
#: Three cases whose store made up ids, with the real ones in metadata.
GENERATED = {
    **MISSES,
    **{
        f"question {i}": [
            {"id": f"uuid-{i}-{n}", "metadata": {"doc_id": f"d{i}"}} for n in range(3)
        ]
        for i in (3, 4, 5)
    },
}
TEST = ragcheck_module('"golden.jsonl", k=3, baseline=False, metrics=["mrr"]')


def test_cases_that_missed_are_not_told_to_set_id_key(suite: Suite) -> None:
    suite.make(TEST, cases=FIVE, rankings=MISSES)
    result = suite.run()
    result.assert_outcomes(passed=1)
    text = " ".join(suite.text(result).split())
    assert "pass id_key" not in text
    assert (
        "3 of 5 cases have no relevant document in the top 3 (first: q3, q4, q5); other "
        "cases' hits are ids of the golden set, so these are misses, not an id mismatch"
    ) in text


def test_a_metadata_key_holding_golden_ids_keeps_the_hint(suite: Suite) -> None:
    suite.make(TEST, cases=FIVE, rankings=GENERATED)
    result = suite.run()
    result.assert_outcomes(passed=1)
    text = " ".join(suite.text(result).split())
    assert (
        "3 of 5 cases returned no id the golden set knows (first: q3, q4, q5); if your ids are "
        "in metadata, pass id_key='doc_id' (metadata['doc_id'] holds ids of the golden set in "
        "9 hits)"
    ) in text
