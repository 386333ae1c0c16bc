"""Report paths and file writing."""

from __future__ import annotations

import json
import os
import stat

import pytest
from report_data import sample_document

from pytest_ragcheck.report.files import ReportPathError, parse_report_paths, render, write_file
from pytest_ragcheck.report.schema import Report


def test_paths_resolve_against_the_base(tmp_path):
    absolute = tmp_path / "abs" / "r.HTML"
    paths = parse_report_paths(f"out/r.json, {absolute},,r.md", base=tmp_path / "base")
    assert paths == [tmp_path / "base" / "out" / "r.json", absolute, tmp_path / "base" / "r.md"]


@pytest.mark.parametrize(
    ("raw", "shown"),
    [("report.txt", "'.txt'"), ("report", "no extension"), ("a.json,b.xml", "'.xml'")],
)
def test_unknown_extension_is_refused(tmp_path, raw, shown):
    with pytest.raises(ReportPathError) as info:
        parse_report_paths(raw, base=tmp_path)
    message = str(info.value)
    assert f"unknown report format ({shown})" in message
    assert ".json, .md or .html" in message


def test_write_file_creates_folders_and_leaves_no_temp_files(tmp_path):
    target = tmp_path / "deep" / "er" / "report.json"
    write_file(target, "{}\n")
    write_file(target, '{"a": 1}\n')
    assert json.loads(target.read_text()) == {"a": 1}
    assert os.listdir(target.parent) == ["report.json"]
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask


def test_write_file_failure_keeps_the_old_report(tmp_path):
    target = tmp_path / "report.md"
    target.write_text("old")
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OSError):
        write_file(blocker / "x" / "report.md", "new")  # a file where a folder must be
    assert target.read_text() == "old"


def test_render_by_extension(tmp_path):
    document = sample_document()
    as_json = render(tmp_path / "r.json", document)
    assert Report.model_validate_json(as_json).summary.tests == 5
    assert render(tmp_path / "r.md", document).startswith("# ragcheck report")
    assert render(tmp_path / "r.HTML", document).startswith("<!DOCTYPE html>")
