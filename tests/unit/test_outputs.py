"""``outputs``: which output paths name one of the session's inputs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_ragcheck.plugin.options import RagcheckOptions
from pytest_ragcheck.plugin.outputs import (
    Inputs,
    OutputClashError,
    check_outputs,
    golden_path,
    input_kind,
    outputs,
    refuse_outputs,
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "golden.jsonl").write_text('{"id": "q1"}\n')
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    (beir / "queries.jsonl").write_text("{}\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "check_rag.txt").write_text(">>> 1\n1\n")
    return tmp_path


def _inputs(root: Path) -> Inputs:
    return Inputs(
        golden=(root / "golden.jsonl", root / "beir"),
        sources=(root / "tests" / "check_rag.txt", root / "tox.ini"),
        cache_dir=root / ".ragcheck" / "judge",
    )


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("golden.jsonl", "a golden set of this session's tests"),
        ("tests/../golden.jsonl", "a golden set of this session's tests"),
        ("beir/qrels/test.tsv", "a file of the golden set folder"),
        ("beir/report.json", "a file of the golden set folder"),
        (".ragcheck/judge", "the judge's verdict cache folder"),
        (".ragcheck/judge/grade/0a/x.json", "a file in the judge's verdict cache folder"),
        ("__snapshots__/test_x/r.json", "a file in a baseline folder (__snapshots__/"),
        ("sub/__RAGCHECK__/r.json", "a file in a baseline folder (__RAGCHECK__/"),
        ("test_x[ragcheck-2].json", "named like a baseline file"),
        ("tests/check_rag.txt", "a test or configuration file of this session"),
        ("tox.ini", "a test or configuration file of this session"),
        ("helpers.PY", "a Python source file"),
        ("stubs.pyi", "a Python source file"),
    ],
)
def test_inputs_are_named(project: Path, name: str, kind: str):
    assert input_kind(project / name, _inputs(project)).startswith(kind)


@pytest.mark.parametrize(
    "name",
    [
        "report.json",
        "reports/ragcheck.html",
        ".ragcheck/history.jsonl",  # next to the cache folder, not in it
        "golden.jsonl.bak",
        "snapshots/report.md",
        "beir-report.json",  # beside the golden folder, whose name it starts with
    ],
)
def test_other_paths_are_outputs(project: Path, name: str):
    assert input_kind(project / name, _inputs(project)) == ""


def test_a_link_and_a_hard_link_to_a_golden_set_are_the_golden_set(project: Path):
    os.symlink(project / "golden.jsonl", project / "soft.json")
    os.link(project / "golden.jsonl", project / "hard.json")
    for name in ("soft.json", "hard.json"):
        assert input_kind(project / name, _inputs(project)).startswith("a golden set")


def test_the_cache_off_spares_nothing_there(project: Path):
    inputs = Inputs(cache_dir=None)
    assert input_kind(project / ".ragcheck" / "judge" / "x.json", inputs) == ""


def test_a_snapshot_dirname_of_its_own_is_a_baseline_folder(project: Path):
    inputs = Inputs(baseline_folders=("__snapshots__", "__ragcheck__", "baselines"))
    assert input_kind(project / "baselines" / "r.json", inputs).startswith("a file in a baseline")


def test_golden_path_finds_the_file_as_loading_does(project: Path):
    tests = project / "tests"
    assert golden_path("golden.jsonl", (tests, project)) == project / "golden.jsonl"
    assert golden_path(str(project / "beir"), (tests,)) == project / "beir"
    assert golden_path("missing.jsonl", (tests, project)) is None
    assert golden_path([{"id": "q1"}], (tests, project)) is None
    assert golden_path("  ", (tests, project)) is None


def test_every_clash_is_named_and_only_those_outputs_are_dropped(project: Path):
    options = RagcheckOptions(
        report_paths=(project / "ok.json", project / "golden.jsonl"),
        propose_labels=project / "conftest.py",
        history=project / "h.jsonl",
    )
    assert [name for name, _ in outputs(options)] == [
        "report",
        "report",
        "propose_labels",
        "history",
    ]
    with pytest.raises(OutputClashError) as raised:
        check_outputs(options, _inputs(project))
    lines = str(raised.value).splitlines()
    assert lines == [
        f"--ragcheck-report / ragcheck_report: will not write the report to "
        f"{project / 'golden.jsonl'}: that is a golden set of this session's tests; give the "
        "option a path of its own",
        f"--ragcheck-propose-labels / ragcheck_propose_labels: will not write the label "
        f"proposals to {project / 'conftest.py'}: that is a Python source file; give the "
        "option a path of its own",
    ]
    kept, messages = refuse_outputs(options, _inputs(project))
    assert messages == lines
    assert kept.report_paths == (project / "ok.json",)
    assert (kept.propose_labels, kept.history) == (None, project / "h.jsonl")
    assert refuse_outputs(kept, _inputs(project)) == (kept, [])
