"""LLM-judge metrics: an LLM grades each retrieved chunk, for golden sets without judgments.

Needs a judge model and `pip install -e ".[llm]"` (litellm). Without one this test is skipped
and says what to set. Verdicts are cached under example_suite/.ragcheck/judge/ (commit them;
CI can then run with --ragcheck-judge-offline and no API key). No verdicts ship with this
example: they must come from a real judge.
"""

from __future__ import annotations

import pytest

from pytest_ragcheck import ragcheck

HOW_TO = (
    "no LLM judge configured: pass --ragcheck-judge-model=MODEL (any litellm model name, e.g. "
    "gpt-4o-mini with OPENAI_API_KEY set; for a self-hosted OpenAI-compatible server "
    "openai/<model> plus --ragcheck-judge-api-base=URL) or set ragcheck_judge_model in your "
    "pytest ini file; install the judge with pip install -e '.[llm]'"
)


@ragcheck(
    cases="golden/handwritten.jsonl",
    k=5,
    metrics=["llm_relevancy@5", "llm_ndcg@5", "context_recall@5"],
    min_llm_relevancy_at_5=0.3,
    judge_max_calls=200,  # a spending cap (here 10 questions x 5 chunks x 2 prompts + 10)
    baseline=False,  # judge scores come from a model you may change: gate on floors only
)
def test_llm_judge(ragcheck, retriever):
    if ragcheck.settings().judge.model is None:
        pytest.skip(HOW_TO)
    result = ragcheck(retriever)
    assert not result.errors
