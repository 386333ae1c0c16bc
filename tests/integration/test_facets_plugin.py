"""Diversity and source authority in real pytest sessions: a retriever that collapses onto one
facet and one that lets untrusted sources in fail, naming the subtopics and the sources."""

from __future__ import annotations

from typing import Any

import pytest
from harness import ragcheck_module

#: Two queries with two facets each, and one without subtopics.
CASES = [
    {
        "id": "jaguar",
        "query": "jaguar",
        "expected_ids": ["car1", "cat1"],
        "subtopics": {"the car": ["car1", "car2"], "the animal": {"cat1": 1, "cat2": 2}},
    },
    {
        "id": "python",
        "query": "python",
        "expected_ids": ["lang1", "snake1"],
        "subtopics": {"the language": ["lang1", "lang2"], "the snake": ["snake1"]},
    },
    {"id": "plain", "query": "plain", "expected_ids": ["p1"]},
]


def _hit(doc: str, url: str) -> dict[str, Any]:
    return {"id": doc, "metadata": {"source": url}}  # LangChain's metadata["source"]


#: Each facet in the top 3, from trusted sources.
DIVERSE = {
    "jaguar": [
        _hit("car1", "https://www.jaguar.com/a"),
        _hit("cat1", "https://nationalzoo.si.edu/b"),
        _hit("car2", "https://www.jaguar.com/c"),
    ],
    "python": [
        _hit("lang1", "https://docs.python.org/3/"),
        _hit("snake1", "https://nationalzoo.si.edu/python"),
        _hit("lang2", "https://docs.python.org/3/tutorial/"),
    ],
    "plain": [_hit("p1", "https://docs.python.org/p")],
}
#: The same top hits, then only the car and the language: the animal and the snake are gone.
COLLAPSED = {
    "jaguar": [
        _hit("car1", "https://www.jaguar.com/a"),
        _hit("car2", "https://www.jaguar.com/c"),
        _hit("car9", "https://www.jaguar.com/d"),
        _hit("cat1", "https://nationalzoo.si.edu/b"),
    ],
    "python": [
        _hit("lang1", "https://docs.python.org/3/"),
        _hit("lang2", "https://docs.python.org/3/tutorial/"),
        _hit("lang3", "https://docs.python.org/3/library/"),
    ],
    "plain": [_hit("p1", "https://docs.python.org/p")],
}
#: The facets still covered, but two of the top 3 from a content farm and an unknown blog.
SPAMMY = {
    "jaguar": [
        _hit("car1", "https://www.jaguar.com/a"),
        _hit("cat1", "https://spam.net/jaguar-cats"),
        _hit("car2", "https://random-blog.example/jag"),
    ],
    "python": [
        _hit("lang1", "https://spam.net/python"),
        _hit("snake1", "https://spam.net/snakes"),
        _hit("lang2", "https://docs.python.org/3/tutorial/"),
    ],
    "plain": [_hit("p1", "https://docs.python.org/p")],
}
TABLE = """
"python.org" = 1.0
"si.edu" = 0.9
"jaguar.com" = 0.7
"spam.net" = 0.0
"*" = 0.3
"""


def test_a_retriever_that_collapses_onto_one_facet_fails_naming_the_lost_subtopics(suite, run_mode):
    suite.make(
        ragcheck_module('"golden.jsonl", k=3, metrics=["alpha_ndcg@3", "subtopic_recall@3"]'),
        cases=CASES,
    )
    recorded = suite.rebaseline(DIVERSE, COLLAPSED)
    recorded.assert_outcomes(passed=1)
    result = suite.run("--ragcheck-report=report.json", *run_mode)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert (
        "subtopic_recall@3 regressed (tolerance; too few changed cases to test) 1.000 → 0.500"
        in out
    )
    assert "lost subtopic 'the animal' (was cat1 at 2)" in out
    assert "lost subtopic 'the snake' (was snake1 at 2)" in out
    # the case without subtopics has no value, and the summary says so
    assert "1 case without subtopics: no value for alpha_ndcg@3, subtopic_recall@3" in out
    suite.assert_clean(result)
    (test,) = suite.read_json("report.json")["tests"]
    entries = {case["id"]: case for case in test["cases"]}
    assert entries["jaguar"]["facets"]["subtopics"] == {
        "the car": {"relevant": 2, "first_rank": 1},
        "the animal": {"relevant": 2, "first_rank": 4},
    }
    assert entries["plain"]["facets"] is None
    assert "subtopic_recall@3" not in entries["plain"]["values"]


