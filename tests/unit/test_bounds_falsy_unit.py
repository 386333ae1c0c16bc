"""``thresholds=`` that is falsy but no dict is a usage error, never "no bound" unsaid."""

from __future__ import annotations

import pytest

from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.evaluation.keywords import build_settings


@pytest.mark.parametrize("value", [0, [], "", ()])
def test_falsy_thresholds_that_are_no_dict(value: object) -> None:
    with pytest.raises(ConfigError, match=r"^thresholds must be a dict of metric name -> bound"):
        build_settings({"thresholds": value})


def test_no_thresholds_and_an_empty_dict_bound_nothing() -> None:
    assert build_settings({"thresholds": None}).thresholds == ()
    assert build_settings({"thresholds": {}}).thresholds == ()
