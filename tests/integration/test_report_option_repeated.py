"""``--ragcheck-report`` given more than once writes every report (it used to keep the last)."""

from __future__ import annotations

import pytest
from harness import RUN_MODES, Suite, ragcheck_module


@pytest.mark.parametrize("run_mode", RUN_MODES)
def test_every_repeated_report_is_written(suite: Suite, run_mode: list[str]) -> None:
    suite.make(ragcheck_module('"golden.jsonl", k=2, baseline=False'))
    result = suite.run(
        "--ragcheck-report=out/a.json",
        "--ragcheck-report=out/b.md,out/c.html",
        *run_mode,
    )
    result.assert_outcomes(passed=1)
    text = Suite.text(result)
    assert "report=out/a.json, out/b.md, out/c.html" in text, text
    assert sorted(p.name for p in (suite.path / "out").iterdir()) == ["a.json", "b.md", "c.html"]
    assert suite.read_json("out/a.json")["tests"][0]["status"] == "passed"
    Suite.assert_clean(result)


def test_a_repeated_report_with_an_unknown_format_is_a_usage_error(suite: Suite) -> None:
    suite.make(ragcheck_module('"golden.jsonl", k=2, baseline=False'))
    result = suite.run("--ragcheck-report=a.json", "--ragcheck-report=b.txt")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--ragcheck-report=b.txt: unknown report format" in Suite.text(result)
    assert not (suite.path / "a.json").exists()