def test_a_floor_on_subtopic_recall_names_what_the_top_k_misses(suite):
    suite.make(
        ragcheck_module('"golden.jsonl", k=3, baseline=False, min_subtopic_recall_at_3=0.9'),
        cases=CASES,
        rankings=COLLAPSED,
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "subtopic_recall@3: 0.500 < 0.900 (floor)" in out
    assert "top 3 misses 1 of 2 subtopics: 'the animal' (cat1, cat2 first at 4)" in out
    assert "top 3 misses 1 of 2 subtopics: 'the snake' (snake1 not retrieved)" in out


def test_a_retriever_that_admits_untrusted_sources_fails_naming_them(suite):
    suite.write("sources.toml", TABLE)
    suite.make(
        ragcheck_module(
            '"golden.jsonl", k=3, max_untrusted_at_3=0.2, min_authority_at_3=0.8, '
            'authority="sources.toml"'
        ),
        cases=CASES,
    )
    recorded = suite.rebaseline(DIVERSE, SPAMMY)
    recorded.assert_outcomes(passed=1)
    result = suite.run()
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "also regressed against the baseline: authority@3: 0.911 → 0.556" in out
    assert "untrusted@3: 0.444 > 0.200 (ceiling)" in out
    assert "worst cases for untrusted@3 (2 of 3 over 0.200):" in out
    # the sources of the top k with their weights, those below trusted_min, the unknown ones
    assert "sources of the top 3: spam.net 0.000 ×2, docs.python.org 1.000" in out
    assert "2 of the top 3 below trusted_min 0.500: spam.net ×2" in out
    assert "2 of the top 3 below trusted_min 0.500: spam.net, random-blog.example" in out
    assert "authority@3: 0.556 < 0.800 (floor)" in out
    assert "1 of the top 3 from unknown sources: random-blog.example" in out
    suite.assert_clean(result)


def test_the_ini_table_and_hits_without_a_source(suite):
    suite.write("tables/sources.json", '{"python.org": 1.0, "*": 0.3}')
    suite.ini(ragcheck_authority="tables/sources.json")
    suite.make(
        ragcheck_module('"golden.jsonl", k=3, baseline=False, metrics=["authority@3"]'),
        cases=CASES,
        rankings={**DIVERSE, "plain": ["p1"]},
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "authority@3: 1 hit in 1 case have no source" in out
    assert "case 'plain': hit #1 'p1'" in out
    assert "pass source_key='<that key>'" in out


def test_a_diversity_metric_without_any_subtopics_is_a_usage_error(suite):
    suite.make(ragcheck_module('"golden.jsonl", baseline=False, metrics=["alpha_ndcg@5"]'))
    result = suite.run()
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "alpha_ndcg@5 needs subtopic judgments, but no case of" in out
    assert "has 'subtopics' (or 'subtopic_texts')" in out
    suite.assert_clean(result)


@pytest.mark.parametrize(
    ("keywords", "expected"),
    [
        ("diversity_beta=1.5", "diversity_beta must be <= 1, got 1.5"),
        ("diversity_alpha=-0.5", "diversity_alpha must be >= 0, got -0.5"),
        ("authority={'nih.gov': 3}", "authority: the weight of 'nih.gov' must be a number"),
        ("min_untrusted_at_3=0.1", "min_untrusted_at_3: untrusted is lower-is-better; use max_"),
    ],
)
def test_bad_keywords_are_usage_errors(suite, keywords, expected):
    suite.make(
        ragcheck_module(f'"golden.jsonl", baseline=False, metrics=["nrbp"], {keywords}'),
        cases=CASES,
    )
    result = suite.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert expected in suite.text(result)
