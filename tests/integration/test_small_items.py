"""The small things a new user trips over: each said once, in proper words, and a switch for
judge tests on a machine without a judge."""

from __future__ import annotations

from harness import Suite, ragcheck_module

JUDGED = ragcheck_module(
    '"golden.jsonl", k=2, baseline=False, metrics=["mrr", "llm_relevancy"]',
    extra="""

    @ragcheck("golden.jsonl", k=2, baseline=False)
    def test_ranks_only(ragcheck, retriever):
        ragcheck(retriever)
    """,
)


#: Hits with text, for the judge to read.
WITH_TEXT = {
    query: [{"id": doc, "text": f"about {doc}"} for doc in hits]
    for query, hits in Suite.PERFECT.items()
}


def test_no_baseline_yet_is_said_once(suite: Suite) -> None:
    suite.make(ragcheck_module('"golden.jsonl", k=2'))
    result = suite.run()
    result.assert_outcomes(failed=1)
    failure = suite.text(result).split("ragcheck summary")[0]
    assert failure.count("No baseline stored for this test yet") == 1, failure
    assert 'run `pytest "test_rag.py::test_rag" --snapshot-update` to record it' in failure


def test_a_judge_test_without_a_judge_fails_by_default(suite: Suite) -> None:
    suite.make(JUDGED, rankings=WITH_TEXT)
    result = suite.run()
    result.assert_outcomes(failed=1, passed=1)
    assert "LLM-judge metrics need a judge model: pass --ragcheck-judge-model=MODEL" in (
        suite.text(result)
    )


def test_a_judge_test_without_a_judge_can_be_skipped(suite: Suite) -> None:
    suite.make(JUDGED, rankings=WITH_TEXT)
    for args in (["--ragcheck-no-judge=skip"], []):
        if not args:
            suite.ini(ragcheck_no_judge="skip")
        result = suite.run(*args)
        result.assert_outcomes(skipped=1, passed=1)
        text = " ".join(suite.text(result).split())
        assert (
            "no LLM judge configured for llm_relevancy@2 (--ragcheck-no-judge=skip); to run "
            "this test set --ragcheck-judge-model=MODEL (or ini ragcheck_judge_model, or "
            "judge_model= in the marker)"
        ) in text
    # A judge configured: the switch changes nothing (the test runs; offline with an empty
    # cache, it fails for the missing verdicts instead of being skipped).
    result = suite.run(
        "--ragcheck-no-judge=skip", "--ragcheck-judge-model=openai/x", "--ragcheck-judge-offline"
    )
    result.assert_outcomes(failed=1, passed=1)
    assert "no LLM judge configured" not in suite.text(result)


#: Graded cases: every labelled document the retriever returns is relevant, the rest of its
#: top 2 unlabelled, so judged@2 would equal precision@2.
GRADED = [
    {"id": "q1", "query": "what is alpha", "relevance": {"a": 2, "b": 1}},
    {"id": "q2", "query": "what is beta", "relevance": {"b": 1}},
]
ALL_RELEVANT = {"what is alpha": ["a", "x"], "what is beta": ["b", "y"]}
ONE_JUDGED_NOT = {**ALL_RELEVANT, "what is beta": ["b", "z"]}
TWO = ragcheck_module('"golden.jsonl", k=2, baseline=False, metrics=["precision", "mrr"]')


def test_judged_at_k_is_shown_only_when_it_says_something(suite: Suite) -> None:
    suite.make(TWO, cases=GRADED, rankings=ALL_RELEVANT)
    result = suite.run("--ragcheck-report=r.json")
    result.assert_outcomes(passed=1)
    assert "judged@2" not in suite.text(result)  # it would read 0.750 beside precision@2 0.750
    assert "judged@2" not in suite.read_json("r.json")["tests"][0]["aggregates"]
    # A labelled document judged not relevant in the top 2: judged@2 now differs.
    suite.make(
        TWO,
        cases=[GRADED[0], {**GRADED[1], "relevance": {"b": 1, "z": 0}}],
        rankings=ONE_JUDGED_NOT,
    )
    result = suite.run()
    assert "judged@2" in suite.text(result)
    # Asked for by name: always shown.
    suite.test(
        ragcheck_module('"golden.jsonl", k=2, baseline=False, metrics=["precision", "judged"]')
    )
    suite.golden(GRADED)
    suite.retriever(ALL_RELEVANT)
    assert "judged@2" in suite.text(suite.run())
