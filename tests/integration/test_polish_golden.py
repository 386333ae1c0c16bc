"""Golden values that used to be accepted and ignored: blank tags, ``tags=[]`` and BEIR query
metadata that is not an object. Each is now a clear error naming where it is."""

from __future__ import annotations

import json

import pytest
from harness import SERIAL_ONLY, ragcheck_module

TAGGED = (
    {"id": "q1", "query": "what is alpha", "expected_ids": ["a"], "tags": ["faq"]},
    {"id": "q2", "query": "what is beta", "expected_ids": ["b"], "tags": ["faq"]},
)


def _with_plain_test(marker: str) -> str:
    return ragcheck_module(
        marker,
        extra="""

        def test_other():
            pass
        """,
    )


@pytest.mark.parametrize("tag", ["", "   "], ids=["empty", "whitespace"])
def test_blank_tag_in_golden_file(suite, run_mode, tag):
    cases = [dict(TAGGED[0]), {**TAGGED[1], "tags": ["faq", tag]}]
    suite.make(_with_plain_test('"golden.jsonl", k=2, baseline=False'), cases=cases)
    result = suite.run(*run_mode)
    result.assert_outcomes(failed=1, passed=1)
    suite.assert_clean(result)
    text = suite.text(result)
    assert f"golden.jsonl:2: field 'tags': tag #2 is empty ({tag!r})" in text


def test_blank_tag_in_json_golden_file_names_the_case(suite):
    cases = [dict(TAGGED[0]), {**TAGGED[1], "tags": [""]}]
    suite.golden(cases, name="golden.json")
    suite.retriever()
    suite.test(_with_plain_test('"golden.json", k=2, baseline=False'))
    result = suite.run()
    result.assert_outcomes(failed=1, passed=1)
    suite.assert_clean(result)
    assert "golden.json: case #2 (id 'q2'): field 'tags': tag #1 is empty ('')" in suite.text(
        result
    )


def _assert_usage_error(suite, result, run_mode):
    if run_mode:  # an xdist worker reports it as a collection error
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        result.stdout.fnmatch_lines(["*ERROR collecting test_rag.py*"])
    else:
        assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "passed" not in result.parseoutcomes(), "a test ran despite the bad marker"
    suite.assert_clean(result)


@pytest.mark.parametrize(
    ("keyword", "expected"),
    [
        pytest.param(
            "tags=[]",
            "test_rag.py::test_rag: tags=[] names no tag, which would select no case; "
            "to run every case, leave tags out",
            id="empty-list",
        ),
        pytest.param(
            "tags=['faq', '']",
            "test_rag.py::test_rag: tags: '' is an empty tag, which no case can carry",
            id="blank-tag",
        ),
        pytest.param(
            "tags=' '",
            "test_rag.py::test_rag: tags: ' ' is an empty tag, which no case can carry",
            id="blank-string",
        ),
    ],
)
def test_marker_tags_that_select_nothing(suite, run_mode, keyword, expected):
    suite.make(_with_plain_test(f'"golden.jsonl", k=2, baseline=False, {keyword}'), cases=TAGGED)
    result = suite.run(*run_mode)
    _assert_usage_error(suite, result, run_mode)
    assert expected in suite.text(result)


