"""What a baseline check keeps, writes or compares, and the outcome the reports read."""

from __future__ import annotations

import json
from typing import Any

import pytest
from baseline_data import make_result, per_case, settings

from pytest_ragcheck.baseline.decision import (
    BaselineDecision,
    BaselineOutcome,
    StoredText,
    decide_baseline,
)
from pytest_ragcheck.baseline.document import BaselineDoc
from pytest_ragcheck.baseline.options import BaselineOptions
from pytest_ragcheck.evaluation.result import Result
from pytest_ragcheck.gate.verdict import Verdict, check_floors

PATH = "__ragcheck__/test_rag/test_x[ragcheck].json"
BEFORE = make_result(per_case("mrr@10", [1.0] * 8))
WORSE = make_result(per_case("mrr@10", [1.0, 0.5, 1.0, 0.25, 1.0, 1.0, 0.5, 1.0]))


def text_of(result: Result) -> str:
    return BaselineDoc.from_result(result).to_json()


def decide(
    result: Result, stored_text: str | None, **kwargs: Any
) -> tuple[BaselineDecision, Verdict]:
    verdict = kwargs.pop("verdict", None) or check_floors(result, settings())
    decision = decide_baseline(
        stored_text=stored_text,
        path=PATH,
        result=result,
        settings=settings(),
        options=kwargs.pop("options", BaselineOptions()),
        verdict=verdict,
        **kwargs,
    )
    return decision, verdict


def test_disabled_outcome_is_the_short_dict() -> None:
    assert BaselineOutcome(status="disabled").to_dict() == {
        "status": "disabled",
        "path": None,
        "values": {},
    }


def test_missing_asserts_the_new_doc_and_fails() -> None:
    decision, verdict = decide(BEFORE, None)
    assert isinstance(decision.to_assert, BaselineDoc)
    assert decision.outcome.to_dict() == {
        "status": "missing",
        "path": PATH,
        "values": {},
        "precision": 4,
    }
    assert "No baseline stored for this test yet" in verdict.problems[0]


@pytest.mark.parametrize("flag", ["update", "update_new_only"])
def test_created_under_either_update_flag(flag: str) -> None:
    decision, verdict = decide(BEFORE, None, **{flag: True})
    assert isinstance(decision.to_assert, BaselineDoc)
    assert decision.outcome.status == "created"
    assert decision.outcome.values == {"mrr@10": 1.0}
    assert verdict.notes == [f"baseline created: {PATH}"]
    assert not verdict.failed


def test_unchanged_rerun_keeps_the_file_byte_for_byte() -> None:
    stored = text_of(BEFORE)
    decision, verdict = decide(BEFORE, stored)
    assert isinstance(decision.to_assert, StoredText)
    assert decision.to_assert == stored
    out = decision.outcome.to_dict()
    assert list(out) == [
        "status",
        "path",
        "values",
        "precision",
        "cases",
        "regressed",
        "improved",
        "case_diff",
    ]
    assert out["case_diff"]["shared"] == 8
    assert out["case_diff"]["added"] == out["case_diff"]["edited"] == 0
    assert out["status"] == "compared"
    assert out["regressed"] == out["improved"] == []
    assert out["cases"]["q01"] == {"mrr@10": 1.0}
    assert not verdict.failed


def test_regression_asserts_the_new_doc_so_syrupy_fails_too() -> None:
    decision, verdict = decide(WORSE, text_of(BEFORE))
    assert isinstance(decision.to_assert, BaselineDoc)
    assert decision.outcome.status == "compared"
    assert decision.outcome.regressed == ("mrr@10",)
    assert verdict.checks["mrr@10"].status == "regressed"
    assert verdict.case_changes


def test_update_with_changed_values_records_previous() -> None:
    decision, _ = decide(WORSE, text_of(BEFORE), update=True)
    assert isinstance(decision.to_assert, BaselineDoc)
    out = decision.outcome.to_dict()
    assert out["status"] == "updated"
    assert out["previous"] == {"mrr@10": 1.0}
    assert out["values"] == {"mrr@10": 0.7812}
    assert list(out)[-2:] == ["previous", "case_diff"]


def test_not_comparable_lists_its_reasons() -> None:
    other = make_result(per_case("mrr@5", [1.0] * 8), k=5)
    decision, verdict = decide(other, text_of(BEFORE))
    out = decision.outcome.to_dict()
    assert out["status"] == "not_comparable"
    assert "cases" not in out
    assert out["reasons"] == [
        "no metric is shared with the baseline (baseline: mrr@10; this run: mrr@5)"
    ]
    assert verdict.problems[0].startswith("baseline not comparable: no metric is shared")


def test_unreadable_file_is_corrupt_or_replaced_under_update() -> None:
    decision, verdict = decide(BEFORE, "{not json")
    assert isinstance(decision.to_assert, BaselineDoc)  # a failed snapshot, not written
    out = decision.outcome.to_dict()
    assert list(out) == ["status", "path", "values", "precision", "problem"]
    assert out["status"] == "corrupt"
    assert "not valid JSON" in out["problem"]
    assert verdict.problems[0].startswith("Baseline cannot be read:")

    decision, verdict = decide(BEFORE, "{not json", update=True)
    assert decision.outcome.status == "updated"
    assert decision.outcome.values == {"mrr@10": 1.0}
    assert not verdict.failed


def test_newer_file_is_kept_as_it_is() -> None:
    data = json.loads(text_of(BEFORE))
    data["schema_version"] = 99
    newer = json.dumps(data)
    decision, verdict = decide(BEFORE, newer, update=True)
    assert decision.to_assert == newer
    assert isinstance(decision.to_assert, StoredText)
    assert decision.outcome.status == "corrupt"
    assert "upgrade pytest-ragcheck" in verdict.problems[0]


def test_failed_evaluation_keeps_the_stored_file() -> None:
    verdict = Verdict(problems=["The retriever failed on 1 of 8 case(s)"])
    decision, _ = decide(WORSE, text_of(BEFORE), update=True, verdict=verdict)
    assert isinstance(decision.to_assert, StoredText)
    assert decision.outcome.to_dict() == {
        "status": "kept",
        "path": PATH,
        "values": {},
        "precision": 4,
    }
    assert verdict.notes == [
        f"baseline {PATH} was not compared or re-recorded because the evaluation failed"
    ]
    decision, _ = decide(WORSE, None, verdict=Verdict(problems=["failed"]))
    assert decision.to_assert is None


def test_a_file_shared_with_another_test_is_left_alone() -> None:
    decision, verdict = decide(BEFORE, text_of(BEFORE), shared_with="test_rag.py::test_y")
    assert decision.to_assert is None
    assert decision.outcome.status == "kept"
    assert verdict.problems[0].startswith("test_rag.py::test_y and this test map to the same")


def test_options_set_precision_and_fail_on_improvement() -> None:
    options = BaselineOptions(precision=2, fail_on_improvement=True)
    decision, _ = decide(BEFORE, None, update=True, options=options)
    assert isinstance(decision.to_assert, BaselineDoc)
    assert decision.to_assert.precision == 2
    assert decision.outcome.precision == 2

    decision, verdict = decide(BEFORE, text_of(WORSE), options=options)
    assert decision.outcome.improved == ("mrr@10",)
    assert verdict.problems[0].startswith("Improved beyond tolerance")
