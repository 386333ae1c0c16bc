"""``--junitxml``: metrics, baselines and deltas as ``<property>`` entries, no warnings."""

from __future__ import annotations

from harness import SERIAL_ONLY

TESTS = """
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", metrics=["mrr"])
def test_regressed(ragcheck, retriever):
    ragcheck(retriever)

@ragcheck("golden.jsonl", baseline=False, metrics=["mrr"])
def test_plain(ragcheck, retriever):
    ragcheck(retriever)
"""


# Not about processes: pytest-xdist is covered by
# test_user_properties.py::test_junitxml_has_metric_properties[xdist].
@SERIAL_ONLY
def test_baseline_and_delta_properties(suite, run_mode):
    _check(suite, *run_mode)  # junit_family=xunit2, pytest's default


def test_xunit1_family(suite):
    _check(suite, "-o", "junit_family=xunit1")


def _check(suite, *args):
    suite.make(TESTS)
    suite.rebaseline(suite.PERFECT, suite.WORSE)
    xml = suite.path / "junit.xml"
    result = suite.run(*args, f"--junitxml={xml}")
    result.assert_outcomes(passed=1, failed=1)
    text = suite.text(result)
    assert "warning" not in text.lower()  # and filterwarnings=error would have failed the run
    props = suite.junit_properties(xml)  # (also fails on a property written twice)
    regressed = {k: v for k, v in props["test_regressed"].items() if "latency" not in k}
    assert regressed == {
        "ragcheck.mrr@10": "0.708333",
        "ragcheck.mrr@10.baseline": "1.0",
        # Compared as stored (baselines keep 4 decimals), so an unchanged rerun gives 0.
        "ragcheck.mrr@10.delta": "-0.2917",
        "ragcheck.mrr@10.allowed": "0.02",
        "ragcheck.mrr@10.status": "regressed",
        # Two of four cases changed: too few for the paired test, the tolerance decided.
        "ragcheck.mrr@10.basis": "tolerance",
    }
    assert {k for k in props["test_regressed"] if "latency" in k} == {
        "ragcheck.latency_p50_ms",
        "ragcheck.latency_p95_ms",
        "ragcheck.latency_max_ms",
    }
    plain = {k: v for k, v in props["test_plain"].items() if "latency" not in k}
    assert plain == {"ragcheck.mrr@10": "0.708333"}  # no baseline: the value only
