"""Command-line and ini options: read once at start-up, a bad value is a usage error.

The error (exit code 4) names the option or ini key and the value, and comes before
collection, whether or not the session has ragcheck tests. Under pytest-xdist the controller
refuses the session before any worker starts, so no worker crashes; workers read the same
values and give every test the same defaults.
"""

from __future__ import annotations

import pytest
from harness import RUN_MODES

RAGCHECK_TEST = """
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", baseline=False, min_mrr=0.5)
def test_rag(ragcheck, retriever):
    ragcheck(retriever)

def test_other():
    pass
"""

PLAIN_TEST = """
def test_plain():
    pass
"""

BAD_VALUES = [
    pytest.param(
        ["--ragcheck-tolerance=abc"],
        {},
        "--ragcheck-tolerance / ragcheck_tolerance: expected a number, got 'abc'",
        id="cli-tolerance",
    ),
    pytest.param(
        [],
        {"ragcheck_tolerance": "-0.1"},
        "--ragcheck-tolerance / ragcheck_tolerance must be a number >= 0, got '-0.1'",
        id="ini-tolerance-negative",
    ),
    pytest.param(
        [],
        {"ragcheck_concurrency": "many"},
        "--ragcheck-concurrency / ragcheck_concurrency must be 'auto' or an integer >= 1, "
        "got 'many'",
        id="ini-concurrency",
    ),
    pytest.param(
        ["--ragcheck-concurrency=0"],
        {},
        "--ragcheck-concurrency / ragcheck_concurrency must be 'auto' or an integer >= 1, got '0'",
        id="cli-concurrency-zero",
    ),
    pytest.param(
        [],
        {"ragcheck_baseline_precision": "many"},
        "ini ragcheck_baseline_precision must be an integer 0-12 (decimals kept in baseline "
        "files), got 'many'",
        id="ini-precision",
    ),
    pytest.param(
        ["--ragcheck-report=out/r.txt"],
        {},
        "--ragcheck-report=out/r.txt: unknown report format ('.txt')",
        id="cli-report",
    ),
    pytest.param(
        [],
        {"ragcheck_report": "r.json, r"},
        "ini ragcheck_report=r: unknown report format (no extension)",
        id="ini-report",
    ),
    pytest.param(
        ["--ragcheck-no-judge=maybe"],
        {},
        "--ragcheck-no-judge / ragcheck_no_judge must be 'fail' or 'skip', got 'maybe'",
        id="cli-no-judge",
    ),
    pytest.param(
        [],
        {"ragcheck_no_summary": "maybe"},
        "ini ragcheck_no_summary: invalid truth value 'maybe'",
        id="ini-bool",
    ),
]


def _in_run_modes(values: list) -> list:
    """``run_mode`` with each bad value: all of them in one process, the first two (one from
    the command line, one from the ini file) under pytest-xdist too, where the controller
    reads every option in the same place before any worker starts."""
    serial, xdist = RUN_MODES
    return [
        pytest.param(*mode.values, *value.values, id=f"{mode.id}-{value.id}", marks=mode.marks)
        for mode in (serial, xdist)
        for value in (values if mode is serial else values[:2])
    ]


def _assert_usage_error(suite, result, expected: str) -> None:
    text = suite.text(result)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, text
    assert f"ERROR: {expected}" in result.stderr.str(), text
    assert "passed" not in text, "a test ran despite the bad option"
    assert "invalid configuration" not in text
    assert "worker" not in text.lower(), "an xdist worker started or crashed"
    suite.assert_clean(result)


@pytest.mark.parametrize(("run_mode", "args", "ini", "expected"), _in_run_modes(BAD_VALUES))
def test_bad_value_without_ragcheck_tests(suite, run_mode, args, ini, expected):
    suite.ini(**ini)
    suite.test(PLAIN_TEST)
    _assert_usage_error(suite, suite.run(*run_mode, *args), expected)


@pytest.mark.parametrize(("run_mode", "args", "ini", "expected"), _in_run_modes(BAD_VALUES[:2]))
def test_bad_value_with_ragcheck_tests(suite, run_mode, args, ini, expected):
    suite.golden()
    suite.retriever()
    suite.ini(**ini)
    suite.test(RAGCHECK_TEST)
    _assert_usage_error(suite, suite.run(*run_mode, *args), expected)


def test_command_line_wins_over_a_bad_ini_value(suite):
    """The ini value is never read when the command line gives one."""
    suite.ini(ragcheck_tolerance="abc", ragcheck_report="r.txt")
    suite.test(PLAIN_TEST)
    result = suite.run("--ragcheck-tolerance=0.05", "--ragcheck-report=out/r.json")
    result.assert_outcomes(passed=1)
    assert (
        "ragcheck: judge=not set, judge cache=.ragcheck/judge, tolerance=0.05, "
        "concurrency=auto, report=out/r.json"
    ) in result.stdout.lines
    suite.assert_clean(result)


def test_every_process_gets_the_same_defaults(suite, run_mode):
    """Tests on xdist workers see the controller's options (command line and ini)."""
    suite.ini(
        ragcheck_concurrency="3",
        ragcheck_judge_model="ini-model",
        ragcheck_judge_offline="true",
    )
    suite.test(
        """
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl")
        def test_settings(ragcheck):
            settings = ragcheck.settings()
            assert settings.tolerance == 0.07
            assert settings.concurrency == 3
            assert settings.judge.model == "ini-model"
            assert settings.judge.offline
            assert settings.judge.cache_dir is None
        """
    )
    result = suite.run(*run_mode, "--ragcheck-tolerance=0.07", "--ragcheck-judge-cache=off")
    result.assert_outcomes(passed=1)
    suite.assert_clean(result)
