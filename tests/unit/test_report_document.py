"""The report document: statuses, ordering, per-case baselines, the published schema."""

from __future__ import annotations

import copy
import json

import pydantic
import pytest
from report_data import NODE, passed_record, regressed_record, sample_document, sample_records

from pytest_ragcheck.report.document import (
    SCHEMA_VERSION,
    build_document,
    ci_info,
    normalise,
    run_info,
    sort_for_attention,
)
from pytest_ragcheck.report.schema import Report


def test_document_validates_against_the_published_schema():
    document = sample_document()
    report = Report.model_validate_json(json.dumps(document, allow_nan=False))
    assert report.schema_version == SCHEMA_VERSION == 4
    assert report.summary.tests == 5
    assert [t.nodeid for t in report.tests] == sorted(t.nodeid for t in report.tests)


def test_schema_rejects_unknown_and_missing_fields():
    document = sample_document()
    extra = copy.deepcopy(document)
    extra["tests"][0]["metrics"][0]["surprise"] = 1
    with pytest.raises(pydantic.ValidationError, match="surprise"):
        Report.model_validate(extra)
    missing = copy.deepcopy(document)
    del missing["tests"][0]["cases"][0]["hits"]
    with pytest.raises(pydantic.ValidationError, match="hits"):
        Report.model_validate(missing)
    newer = dict(document, schema_version=5)
    with pytest.raises(pydantic.ValidationError, match="schema_version"):
        Report.model_validate(newer)


def test_json_schema_is_published():
    schema = Report.model_json_schema()
    assert schema["properties"]["schema_version"]["const"] == 4
    assert "MetricEntry" in schema["$defs"]


def test_statuses_and_summary_counts():
    document = sample_document()
    by_name = {t["nodeid"].split("::")[1]: t for t in document["tests"]}
    assert {name: t["status"] for name, t in by_name.items()} == {
        "test_faq": "regressed",
        "test_flaky_api": "failed",  # as pytest reports it (retriever errors)
        "test_manual": "below_floor",
        "test_smoke": "passed",
        "test_support": "improved",
    }
    summary = document["summary"]
    assert summary["tests"] == 5
    assert (summary["regressed"], summary["below_floor"], summary["failed"]) == (1, 1, 1)
    assert (summary["improved"], summary["passed"], summary["skipped"]) == (1, 1, 0)


def test_regression_wins_over_floor_and_failed_outcome_counts():
    record = regressed_record()
    checks = record["verdict"]["checks"]
    recall = next(c for c in checks if c["name"] == "recall@10")
    recall["status"] = "below_floor"
    assert normalise(record)["status"] == "regressed"
    # A test whose own assertion failed after a clean ragcheck call is "failed".
    clean = passed_record()
    clean["outcome"] = "failed"
    assert normalise(clean)["status"] == "failed"


def test_sort_for_attention_puts_regressions_first():
    ordered = [t["nodeid"].split("::")[1] for t in sort_for_attention(sample_document()["tests"])]
    assert ordered == ["test_faq", "test_manual", "test_flaky_api", "test_support", "test_smoke"]


def test_per_case_baselines_move_into_the_cases():
    entry = normalise(regressed_record())
    assert "cases" not in entry["baseline"]  # not carried twice
    assert entry["baseline"]["status"] == "compared"
    case = next(c for c in entry["cases"] if c["id"] == "q03")
    assert case["baseline_values"]["mrr@10"] > case["values"]["mrr@10"]
    # Hits are marked relevant by grade.
    assert [h["relevant"] for h in case["hits"]] == [h["grade"] > 0 for h in case["hits"]]
    assert sum(h["relevant"] for h in case["hits"]) == 1


def test_baseline_cases_as_a_list_are_read_too():
    record = regressed_record()
    # Records carry each case's baseline values in its entry; a record from elsewhere may
    # carry them in the baseline block instead, as a mapping or a list.
    cases = {c["id"]: c.pop("baseline_values") for c in record["result"]["cases"]}
    record["baseline"]["cases"] = [{"id": cid, "values": vals} for cid, vals in cases.items()]
    entry = normalise(record)
    assert entry["cases"][0]["baseline_values"] == cases["q01"]


def test_metric_entries_carry_baseline_delta_and_allowed():
    entry = normalise(regressed_record())
    mrr = next(m for m in entry["metrics"] if m["name"] == "mrr@10")
    assert mrr["status"] == "regressed"
    assert mrr["delta"] == pytest.approx(mrr["value"] - mrr["baseline"])
    assert mrr["allowed"] == 0.02
    assert mrr["p_value"] == 0.003
    latency = next(m for m in entry["metrics"] if m["name"] == "latency_p95_ms")
    assert latency["kind"] == "latency"
    assert latency["baseline"] is None


def test_several_calls_in_one_test_are_numbered():
    records = [passed_record(), passed_record(NODE + "test_a"), passed_record()]
    document = build_document(records, run={})
    assert [(t["nodeid"].split("::")[1], t["call"]) for t in document["tests"]] == [
        ("test_a", 0),
        ("test_smoke", 0),
        ("test_smoke", 1),
    ]


def test_ci_info_only_on_github_actions():
    assert ci_info({}) is None
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": "acme/search",
        "GITHUB_RUN_ID": "42",
        "GITHUB_SHA": "0123456789abcdef",
        "GITHUB_REF_NAME": "feature/x",
    }
    info = ci_info(env)
    assert info is not None
    assert info["run_url"] == "https://github.com/acme/search/actions/runs/42"
    assert info["ref"] == "feature/x"


def test_run_info_fields():
    info = run_info(rootdir="/r", pytest_version="8.0")
    assert info["generator"].startswith("pytest-ragcheck ")
    assert info["rootdir"] == "/r"
    assert info["created_at"].endswith("+00:00")


def test_records_are_not_mutated():
    records = sample_records()
    before = json.dumps(records, sort_keys=True)
    build_document(records, run={})
    assert json.dumps(records, sort_keys=True) == before
