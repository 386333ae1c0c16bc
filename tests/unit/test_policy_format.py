"""Numbers in messages: what a user reads must not invent or hide a change."""

from __future__ import annotations

import pytest

from pytest_ragcheck.baseline.document import round_value
from pytest_ragcheck.common.display import format_value


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0.5625, "0.563"),  # half-up, not banker's rounding
        (0.3685, "0.369"),  # binary 0.36849999... still reads as stored
        (0.0, "0.000"),
        (1.0, "1.000"),
        (-0.0345, "-0.035"),
        (123.456, "123.5"),
        (None, "-"),
    ],
)
def test_format_value(value: float | None, shown: str) -> None:
    assert format_value(value) == shown


@pytest.mark.parametrize("current", [0.368527, 0.36846, 0.123449, 0.99995, 0.00005, 0.5])
def test_an_unchanged_metric_reads_like_its_stored_baseline(current: float) -> None:
    assert format_value(round_value(current, 4)) == format_value(current)
