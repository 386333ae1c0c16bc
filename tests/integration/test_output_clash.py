"""Outputs never land on inputs.

Two outputs named the same file (the history and a report, label proposals and a report): a
usage error up front, not a history line appended and then overwritten by the report. An
output that names a golden set, a baseline, a judge cache entry or a source file of the
session: refused too, before anything is written, and every file of the project is left as it
was (``--ragcheck-propose-labels=golden.jsonl`` used to leave the golden set empty).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from harness import ragcheck_module


@pytest.mark.parametrize(
    "args",
    [
        ("--ragcheck-history=same.json", "--ragcheck-report=same.json"),
        ("--ragcheck-propose-labels=out/x.jsonl", "--ragcheck-history=out/../out/x.jsonl"),
    ],
    ids=["history-report", "labels-history"],
)
def test_two_outputs_in_one_file_are_a_usage_error(suite, args):
    suite.golden()
    suite.retriever()
    suite.test(ragcheck_module('"golden.jsonl", k=2, baseline=False'))
    (suite.pytester.path / "out").mkdir()
    result = suite.run(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "name the same file" in suite.text(result)
    assert "give each its own" in suite.text(result)
    assert not (suite.pytester.path / "same.json").exists()


def test_distinct_outputs_are_fine(suite):
    suite.golden()
    suite.retriever()
    suite.test(ragcheck_module('"golden.jsonl", k=2, baseline=False'))
    result = suite.run("--ragcheck-history=h.jsonl", "--ragcheck-report=r.json")
    result.assert_outcomes(passed=1)
    assert (suite.pytester.path / "h.jsonl").exists()
    assert (suite.pytester.path / "r.json").exists()


def _files(root: Path) -> dict[str, bytes]:
    """Every file of the project (what a refused output must leave as it was)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def _project(suite) -> None:
    """Two tests: one on a JSONL golden set, one on a JSON one; a stored baseline, a verdict
    cache entry and a baseline folder of the future layout, all of which outputs must spare."""
    suite.golden()
    suite.golden(name="cases.json")
    suite.retriever()
    suite.test(
        ragcheck_module(
            '"golden.jsonl", k=2, baseline=False',
            extra="""
            @ragcheck("cases.json", k=2, baseline=False)
            def test_json(ragcheck, retriever):
                ragcheck(retriever)
            """,
        )
    )
    suite.write("__snapshots__/test_rag/test_rag[ragcheck].json", '{"format": 2}\n')
    suite.write("__ragcheck__/test_rag/test_rag.json", '{"format": 2}\n')
    suite.write(".ragcheck/judge/relevance/ab/" + "ab" * 32 + ".json", '{"answer": "yes"}\n')


# (option, path, what the message says the path is)
CLASHES = [
    ("--ragcheck-propose-labels", "golden.jsonl", "a golden set of this session's tests"),
    ("--ragcheck-history", "golden.jsonl", "a golden set of this session's tests"),
    ("--ragcheck-report", "cases.json", "a golden set of this session's tests"),
    (
        "--ragcheck-report",
        "__snapshots__/test_rag/test_rag[ragcheck].json",
        "a file in a baseline folder (__snapshots__/, where baselines are kept)",
    ),
    ("--ragcheck-history", "__ragcheck__/h.jsonl", "a file in a baseline folder (__ragcheck__/"),
    ("--ragcheck-report", "old/test_rag[ragcheck].json", "named like a baseline file"),
    (
        "--ragcheck-propose-labels",
        ".ragcheck/judge/relevance/ab/" + "ab" * 32 + ".json",
        "a file in the judge's verdict cache folder",
    ),
    ("--ragcheck-history", "test_rag.py", "a Python source file"),
    ("--ragcheck-propose-labels", "conftest.py", "a Python source file"),
    ("--ragcheck-history", "pytest.ini", "a test or configuration file of this session"),
]


@pytest.mark.parametrize(
    ("option", "name", "kind"), CLASHES, ids=[f"{o[10:]}-{n}" for o, n, _ in CLASHES]
)
def test_an_output_over_an_input_is_a_usage_error(suite, option, name, kind):
    _project(suite)
    before = _files(suite.path)
    result = suite.run(f"{option}={name}")
    text = suite.text(result)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, text
    assert f"{option} / ragcheck_{option[11:].replace('-', '_')}: will not write" in text
    assert f"to {suite.path / name}: that is {kind}" in text
    assert "give the option a path of its own" in text
    assert "passed" not in text  # refused before any test ran
    assert _files(suite.path) == before
    suite.assert_clean(result)


def test_a_link_to_a_golden_set_is_refused(suite):
    _project(suite)
    os.symlink(suite.path / "cases.json", suite.path / "link.json")
    before = _files(suite.path)
    result = suite.run("--ragcheck-report=link.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "that is a golden set of this session's tests" in suite.text(result)
    assert _files(suite.path) == before


def test_a_golden_set_named_only_in_the_call_is_spared_before_writing(suite):
    """The marker names no cases: the golden file is known once the test read it, and the
    report is refused then; the other outputs are written, the run says it was misused."""
    suite.golden(name="late.json")
    suite.retriever()
    suite.test(
        ragcheck_module("k=2, baseline=False", body='ragcheck(retriever, cases="late.json")')
    )
    before = (suite.path / "late.json").read_bytes()
    result = suite.run("--ragcheck-report=late.json", "--ragcheck-history=h.jsonl")
    text = suite.text(result)
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        f"ragcheck: --ragcheck-report / ragcheck_report: will not write the report to "
        f"{suite.path / 'late.json'}: that is a golden set of this session's tests" in text
    )
    assert (suite.path / "late.json").read_bytes() == before
    assert (suite.path / "h.jsonl").read_text(encoding="utf-8").count("\n") == 1


def test_no_proposals_leave_an_earlier_file_as_it_is(suite):
    """No judge metric ran: nothing is proposed, and the file is not emptied."""
    _project(suite)
    earlier = suite.write("proposals.jsonl", '{"case_id": "q1"}\n')
    result = suite.run("--ragcheck-propose-labels=proposals.jsonl")
    result.assert_outcomes(passed=2)
    assert "ragcheck label proposals: nothing to propose" in suite.text(result)
    assert earlier.read_text(encoding="utf-8") == '{"case_id": "q1"}\n'


@pytest.mark.slow
def test_xdist_workers_refuse_an_output_over_a_golden_set(suite):
    _project(suite)
    before = _files(suite.path)
    result = suite.run("-n", "2", "--ragcheck-propose-labels=golden.jsonl")
    text = suite.text(result)
    assert result.ret != pytest.ExitCode.OK
    assert "will not write the label proposals to" in text
    assert "that is a golden set of this session's tests" in text
    assert "passed" not in text
    assert _files(suite.path) == before
