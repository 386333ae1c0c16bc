"""What a run says beyond the metrics, in real pytest sessions: ids that match nothing fail
the test with the fix, fewer hits than the cutoff is said in the summary and the failure, and
the concurrency "auto" chose is shown."""

from __future__ import annotations

import re

from harness import SERIAL_ONLY, ragcheck_module

GENERATED_IDS = """
import uuid


class Document:
    \"\"\"A LangChain-style document whose id the vector store generated.\"\"\"

    def __init__(self, doc_id):
        self.id = str(uuid.uuid5(uuid.NAMESPACE_URL, doc_id))
        self.page_content = "text of " + doc_id
        self.metadata = {"doc_id": doc_id}


def store_retriever(query):
    return [Document(doc) for doc in lookup(query)]
"""


# Not about processes: pytest-xdist is covered by
# test_summary.py::test_summary_after_a_regression[xdist].
@SERIAL_ONLY
def test_ids_that_match_nothing_fail_with_the_fix(suite, run_mode):
    suite.make(
        ragcheck_module('"golden.jsonl", k=2, baseline=False', body="ragcheck(store_retriever)")
        .replace("def test_rag(ragcheck, retriever):", "def test_rag(ragcheck):")
        .replace(
            "from pytest_ragcheck import ragcheck",
            "from conftest import store_retriever\nfrom pytest_ragcheck import ragcheck",
        ),
        extra=GENERATED_IDS,
    )
    result = suite.run(*run_mode)
    result.assert_outcomes(failed=1)
    suite.assert_clean(result)
    text = suite.text(result)
    assert "No retrieved id matches an id of the golden set (4 cases with hits)" in text
    assert "they look like UUIDs a framework generated" in text
    assert (
        "Fix: pass id_key='doc_id' (metadata['doc_id'] holds ids of the golden set in 5 hits)"
        in text
    )


def test_fewer_hits_than_the_cutoff_in_the_summary_and_the_failure(suite):
    suite.make(
        ragcheck_module('"golden.jsonl", k=5, baseline=False, min_mrr=0.5', function="test_ok")
        + "\n\n"
        + ragcheck_module('"golden.jsonl", k=5, baseline=False, min_precision_at_5=0.9')
        .split("\n\n", 1)[1]
        .replace("def test_rag(", "def test_floor("),
    )
    result = suite.run("-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)
    suite.assert_clean(result)
    note = (
        "retriever returned at most 2 hits; metrics @5 are computed on 2; callable lookup takes "
        "no k or top_k parameter: add one, or make it return at least 5 hits"
    )
    # The summary wraps it under its label; the failure message repeats it whole.
    result.stdout.fnmatch_lines(
        [
            "  note: retriever returned at most 2 hits; metrics @5 are computed on 2; callable lookup "
            "takes no k or top_k",
            "        parameter: add one, or make it return at least 5 hits",
        ]
    )
    assert f"Note: {note}." in suite.text(result)
    # a lookup in a dict: serial, as a fast call (< 1 ms) or a CPU-bound one
    assert re.search(r"note: concurrency auto → 1 \((fast|CPU-bound): ", result.stdout.str())
