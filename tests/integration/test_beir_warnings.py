"""Judgments a BEIR folder's reader leaves out are named in the summary and the reports, not
only in ``GoldenSet.notes``: qrels of query ids that ``queries.jsonl`` lacks usually mean the
two files spell the ids differently, and every such query silently drops out of the run."""

from __future__ import annotations

import json

from harness import ragcheck_module

QUERIES = [
    {"_id": "1", "text": "what is alpha"},
    {"_id": "2", "text": "what is beta"},
]


def test_unknown_query_ids_and_repeats_are_named_in_the_summary(suite, tmp_path):
    suite.write("beir/queries.jsonl", "".join(json.dumps(q) + "\n" for q in QUERIES))
    suite.write(
        "beir/qrels.tsv",
        "query-id\tcorpus-id\tscore\n1\ta\t1\n1\ta\t1\nQ2\tb\t1\nQ3\tc\t1\n",
    )
    suite.retriever()
    report = tmp_path / "r.json"
    suite.test(ragcheck_module('"beir", k=2, baseline=False'))
    result = suite.run(f"--ragcheck-report={report}")
    result.assert_outcomes(passed=1)
    text = suite.text(result)
    ignored = (
        "qrels.tsv: the judgments of 2 query id(s) not in beir/queries.jsonl were ignored "
        "(first: 'Q2', 'Q3'); do the query ids match?"
    )
    # the terminal wraps long notes; the JSON report has each whole
    assert "note: beir/qrels.tsv: the judgments of 2 query id(s) not in beir/queries.jsonl" in text
    assert "qrels.tsv: 1 repeated (qid, docid) judgment(s): the last of each was kept" in text
    notes = json.loads(report.read_text(encoding="utf-8"))["tests"][0]["notes"]
    assert f"beir/{ignored}" in notes


def test_a_clean_beir_folder_adds_no_note(suite):
    suite.write("beir/queries.jsonl", "".join(json.dumps(q) + "\n" for q in QUERIES))
    suite.write("beir/qrels.tsv", "1\ta\t1\n2\tb\t1\n")
    suite.retriever()
    suite.test(ragcheck_module('"beir", k=2, baseline=False'))
    result = suite.run()
    result.assert_outcomes(passed=1)
    text = suite.text(result)
    assert "were ignored" not in text
    assert "BEIR folder" not in text  # the plain facts stay in GoldenSet.notes
