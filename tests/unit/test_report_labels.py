"""The status vocabulary is defined once and every output agrees with it."""

from __future__ import annotations

from typing import get_args

import pytest

from pytest_ragcheck.gate import checks
from pytest_ragcheck.report import labels, schema


def test_the_published_schema_and_the_checks_use_the_vocabulary():
    assert get_args(schema.EntryStatus) == labels.TEST_STATUSES
    assert get_args(schema.MetricStatus) == labels.METRIC_STATUSES
    assert set(get_args(checks.Status)) == set(labels.METRIC_STATUSES)
    assert set(checks.FAILED) == set(labels.FAILED_CHECKS)
    assert list(schema.Summary.model_fields) == ["tests", *labels.TEST_STATUSES]
    assert set(labels.ICONS) == set(labels.TEST_STATUSES)


@pytest.mark.parametrize(
    ("metrics", "outcome", "status"),
    [
        (["pass", "regressed", "below_floor"], "failed", "regressed"),
        (["pass", "below_floor"], "failed", "below_floor"),
        (["above_ceiling"], "failed", "above_ceiling"),
        # a missing baseline, a retriever error, the test's own assertion: pytest says failed
        (["pass"], "failed", "failed"),
        (["improved"], "failed", "failed"),  # ragcheck_fail_on_improvement
        (["pass", "improved"], "passed", "improved"),
        (["new", "new"], "passed", "new"),
        (["pass", "new"], "passed", "passed"),
        ([], "passed", "passed"),
        (["regressed"], "skipped", "skipped"),  # an expected failure (xfail)
    ],
)
def test_a_test_status_refines_pytests_outcome(metrics, outcome, status):
    assert labels.entry_status(metrics, outcome) == status
    assert (status in labels.FAILING) == (outcome == "failed")


def test_words():
    assert labels.word("below_floor") == "below floor"
    assert labels.title("below_floor") == "BELOW FLOOR"
    assert labels.title("failed") == "FAILED"  # pytest's own word
