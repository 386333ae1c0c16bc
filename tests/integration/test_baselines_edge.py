"""Baselines as a team lives with them: hand-edited and merged files, odd encodings, odd sets.

Each test runs real pytest sessions on a small project and checks what the user sees.
"""

from __future__ import annotations

import json

import pytest
from harness import SERIAL_ONLY, Suite, ragcheck_module

SNAPSHOT = "__ragcheck__/test_rag/test_rag[ragcheck].json"


def _flat(suite: Suite, result: object) -> str:
    return " ".join(suite.text(result).split())  # type: ignore[arg-type]


# Not about processes: reading a stored file is the same in every worker.
@SERIAL_ONLY
def test_a_case_id_given_twice_after_a_merge_is_a_damaged_file(suite, run_mode) -> None:
    """JSON keeps the last of two equal keys: the file would silently lose a case."""
    suite.make(ragcheck_module('"golden.jsonl", k=5'))
    suite.update_baselines().assert_outcomes(passed=1)
    path = suite.path / SNAPSHOT
    text = path.read_text("utf-8")
    lines = text.splitlines(keepends=True)
    q2 = next(i for i, line in enumerate(lines) if line.lstrip().startswith('"q2"'))
    # A merge that kept both sides' line of q2 (the other side's with another value).
    lines.insert(q2 + 1, lines[q2].replace('"mrr@5": 1.0', '"mrr@5": 0.5'))
    path.write_text("".join(lines), "utf-8")

    result = suite.run(*run_mode)
    result.assert_outcomes(failed=1)
    text = _flat(suite, result)
    assert "Baseline cannot be read" in text
    assert "names 'q2' twice (a merge that kept both sides?)" in text
    assert "Fix the file, or re-run with --snapshot-update" in text
    assert "golden set changed" not in text
    suite.assert_clean(result)

    # --snapshot-update replaces it.
    suite.update_baselines().assert_outcomes(passed=1)
    suite.run(*run_mode).assert_outcomes(passed=1)


@SERIAL_ONLY
def test_no_zero_detectable_drop_for_a_metric_every_case_scores_alike(suite, run_mode) -> None:
    """precision@10 of 0.2 on every case: the figure is left out, never shown as 0.000."""
    cases = [
        {"id": f"c{i}", "query": f"q {i}", "expected_ids": [f"d{i}", f"e{i}"]} for i in range(30)
    ]
    rankings = {
        f"q {i}": [*(["x"] * (i % 3)), f"d{i}", f"e{i}", *[f"y{j}" for j in range(8)]]
        for i in range(30)
    }
    suite.make(
        ragcheck_module('"golden.jsonl", k=10, metrics=["precision", "mrr"]'),
        cases=cases,
        rankings=rankings,
    )
    suite.update_baselines().assert_outcomes(passed=1)
    result = suite.run("-v", *run_mode)
    result.assert_outcomes(passed=1)
    text = _flat(suite, result)
    assert "smallest drop this golden set detects" in text
    assert "mrr@10 0." in text
    assert "precision@10" not in text.split("smallest drop this golden set detects")[1]


def test_hand_edited_history_lines_do_not_stop_the_reports(suite) -> None:
    """A line with NaN, or a number for its commit, is valid history: it is left out of the
    trend's points, and the JSON and HTML reports are still written."""
    suite.make(ragcheck_module('"golden.jsonl", k=5, baseline=False, metrics=["mrr"]'))
    suite.run("--ragcheck-history=h.jsonl").assert_outcomes(passed=1)
    history = suite.path / "h.jsonl"
    first = json.loads(history.read_text("utf-8").splitlines()[0])
    edited = [
        {**first, "metrics": {"mrr@5": float("nan")}},
        {**first, "timestamp": 5, "commit": 1234, "branch": ["main"]},
    ]
    with history.open("a", encoding="utf-8") as handle:
        handle.writelines(json.dumps(line) + "\n" for line in edited)

    result = suite.run("--ragcheck-history=h.jsonl", "--ragcheck-report=r.json,r.html")
    result.assert_outcomes(passed=1)
    text = suite.text(result)
    assert "could not render the report" not in text
    assert (suite.path / "r.html").is_file()
    runs = suite.read_json("r.json")["history"]["tests"][0]["runs"]
    # The recorded run, the two edited lines, this run.
    assert len(runs) == 4
    assert [run["metrics"] for run in runs[:3]] == [first["metrics"], {}, first["metrics"]]
    assert runs[2]["timestamp"] is None
    assert runs[2]["commit"] is None
    assert runs[2]["branch"] is None


