"""Reading the command-line and ini options into one validated object, without pytest."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ragcheck.baseline.options import BaselineOptions
from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.evaluation.settings import Defaults, JudgeSettings
from pytest_ragcheck.plugin.items import is_worker
from pytest_ragcheck.plugin.options import RagcheckOptions, parse_options
from pytest_ragcheck.plugin.specs import OPTION_SPECS
from pytest_ragcheck.report.paths import ReportPathError


def _parse(tmp_path: Path, cli=None, ini=None) -> RagcheckOptions:
    return parse_options(
        cli=cli or {},
        ini=ini or {},
        invocation_dir=tmp_path / "cwd",
        rootdir=tmp_path / "root",
    )


def test_nothing_set_gives_the_defaults(tmp_path):
    options = _parse(tmp_path)
    assert options == RagcheckOptions(
        report_paths=(),
        no_summary=False,
        defaults=Defaults(judge=JudgeSettings(cache_dir=tmp_path / "root" / ".ragcheck/judge")),
        baseline=BaselineOptions(precision=4, fail_on_improvement=False),
    )


def test_unset_values_as_pytest_gives_them(tmp_path):
    """Flags not given are ``None``, string ini keys ``None`` or ``""``, bool ini keys False."""
    cli = {spec.name: None for spec in OPTION_SPECS if spec.flag}
    ini = {spec.name: (False if spec.kind == "bool" else "") for spec in OPTION_SPECS}
    assert _parse(tmp_path, cli, ini) == _parse(tmp_path)


def test_every_value_is_read(tmp_path):
    options = _parse(
        tmp_path,
        cli={"tolerance": "0.05", "judge_model": "gpt-4o-mini", "no_summary": True},
        ini={
            "concurrency": "4",
            "judge_api_base": "http://localhost:9/v1",
            "judge_offline": True,
            "fail_on_improvement": True,
            "baseline_precision": " 2 ",
            "no_judge": " Skip ",
        },
    )
    assert options.no_summary
    assert options.no_judge == "skip"
    assert options.defaults.tolerance == 0.05
    assert options.defaults.concurrency == 4
    judge = options.defaults.judge
    assert (judge.model, judge.api_base, judge.offline) == (
        "gpt-4o-mini",
        "http://localhost:9/v1",
        True,
    )
    assert options.baseline == BaselineOptions(precision=2, fail_on_improvement=True)


@pytest.mark.parametrize(
    ("cli", "ini", "expected"),
    [
        ({}, {}, "auto"),
        ({"concurrency": "Auto"}, {"concurrency": "4"}, "auto"),
        ({}, {"concurrency": " 8 "}, 8),
    ],
)
def test_concurrency_is_auto_unless_a_number_is_given(tmp_path, cli, ini, expected):
    assert _parse(tmp_path, cli, ini).defaults.concurrency == expected


def test_the_command_line_wins_and_an_unread_ini_value_is_not_checked(tmp_path):
    options = _parse(
        tmp_path,
        cli={"tolerance": "0.1", "report": "a.md", "judge_model": "cli"},
        ini={"tolerance": "abc", "report": "b.txt", "judge_model": "ini"},
    )
    assert options.defaults.tolerance == 0.1
    assert options.report_paths == (tmp_path / "cwd" / "a.md",)
    assert options.defaults.judge.model == "cli"


def test_paths_on_the_command_line_are_relative_to_the_current_folder(tmp_path):
    cli = _parse(tmp_path, cli={"report": "out/r.json,r.html", "judge_cache": "cache"})
    assert cli.report_paths == (tmp_path / "cwd/out/r.json", tmp_path / "cwd/r.html")
    assert cli.defaults.judge.cache_dir == (tmp_path / "cwd/cache").resolve()
    ini = _parse(tmp_path, ini={"report": "out/r.json", "judge_cache": "cache"})
    assert ini.report_paths == (tmp_path / "root/out/r.json",)
    assert ini.defaults.judge.cache_dir == (tmp_path / "root/cache").resolve()


@pytest.mark.parametrize("value", ["off", " OFF "])
def test_judge_cache_off(tmp_path, value):
    assert _parse(tmp_path, ini={"judge_cache": value}).defaults.judge.cache_dir is None


def test_blank_text_is_unset(tmp_path):
    judge = _parse(tmp_path, cli={"judge_model": "  "}, ini={"judge_model": "ini"}).defaults.judge
    assert judge.model is None


@pytest.mark.parametrize(
    ("cli", "ini", "message"),
    [
        (
            {"tolerance": "abc"},
            {},
            "--ragcheck-tolerance / ragcheck_tolerance: expected a number, got 'abc'",
        ),
        (
            {},
            {"tolerance": "nan"},
            "--ragcheck-tolerance / ragcheck_tolerance must be a number >= 0, got 'nan'",
        ),
        (
            {},
            {"concurrency": "many"},
            "--ragcheck-concurrency / ragcheck_concurrency must be 'auto' or an integer >= 1, "
            "got 'many'",
        ),
        (
            {"concurrency": "0"},
            {},
            "--ragcheck-concurrency / ragcheck_concurrency must be 'auto' or an integer >= 1, "
            "got '0'",
        ),
        (
            {"concurrency": "2.5"},
            {},
            "--ragcheck-concurrency / ragcheck_concurrency must be 'auto' or an integer >= 1, "
            "got '2.5'",
        ),
        (
            {},
            {"baseline_precision": "13"},
            "ini ragcheck_baseline_precision must be an integer 0-12 (decimals kept in "
            "baseline files), got '13'",
        ),
        ({}, {"baseline_precision": "many"}, "ini ragcheck_baseline_precision must be"),
    ],
)
def test_bad_values_name_the_option_and_the_value(tmp_path, cli, ini, message):
    with pytest.raises(ConfigError) as info:
        _parse(tmp_path, cli, ini)
    assert str(info.value).startswith(message)


def test_an_unknown_report_extension_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError) as info:
        _parse(tmp_path, cli={"report": "r.json,r.xml"})
    assert isinstance(info.value, ReportPathError)
    assert "--ragcheck-report=r.xml: unknown report format ('.xml')" in str(info.value)


def test_options_are_frozen(tmp_path):
    with pytest.raises(AttributeError):
        _parse(tmp_path).no_summary = True  # type: ignore[misc]


def test_option_specs_name_flags_and_ini_keys():
    names = {spec.name: spec for spec in OPTION_SPECS}
    assert names["judge_api_base"].flag_name == "--ragcheck-judge-api-base"
    assert names["judge_api_base"].dest == "ragcheck_judge_api_base"
    assert names["baseline_precision"].label == "ini ragcheck_baseline_precision"
    assert not names["fail_on_improvement"].flag


def test_is_worker():
    class Worker:
        workerinput: dict[str, str] = {}  # noqa: RUF012

    assert is_worker(Worker())
    assert not is_worker(object())


def test_history_is_anchored_like_reports_and_prune_has_a_dry_run(tmp_path):
    for folder in ("cwd", "root"):
        (tmp_path / folder).mkdir()
    assert _parse(tmp_path).history is None
    assert _parse(tmp_path).judge_prune is None
    assert _parse(tmp_path, cli={"history": "h.jsonl"}).history == tmp_path / "cwd" / "h.jsonl"
    assert _parse(tmp_path, ini={"history": "h.jsonl"}).history == tmp_path / "root" / "h.jsonl"
    assert _parse(tmp_path, cli={"judge_prune": True}).judge_prune == "prune"
    both = {"judge_prune": True, "judge_prune_dry_run": True}
    assert _parse(tmp_path, cli=both).judge_prune == "dry-run"  # the safe one wins
    assert _parse(tmp_path, ini={"judge_prune_dry_run": True}).judge_prune == "dry-run"
