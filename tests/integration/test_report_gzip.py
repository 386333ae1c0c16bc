"""``--ragcheck-report=report.json.gz``: the JSON report, gzip-compressed as it is written."""

from __future__ import annotations

import gzip
import json

import pytest
from harness import ragcheck_module

from pytest_ragcheck.report.paths import parse_report_paths, report_format
from pytest_ragcheck.report.schema import Report

#: More cases than the HTML report shows: the cases travel packed, as in a large run.
CASES = [
    {"id": f"q{i}", "query": f"query {i}", "expected_ids": [f"d{i}", f"d{i + 1}"]}
    for i in range(260)
]
RANKINGS = {f"query {i}": [f"d{i + 1}", "x", f"d{i}"] for i in range(260)}


def test_json_gz_is_the_json_report_compressed(suite, tmp_path):
    suite.make(
        ragcheck_module('"golden.jsonl", baseline=False, metrics=["mrr", "recall@2"]'),
        cases=CASES,
        rankings=RANKINGS,
    )
    result = suite.run("--ragcheck-report=out/report.json,out/report.JSON.GZ")
    result.assert_outcomes(passed=1)
    text = suite.text(result)
    assert f"ragcheck report: {suite.path / 'out' / 'report.JSON.GZ'}" in text

    plain = (suite.path / "out/report.json").read_bytes()
    packed = (suite.path / "out/report.JSON.GZ").read_bytes()
    assert packed[:2] == b"\x1f\x8b"  # gzip's magic number
    assert gzip.decompress(packed) == plain  # the same text, byte for byte
    assert len(packed) * 4 < len(plain)
    report = Report.model_validate_json(gzip.decompress(packed))
    (test,) = report.tests
    assert len(test.cases) == 260
    assert test.cases[5].values == {"mrr@10": 1.0, "recall@2": 0.5}
    with gzip.open(suite.path / "out/report.JSON.GZ", "rt", encoding="utf-8") as handle:
        assert json.load(handle)["tests"][0]["cases"][259]["id"] == "q259"
    assert not list((suite.path / "out").glob(".*.tmp"))  # written atomically, nothing left


def test_only_json_is_compressed(tmp_path):
    paths = parse_report_paths("a.json.gz,b.tar.json,c.json", base=tmp_path)
    assert [report_format(p) for p in paths] == [".json.gz", ".json", ".json"]
    for bad in ("d.md.gz", "e.gz", "f.html.gz"):
        with pytest.raises(ValueError, match=r"unknown report format \('\.gz'\); .* or \.json\.gz"):
            parse_report_paths(bad, base=tmp_path)