@SERIAL_ONLY
def test_a_baseline_saved_with_a_byte_order_mark_still_matches(suite, run_mode) -> None:
    """An editor on Windows may save the file with a BOM (and CRLF): no content changed."""
    suite.make(ragcheck_module('"golden.jsonl", k=5'))
    suite.update_baselines().assert_outcomes(passed=1)
    path = suite.path / SNAPSHOT
    saved = b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n")
    path.write_bytes(saved)

    result = suite.run(*run_mode)
    result.assert_outcomes(passed=1)
    suite.assert_clean(result)
    result = suite.run("--snapshot-update", *run_mode)
    result.assert_outcomes(passed=1)
    assert "1 snapshot passed" in suite.text(result)
    assert path.read_bytes() == saved


@pytest.mark.parametrize("option", ["--collect-only", "--setup-only", "--setup-plan"])
def test_a_session_that_runs_no_test_deletes_no_baseline(suite, option) -> None:
    """syrupy counts every baseline of a session that ran nothing as unused."""
    suite.make(ragcheck_module('"golden.jsonl", k=5'))
    suite.update_baselines().assert_outcomes(passed=1)
    stored = suite.snapshots()
    assert stored

    result = suite.run("--snapshot-update", option)
    assert suite.snapshots() == stored
    assert (
        f"--snapshot-update deleted no unused snapshot, because {option} runs no test"
    ) in " ".join(suite.text(result).split())
    suite.run().assert_outcomes(passed=1)


@pytest.mark.slow
def test_a_test_that_crashes_its_xdist_worker_keeps_its_baseline(suite, monkeypatch) -> None:
    """A segfault in a native retriever kills the worker: the test never keeps its baseline
    itself, and syrupy on the controller counted it as unused."""
    suite.make(
        ragcheck_module(
            '"golden.jsonl", k=5',
            body="""
            if os.environ.get("RAGCHECK_TEST_CRASH"):
                os._exit(3)
            ragcheck(retriever)
            """,
        ).replace("from pytest_ragcheck", "import os\nfrom pytest_ragcheck", 1)
    )
    suite.update_baselines().assert_outcomes(passed=1)
    stored = suite.snapshots()

    monkeypatch.setenv("RAGCHECK_TEST_CRASH", "1")
    result = suite.run("--snapshot-update", "-n", "2")
    result.assert_outcomes(failed=1)
    assert suite.snapshots() == stored
    assert (
        "because 1 test(s) crashed their pytest-xdist worker (test_rag.py::test_rag)"
        in " ".join(suite.text(result).split())
    )


@SERIAL_ONLY
def test_every_re_record_hint_names_the_test(suite, run_mode) -> None:
    """A bare `pytest --snapshot-update` re-records every test, regressed ones included: the
    not-comparable and unreadable-file messages give the command for this test only."""
    suite.make(ragcheck_module('"golden.jsonl", k=5', function="test_faq"))
    suite.update_baselines().assert_outcomes(passed=1)
    command = '`pytest "test_rag.py::test_faq" --snapshot-update`'

    suite.test(ragcheck_module('"golden.jsonl", k=4', function="test_faq"))
    result = suite.run(*run_mode)
    result.assert_outcomes(failed=1)
    text = _flat(suite, result)
    assert "baseline not comparable: no metric is shared with the baseline" in text
    assert f"to record a new baseline ({command}, and review the diff)" in text

    (suite.path / "__ragcheck__/test_rag/test_faq[ragcheck].json").write_text("{", "utf-8")
    result = suite.run(*run_mode)
    result.assert_outcomes(failed=1)
    text = _flat(suite, result)
    assert "Baseline cannot be read" in text
    assert f"to record a new baseline ({command}, and review the diff before committing)" in text