def test_fixture_call_tags_empty_list(suite):
    """The call's keywords are checked when the call runs: the test fails with the message."""
    suite.make(
        ragcheck_module('"golden.jsonl", k=2, baseline=False', body="ragcheck(retriever, tags=[])"),
        cases=TAGGED,
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    suite.assert_clean(result)
    assert "tags=[] names no tag" in suite.text(result)


def test_fixture_call_tags_none_still_runs_every_case(suite):
    suite.make(
        ragcheck_module(
            '"golden.jsonl", k=2, baseline=False, tags=["nope"]',
            body="assert len(ragcheck(retriever, tags=None).cases) == 2",
        ),
        cases=TAGGED,
    )
    result = suite.run()
    result.assert_outcomes(passed=1)


def _beir(suite, queries: list[dict[str, object]]) -> None:
    suite.write("beir/queries.jsonl", "".join(json.dumps(q) + "\n" for q in queries))
    suite.write("beir/qrels.tsv", "query-id\tcorpus-id\tscore\nq1\ta\t1\nq2\tb\t1\n")
    suite.retriever()
    suite.test(_with_plain_test('"beir", k=2, baseline=False'))


@pytest.mark.parametrize(
    ("metadata", "shown"),
    [
        pytest.param("en", "str 'en'", id="string"),
        pytest.param(["en"], "list ['en']", id="list"),
        pytest.param(3, "int 3", id="number"),
    ],
)
def test_beir_query_metadata_not_an_object(suite, run_mode, metadata, shown):
    _beir(
        suite,
        [
            {"_id": "q1", "text": "what is alpha", "metadata": {}},
            {"_id": "q2", "text": "what is beta", "metadata": metadata},
        ],
    )
    result = suite.run(*run_mode)
    result.assert_outcomes(failed=1, passed=1)
    suite.assert_clean(result)
    assert (
        f"queries.jsonl:2: query 'q2': field 'metadata' must be a JSON object, got {shown}"
        in suite.text(result)
    )


def test_beir_query_metadata_null_and_extra_fields_are_kept(suite):
    """``null`` metadata is none; other fields, and an ``id`` beside ``_id``, are kept."""
    _beir(
        suite,
        [
            {"_id": "q1", "text": "what is alpha", "metadata": None, "lang": "en"},
            {"_id": "q2", "id": "old-7", "text": "what is beta", "metadata": {"lang": "de"}},
        ],
    )
    suite.test(
        ragcheck_module(
            '"beir", k=2, baseline=False',
            body="""
            result = ragcheck(retriever)
            from pytest_ragcheck.golden import load_golden
            golden = load_golden("beir")
            assert [c.metadata for c in golden] == [{"lang": "en"}, {"lang": "de", "id": "old-7"}]
            """,
        )
    )
    result = suite.run()
    result.assert_outcomes(passed=1)


def test_beir_field_both_top_level_and_in_metadata(suite):
    _beir(
        suite,
        [
            {"_id": "q1", "text": "what is alpha", "metadata": {"lang": "en"}, "lang": "de"},
            {"_id": "q2", "text": "what is beta"},
        ],
    )
    result = suite.run()
    result.assert_outcomes(failed=1, passed=1)
    suite.assert_clean(result)
    assert (
        "queries.jsonl:1: query 'q1': field 'lang' is both a top-level field and a key of "
        "'metadata' ('de' and 'en'); keep one" in suite.text(result)
    )


# The usage-error path under pytest-xdist is covered by
# test_marker_tags_that_select_nothing[xdist-empty-list].
@SERIAL_ONLY
def test_marker_tolerances_zero_and_blank_id_key(suite, run_mode):
    suite.make(_with_plain_test('"golden.jsonl", k=2, baseline=False, tolerances=0'))
    suite.test(_with_plain_test('"golden.jsonl", k=2, baseline=False, id_key=""'), name="test_id")
    result = suite.run(*run_mode)
    _assert_usage_error(suite, result, run_mode)
    text = suite.text(result)
    assert (
        "test_rag.py::test_rag: tolerances must be a dict of metric name -> allowed drop, "
        "got 0 (for one tolerance for every metric, use tolerance=)" in text
    )
    assert "test_id.py::test_rag: id_key must name the id's metadata key or attribute" in text


def test_path_in_a_list_of_cases(suite):
    suite.make(_with_plain_test('["golden.jsonl"], k=2, baseline=False'))
    result = suite.run()
    result.assert_outcomes(failed=1, passed=1)
    suite.assert_clean(result)
    assert (
        "case #1: expected a GoldenCase or a dict, got str 'golden.jsonl' "
        "(a path goes in cases= on its own, not in a list)" in suite.text(result)
    )
