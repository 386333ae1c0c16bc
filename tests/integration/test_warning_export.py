"""``RagcheckWarning`` is importable from the package and filterable by that name."""

from __future__ import annotations

import pytest

import pytest_ragcheck
from pytest_ragcheck.plugin import RagcheckWarning

TEST = """
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", k=2, baseline=False)
def test_unchecked(ragcheck):
    return
"""


def test_the_package_exports_the_warning() -> None:
    assert pytest_ragcheck.RagcheckWarning is RagcheckWarning
    assert issubclass(RagcheckWarning, pytest.PytestWarning)
    assert "RagcheckWarning" in pytest_ragcheck.__all__


@pytest.mark.parametrize(
    ("action", "outcome"), [("ignore", {"passed": 1}), ("error", {"failed": 1})]
)
def test_filtered_by_its_package_name(suite, action, outcome):
    suite.golden()
    suite.test(TEST)
    suite.ini(filterwarnings=f"{action}::pytest_ragcheck.RagcheckWarning")
    result = suite.run()
    result.assert_outcomes(**outcome)
    seen = "RagcheckWarning" in suite.text(result)
    assert seen is (action == "error")
