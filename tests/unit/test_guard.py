"""Which files the baseline guard keeps: every pytest-ragcheck baseline, however large."""

from __future__ import annotations

from pathlib import Path

from pytest_ragcheck.plugin.guard import is_baseline_file

ROOT = Path(__file__).resolve().parents[2]


def test_large_baselines_are_recognised(tmp_path: Path) -> None:
    # The example suite's baselines hold hundreds of cases: "format" sits far past the start.
    stored = (
        ROOT / "example_suite/__ragcheck__/test_baseline/test_cranfield_baseline[ragcheck].json"
    )
    assert stored.stat().st_size > 20_000
    assert is_baseline_file(stored)
    small = tmp_path / "small.json"
    small.write_text('{"format": "pytest-ragcheck baseline", "schema_version": 2}\n')
    assert is_baseline_file(small)


def test_other_files_are_not_baselines(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"format": "something else"}' + " " * 20_000)
    assert not is_baseline_file(other)
    text = tmp_path / "notes.txt"
    text.write_text('"format": "pytest-ragcheck baseline"')
    assert not is_baseline_file(text)
    assert not is_baseline_file(tmp_path / "missing.json")
