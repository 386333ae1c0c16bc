"""``ragcheck.compare`` under pytest-xdist with a golden file whose name is not UTF-8 (read
with ``surrogateescape``): the comparison reaches the controller, escaped as the reports write
such names, instead of ending the session in an INTERNALERROR."""

from __future__ import annotations

import json
import os

import pytest

TEST = """
import os
from conftest import lookup
from pytest_ragcheck import ragcheck
NAME = os.fsdecode(b"gold\\xff.jsonl")

def meh(query):
    return list(reversed(lookup(query)))

@ragcheck(NAME, k=2, metrics=["mrr"])
def test_compare(ragcheck):
    ragcheck.compare({"good": lookup, "meh": meh})
"""


@pytest.mark.skipif(os.name == "nt", reason="file names are UTF-16 on Windows")
def test_a_comparison_on_a_non_utf8_file_name_reaches_the_controller(suite, tmp_path):
    golden = suite.golden()
    os.rename(golden, os.fsencode(golden.parent) + b"/gold\xff.jsonl")
    suite.retriever()
    suite.test(TEST)
    report = tmp_path / "r.json"
    result = suite.run("-n", "2", f"--ragcheck-report={report}")
    result.assert_outcomes(passed=1)
    assert "INTERNALERROR" not in suite.text(result)
    (comparison,) = json.loads(report.read_text(encoding="utf-8"))["comparisons"]
    assert comparison["source"].endswith("gold\\udcff.jsonl")


NO_CASES = """
from conftest import lookup

def test_compare(ragcheck):
    ragcheck.compare({"a": lookup, "b": lookup})
"""


def test_a_comparison_without_cases_names_its_own_call(suite):
    suite.retriever()
    suite.test(NO_CASES)
    result = suite.run()
    result.assert_outcomes(failed=1)
    text = suite.text(result)
    assert "or call ragcheck.compare(systems, cases=...)" in text
    assert "ragcheck(retriever, cases=...)" not in text