@SERIAL_ONLY
def test_a_low_max_hits_never_cuts_an_explicit_cutoff(suite, run_mode) -> None:
    """ragcheck_baseline_max_hits caps metrics without a cutoff only: with k=5 and a cap of 2,
    documents at ranks 3-5 were stored as unseen and read as having "come in"."""
    suite.ini(ragcheck_baseline_max_hits="2")
    golden = [{"id": "q1", "query": "alpha", "expected_ids": ["a"]}]
    before = {"alpha": ["x", "a", "y", "z", "w"]}
    after = {"alpha": ["y", "z", "w", "x", "a"]}
    suite.make(
        ragcheck_module('"golden.jsonl", k=5, metrics=["mrr"], significance=None'),
        cases=golden,
    )
    suite.rebaseline(before, after).assert_outcomes(passed=1)
    assert suite.read_json(SNAPSHOT)["cases"]["q1"]["hits"] == ["x", "a", "y", "z", "w"]
    result = suite.run(*run_mode)
    result.assert_outcomes(failed=1)
    text = suite.text(result)
    assert "a rank 2 → 5" in text
    assert "came in" not in text


@SERIAL_ONLY
def test_a_baseline_the_system_cannot_read_is_not_called_invalid_json(suite, run_mode) -> None:
    """An OS error (permissions, a folder in the file's place) was reported as "not valid JSON
    (line 1, column 1) ... truncated or edited by hand", its cause dropped."""
    suite.make(ragcheck_module('"golden.jsonl", k=5'))
    (suite.path / SNAPSHOT).mkdir(parents=True)
    for args in ([], ["--snapshot-update"]):
        result = suite.run(*args, *run_mode)
        result.assert_outcomes(failed=1)
        text = _flat(suite, result)
        assert (
            f"Baseline cannot be read: {SNAPSHOT}: not a regular file: it is a folder; "
            "the file was left as it is"
        ) in text
        assert "not valid JSON" not in text
        suite.assert_clean(result)
    assert (suite.path / SNAPSHOT).is_dir()


def test_a_reformatted_baseline_is_kept_by_an_incomplete_session(suite) -> None:
    """A baseline rewritten compactly by a tool (`jq -c`) still compares, and `-x` after an
    unrelated failure must not let --snapshot-update delete it."""
    suite.make(ragcheck_module('"golden.jsonl", k=5'))
    suite.update_baselines().assert_outcomes(passed=1)
    path = suite.path / SNAPSHOT
    path.write_text(json.dumps(json.loads(path.read_text("utf-8")), separators=(",", ":")))
    compact = path.read_bytes()
    suite.run().assert_outcomes(passed=1)

    suite.test("def test_first():\n    assert False\n", name="test_a")  # runs first
    result = suite.run("--snapshot-update", "-x", "-p", "no:randomly")
    result.assert_outcomes(failed=1)
    assert path.read_bytes() == compact
    assert "deleted no unused snapshot" in suite.text(result)


def test_judge_prune_counts_a_skipped_test_that_uses_only_the_fixture(
    suite, run_mode, judge_server_session
) -> None:
    """A skipped test with the `ragcheck` fixture and no marker may need cache entries too:
    --ragcheck-judge-prune deleted them, since only the marker's keyword was looked for."""
    from judge_fixtures import JUDGE_MODEL

    from pytest_ragcheck import evaluate

    golden = [{"id": "q1", "query": "what is alpha", "expected_ids": ["a"]}]
    chunks = {"what is alpha": [{"id": "a", "text": "alpha [g=2]"}, {"id": "x", "text": "x [g=0]"}]}
    cache = suite.path / ".ragcheck" / "judge"
    judge = {"model": JUDGE_MODEL, "api_base": judge_server_session.url, "cache_dir": cache}
    evaluate(lambda q: chunks[q], golden, k=2, metrics=["llm_relevancy"], judge=judge)
    suite.make(
        """
        import pytest
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=2, metrics=["llm_relevancy"], baseline=False)
        def test_marked(ragcheck, retriever):
            ragcheck(retriever)


        def test_fixture_only(ragcheck, retriever):
            pytest.skip("the index is not built on this machine")
        """,
        cases=golden,
        rankings={"what is alpha": chunks["what is alpha"][:1]},
    )
    suite.ini(
        ragcheck_judge_model=JUDGE_MODEL,
        ragcheck_judge_api_base=judge_server_session.url,
        ragcheck_judge_offline="true",
    )
    before = sorted(p.name for p in cache.rglob("*.json"))
    assert len(before) == 2

    result = suite.run("--ragcheck-judge-prune", *run_mode)
    result.assert_outcomes(passed=1, skipped=1)
    assert "1 ragcheck test(s) were skipped (test_rag.py::test_fixture_only…)" in suite.text(result)
    assert sorted(p.name for p in cache.rglob("*.json")) == before
