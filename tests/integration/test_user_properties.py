"""Metrics go to ``item.user_properties`` as ``ragcheck.<metric>``: --junitxml and xdist."""

from __future__ import annotations

import pytest

# With suite.PERFECT at k=10 every relevant document is first: hit rate, MRR, recall, MAP and
# nDCG are 1; precision@10 is (1 + 1 + 2 + 1) / 10 / 4 = 0.125.
EXPECTED = {
    "ragcheck.hit_rate@10": 1.0,
    "ragcheck.mrr@10": 1.0,
    "ragcheck.precision@10": 0.125,
    "ragcheck.recall@10": 1.0,
    "ragcheck.map@10": 1.0,
    "ragcheck.ndcg@10": 1.0,
}

# The report objects (on the xdist controller too) carry the properties.
PRINT_PROPERTIES = """
def pytest_runtest_logreport(report):
    if report.when == "call":
        names = sorted(name for name, _ in report.user_properties)
        print("PROPS", report.nodeid, names)
"""


def test_junitxml_has_metric_properties(suite, run_mode):
    suite.make(
        """
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", baseline=False)
        def test_rag(ragcheck, retriever):
            ragcheck(retriever)

        @ragcheck("golden.jsonl", baseline=False, min_precision=0.5)
        def test_fails(ragcheck, retriever):
            ragcheck(retriever)
        """,
        extra=PRINT_PROPERTIES,
    )
    xml = suite.path / "junit.xml"
    result = suite.run(*run_mode, f"--junitxml={xml}", "-s")
    result.assert_outcomes(passed=1, failed=1)
    props_line = (
        "PROPS test_rag.py::test_rag ['ragcheck.hit_rate@10', 'ragcheck.latency_max_ms', "
        "'ragcheck.latency_p50_ms', 'ragcheck.latency_p95_ms', 'ragcheck.map@10', "
        "'ragcheck.mrr@10', 'ragcheck.ndcg@10', 'ragcheck.precision@10', 'ragcheck.recall@10']"
    )
    assert props_line in suite.text(result)
    props = suite.junit_properties(xml)
    for name in ("test_rag", "test_fails"):  # a failing test records its metrics too
        values = {k: v for k, v in props[name].items() if not k.startswith("ragcheck.latency_")}
        assert {k: float(v) for k, v in values.items()} == pytest.approx(EXPECTED)
        latency = {k for k in props[name] if k.startswith("ragcheck.latency_")}
        assert latency == {
            "ragcheck.latency_p50_ms",
            "ragcheck.latency_p95_ms",
            "ragcheck.latency_max_ms",
        }
