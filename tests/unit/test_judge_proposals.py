"""Label proposals: which lines, how several tests merge, where the file goes, bad paths."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.common.redact import MARKER
from pytest_ragcheck.evaluation.keywords import build_settings
from pytest_ragcheck.evaluation.result import CaseResult, HitRecord, Result
from pytest_ragcheck.golden import GoldenCase, GoldenSet
from pytest_ragcheck.judge.proposals import label_proposals, write_proposals
from pytest_ragcheck.plugin.options import parse_options

SETTINGS = build_settings(
    {"judge_model": "openai/judge-test", "k": 3, "metrics": ["llm_relevancy", "rerank_relevancy"]}
)


def _result(cases: list[CaseResult]) -> Result:
    return Result(metrics={}, cases=cases, k=3, specs=SETTINGS.metrics, golden_source="g.jsonl")


def _case_result(case_id: str, ids: list[str], verdicts: list[Any]) -> CaseResult:
    result = CaseResult(id=case_id, query=f"query {case_id}")
    result.hits = [HitRecord(i, d, f"text of {d}", None, 0) for i, d in enumerate(ids, 1)]
    result.judge["llm_relevancy@3"] = [
        {"rank": i, "verdict": v, "reason": f"because {i}"} if v else {"rank": i, "error": "x"}
        for i, v in enumerate(verdicts, 1)
    ]
    result.judge["rerank_relevancy@3"] = [{"rank": 1, "score": 0.5, "reason": "not asked"}]
    return result


def test_only_unlabelled_documents_with_an_answer_are_proposed():
    golden = GoldenSet(
        (
            GoldenCase(id="g", query="query g", relevance={"a": 1, "b": 0}),
            GoldenCase(id="b", query="query b", expected_ids=["a"]),  # every document labelled
            GoldenCase(id="t", query="query t", expected_texts=["alpha"]),  # none labelled
        ),
        "g.jsonl",
    )
    failed = _case_result("t", ["z"], ["yes"])
    failed.status = "error"
    result = _result(
        [
            _case_result("g", ["a", "u", "w"], ["yes", "no", None]),  # w: the judge failed
            _case_result("b", ["x", "a"], ["no", "yes"]),
            _case_result("t", ["p"], ["yes"]),
        ]
    )
    lines = label_proposals(golden, result, SETTINGS)
    assert lines == [
        {
            "golden": "g.jsonl",
            "case_id": "g",
            "query": "query g",
            "doc_id": "u",
            "rank": 2,
            "text": "text of u",
            "judge_model": "openai/judge-test",
            "verdict": "no",
            "reason": "because 2",
        },
        {
            "golden": "g.jsonl",
            "case_id": "t",
            "query": "query t",
            "doc_id": "p",
            "rank": 1,
            "text": "text of p",
            "judge_model": "openai/judge-test",
            "verdict": "yes",
            "reason": "because 1",
        },
    ]
    assert label_proposals(golden, _result([failed]), SETTINGS) == []


def test_lines_of_several_tests_merge_and_sort(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proposals-secret-123")
    base = {"golden": "g.jsonl", "query": "q", "text": "t", "judge_model": "m"}
    records = [
        {"proposals": [{**base, "case_id": "q2", "doc_id": "d", "rank": 1, "verdict": "yes"}]},
        {"nodeid": "no proposals"},
        {
            "proposals": [
                {**base, "case_id": "q2", "doc_id": "d", "rank": 1, "grade": 2, "reason": "r"},
                {**base, "case_id": "q1", "doc_id": "e", "rank": 5, "verdict": "no",
                 "reason": "echo sk-proposals-secret-123"},
            ]
        },
    ]  # fmt: skip
    path = tmp_path / "out" / "p.jsonl"
    level, message = write_proposals(path, records)
    assert level == "info"
    assert message == (
        f"ragcheck label proposals: 2 unlabelled document(s) of 2 case(s) to review in {path}"
    )
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert [(x["case_id"], x["doc_id"]) for x in lines] == [("q1", "e"), ("q2", "d")]
    assert (lines[1]["verdict"], lines[1]["grade"]) == ("yes", 2)
    assert lines[0]["reason"] == f"echo {MARKER}"
    # a run that proposes nothing leaves the file as it is, and says so
    before = path.read_bytes()
    level, message = write_proposals(path, [{"nodeid": "no proposals"}])
    assert level == "info"
    assert message == (
        "ragcheck label proposals: nothing to propose (no judge metric answered about a "
        "retrieved document without a human label), so nothing was written; the earlier "
        f"{path} is left as it is"
    )
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["p.jsonl"]  # no temporary file


def test_nothing_to_propose_creates_no_file(tmp_path: Path):
    path = tmp_path / "p.jsonl"
    level, message = write_proposals(path, [])
    assert (level, message.endswith("so nothing was written")) == ("info", True)
    assert not path.exists()


def test_a_write_failure_is_a_message_not_an_exception(tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    line = {"golden": "g", "case_id": "q", "doc_id": "d", "rank": 1, "judge_model": "m"}
    level, message = write_proposals(blocker / "p.jsonl", [{"proposals": [line]}])
    assert level == "error"
    assert message.startswith(f"ragcheck: could not write the label proposals {blocker}")


def _options(tmp_path: Path, *, cli: str | None = None, ini: str | None = None):
    return parse_options(
        cli={"propose_labels": cli},
        ini={"propose_labels": ini},
        invocation_dir=tmp_path / "here",
        rootdir=tmp_path / "root",
    )


def test_the_path_is_anchored_like_reports(tmp_path: Path):
    assert _options(tmp_path).propose_labels is None
    assert _options(tmp_path, cli="p.jsonl").propose_labels == tmp_path / "here" / "p.jsonl"
    assert _options(tmp_path, ini="out/p.jsonl").propose_labels == tmp_path / "root/out/p.jsonl"


def test_a_path_that_cannot_be_written_is_a_usage_error(tmp_path: Path):
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "notes.txt").write_text("x")
    with pytest.raises(ConfigError, match=r"notes.txt is not a folder"):
        _options(tmp_path, cli="notes.txt/p.jsonl")
    with pytest.raises(ConfigError, match="is a folder; give a file path"):
        _options(tmp_path, cli=".")
