"""The terminal summary at the end of a run, and the report header line."""

from __future__ import annotations

import re

from harness import REGRESSED_FLOOR_PLAIN as TESTS
from harness import SERIAL_ONLY


def _summary(text: str) -> list[str]:
    """The lines of the ragcheck summary section."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.fullmatch(r"=+ ragcheck summary =+", line))
    end = next(i for i in range(start + 1, len(lines)) if re.match(r"^(=|-){5,}", lines[i]))
    return lines[start + 1 : end]


def _cells(line: str) -> list[str]:
    return line.split()


def test_summary_after_a_regression(suite, run_mode):
    suite.make(TESTS)
    suite.rebaseline(suite.PERFECT, suite.WORSE)
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=1, failed=2)
    text = suite.text(result)
    assert len(re.findall(r"=+ ragcheck summary =+", text)) == 1  # once, even under xdist
    summary = _summary(text)
    # One table per test, in node-id order (xdist delivers them in any order).
    titles = [line for line in summary if line and not line.startswith(" ")]
    assert titles == [
        "BELOW FLOOR    test_rag.py::test_floor  golden.jsonl (4 cases, k=10)",
        "PASSED         test_rag.py::test_plain  golden.jsonl (4 cases, k=10)",
        "REGRESSED      test_rag.py::test_regressed  golden.jsonl (4 cases, k=10)",
        "ragcheck: 3 tests — 1 regressed, 1 below floor, 1 passed",
    ]
    regressed = summary[summary.index(titles[2]) :]
    assert _cells(regressed[1]) == ["metric", "value", "baseline", "Δ", "allowed", "status"]
    rows = {line.split()[0]: _cells(line) for line in regressed if line.startswith("  ")}
    assert rows["mrr@10"][:6] == ["mrr@10", "0.708", "1.000", "−0.292", "0.020", "regressed"]
    assert rows["recall@1"][:6] == ["recall@1", "0.375", "0.875", "−0.500", "0.020", "regressed"]
    assert rows["latency_p95_ms"][2:5] == ["-", "-", "-"]  # latency has no baseline
    floor = summary[summary.index(titles[0]) :]
    assert _cells(floor[1]) == ["metric", "value", "threshold", "status"]
    recall_row = next(line for line in floor if line.strip().startswith("recall@1 "))
    assert _cells(recall_row) == ["recall@1", "0.375", "≥", "0.900", "below", "floor"]
    plain = summary[summary.index(titles[1]) :]
    assert _cells(plain[1]) == ["metric", "value", "status"]  # baseline=False: no columns
    suite.assert_clean(result)


def test_improvements_are_listed_with_the_update_hint(suite):
    suite.make(TESTS)
    suite.rebaseline(suite.WORSE, suite.PERFECT)
    result = suite.run("-k", "regressed")
    result.assert_outcomes(passed=1)
    summary = _summary(suite.text(result))
    assert summary[0].startswith("IMPROVED       test_rag.py::test_regressed")
    hint = summary.index(
        'Improved beyond tolerance — to record it: pytest "test_rag.py::test_regressed" '
        "--snapshot-update"
    )
    assert summary[hint + 1 : hint + 3] == [
        "  test_rag.py::test_regressed  mrr@10 0.708 → 1.000 (+0.292)",
        "  test_rag.py::test_regressed  recall@1 0.375 → 0.875 (+0.500)",
    ]


def test_quiet_summary_is_one_line_per_test(suite):
    suite.make(TESTS, rankings=suite.WORSE)
    result = suite.run("-q", "-k", "floor or plain")
    result.assert_outcomes(passed=1, failed=1)
    summary = _summary(suite.text(result))
    assert summary == [
        "BELOW FLOOR    test_rag.py::test_floor  recall@1 0.375 (below floor 0.900)",
        "PASSED         test_rag.py::test_plain  hit_rate@10 1.000",
        "ragcheck: 2 tests — 1 below floor, 1 passed",
    ]


# Not about processes: pytest-xdist is covered by
# test_option_errors.py::test_every_process_gets_the_same_defaults and
# test_summary.py::test_summary_after_a_regression[xdist].
@SERIAL_ONLY
def test_no_summary_option_and_ini(suite, run_mode):
    suite.make(TESTS)
    result = suite.run(*run_mode, "--ragcheck-no-summary", "-k", "plain")
    result.assert_outcomes(passed=1)
    assert "ragcheck summary" not in suite.text(result)
    assert "ragcheck: 1 test" not in suite.text(result)
    suite.ini(ragcheck_no_summary="true")
    result = suite.run("-k", "plain")
    result.assert_outcomes(passed=1)
    assert "ragcheck summary" not in suite.text(result)


def test_no_ragcheck_test_no_summary(suite):
    suite.test("def test_nothing():\n    pass\n")
    result = suite.run()
    result.assert_outcomes(passed=1)
    assert "ragcheck summary" not in suite.text(result)


def test_header_shows_the_effective_configuration(suite):
    suite.test("def test_nothing():\n    pass\n")
    result = suite.run(
        "--ragcheck-judge-model=gpt-4o-mini",
        "--ragcheck-judge-api-base=http://user:hunter2@localhost:9/v1?key=s3cret",
        "--ragcheck-tolerance=0.05",
        "--ragcheck-judge-cache=off",
        "--ragcheck-report=out/r.json",
    )
    result.assert_outcomes(passed=1)
    assert (
        "ragcheck: judge=gpt-4o-mini at http://localhost:9/v1, judge cache=off, "
        "tolerance=0.05, concurrency=auto, report=out/r.json"
    ) in result.stdout.lines
    text = suite.text(result)
    assert "hunter2" not in text
    assert "s3cret" not in text


def test_header_defaults_and_offline_cache(suite):
    suite.ini(ragcheck_judge_offline="true", ragcheck_concurrency="4")
    suite.test("def test_nothing():\n    pass\n")
    result = suite.run()
    assert (
        "ragcheck: judge=not set, judge cache=.ragcheck/judge (offline), tolerance=0.02, "
        "concurrency=4"
    ) in result.stdout.lines
