"""Living baselines: a regression gate that survives a growing golden set (docs/baselines.md).

A golden set grows, shrinks and gets edited; the baseline is compared on the cases it shares
with the run (same id, same content), says which relevant documents a regressed case lost,
gates tags on their own with ``per_tag=True``, and reads the files pytest-ragcheck 0.1 wrote.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest
from harness import SERIAL_ONLY, Suite, ragcheck_module

SNAPSHOT = "__ragcheck__/test_rag/test_faq[ragcheck].json"
HINT = 'If this change is intended, re-record this test\'s baseline: `pytest "test_rag.py::test_faq" --snapshot-update`'


def cases(ids: Iterable[int], **extra: Any) -> list[dict[str, Any]]:
    """``q<i>``: ``"question <i>"``, whose one relevant document is ``d<i>``."""
    return [
        {"id": f"q{i}", "query": f"question {i}", "expected_ids": [f"d{i}"], **extra} for i in ids
    ]


def rankings(
    ids: Iterable[int], changed: Mapping[int, Sequence[str]] | None = None
) -> dict[str, list[str]]:
    """Six hits per query, the relevant document first, unless ``changed`` says otherwise."""
    changed = changed or {}
    return {
        f"question {i}": list(changed.get(i, [f"d{i}", "x1", "x2", "x3", "x4", "x5"])) for i in ids
    }


def flat(suite: Suite, result: pytest.RunResult) -> str:
    """The run's output with whitespace collapsed: the summary wraps long notes."""
    return " ".join(suite.text(result).split())


def baseline_lines(suite: Suite) -> list[str]:
    return (suite.path / SNAPSHOT).read_text("utf-8").splitlines()


#: q1 loses its document, q2-q5 find it at rank 4 (below k=3, inside recall@5).
WORSE = {
    1: ["x1", "x2", "x3", "x4", "x5", "x6"],
    **{i: ["x1", "x2", "x3", f"d{i}", "x4", "x5"] for i in range(2, 6)},
}

FAQ = ragcheck_module('"golden.jsonl", k=3, metrics=["mrr", "recall@5"]', function="test_faq")


# Not about processes: pytest-xdist is covered by
# test_baseline_lifecycle.py::test_baseline_life_cycle[xdist].
@SERIAL_ONLY
def test_a_growing_golden_set_keeps_its_regression_check(suite, run_mode) -> None:
    # 1. Record on ten cases: one line per case, in natural order, with hash, hits and values.
    suite.make(FAQ, cases=cases(range(1, 11)), rankings=rankings(range(1, 11)))
    suite.update_baselines().assert_outcomes(passed=1)
    recorded = suite.snapshots()
    lines = baseline_lines(suite)
    case_lines = [line.strip() for line in lines if line.strip().startswith('"q')]
    assert [line.split('"')[1] for line in case_lines] == [f"q{i}" for i in range(1, 11)]
    q2 = json.loads("{" + case_lines[1].rstrip(",") + "}")["q2"]
    assert set(q2) == {"hash", "hits", "values"}
    assert re.fullmatch(r"[0-9a-f]{16}", q2["hash"])
    # The deepest cutoff is recall@5: five of the six hits are kept, in rank order.
    assert q2["hits"] == ["d2", "x1", "x2", "x3", "x4"]
    assert q2["values"] == {"mrr@3": 1.0, "recall@5": 1.0}
    assert suite.read_json(SNAPSHOT)["schema_version"] == 2

    # 2. Five cases added: the unchanged retriever passes, the five are named, nothing moves.
    suite.make(FAQ, cases=cases(range(1, 16)), rankings=rankings(range(1, 16)))
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=1)
    assert (
        "golden set changed since the baseline: 5 added (q11, q12, q13, q14, q15); "
        "compared on the 10 shared case(s)"
    ) in flat(suite, result)
    suite.assert_clean(result)
    assert suite.snapshots() == recorded

    # 3. A worse retriever still fails, on the ten shared cases, and each case says why.
    suite.retriever(rankings(range(1, 16), WORSE))
    result = suite.run("--ragcheck-report=report.json", *run_mode)
    result.assert_outcomes(failed=1)
    text = suite.text(result)
    result.stdout.fnmatch_lines(
        [
            # The first line states the worst finding: it is pytest's short summary.
            "mrr@3 regressed 1.000 → 0.500 on 10 shared (Δ −0.500) (+1 more) "
            "(ragcheck failed for golden.jsonl (15 cases, k=3))",
            "Regressed against the baseline:",
            "  mrr@3: 1.000 → 0.500 on 10 shared (Δ −0.500, allowed 0.020, p=0.0312, 95% CI "
            "[[]*[]]) · 0.667 on all 15",
            "  recall@5: 1.000 → 0.900 on 10 shared (Δ −0.100, allowed 0.020, p=0.5, 95% CI "
            "[[]*[]]) · 0.933 on all 15",
            "    judged by tolerance alone: only 1 case(s) changed, too few for the paired "
            "test to reach p ≤ 0.05",
            "  cases that got worse most (mrr@3, before → after):",
            "    q1  'question 1'  1.000 → 0.000",
            "      d1 rank 1 → gone",
            "      came in: x3 at 3",
            "    q2  'question 2'  1.000 → 0.000",
            "      d2 rank 1 → 4",
            "Golden set changed since the baseline: 5 added (q11, q12, q13, q14, q15); "
            "compared on the 10 shared case(s).",
            "",
            HINT + " (and review the diff of __ragcheck__/).",
        ]
    )
    assert "FAILED test_rag.py::test_faq - Failed: mrr@3 regressed 1.000 → 0.500" in text
    suite.assert_clean(result)
    assert suite.snapshots() == recorded
    entry = suite.read_json("report.json")["tests"][0]
    assert entry["baseline"]["case_diff"] == {
        "shared": 10,
        "added": 5,
        "added_ids": ["q11", "q12", "q13", "q14", "q15"],
        "removed": 0,
        "removed_ids": [],
        "edited": 0,
        "edited_ids": [],
    }
    first = entry["case_changes"][0]
    assert (first["id"], first["explain"]) == ("q1", ["d1 rank 1 → gone", "came in: x3 at 3"])
    assert first["baseline_hits"] == ["d1", "x1", "x2", "x3", "x4"]

    # 4. An edited case (same id, new expected_ids) is reported, never compared: its old
    #    values answer another question. Compared, its drop to 0 would fail the test.
    edited = cases(range(1, 16))
    edited[2] = {"id": "q3", "query": "question 3", "expected_ids": ["d99"]}
    suite.make(FAQ, cases=edited, rankings=rankings(range(1, 16)))
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=1)
    assert (
        "golden set changed since the baseline: 5 added (q11, q12, q13, q14, q15), "
        "1 edited (q3); compared on the 9 shared case(s)"
    ) in flat(suite, result)
    suite.assert_clean(result)

    # 5. Removed cases are reported too; the worse retriever still fails on what is shared.
    suite.make(FAQ, cases=cases([*range(1, 9), 11]), rankings=rankings(range(1, 12), WORSE))
    result = suite.run(*run_mode)
    result.assert_outcomes(failed=1)
    text = suite.text(result)
    assert "mrr@3 regressed 1.000 → 0.375 on 8 shared (Δ −0.625)" in text
    assert (
        "Golden set changed since the baseline: 1 added (q11), 2 removed (q9, q10); "
        "compared on the 8 shared case(s)."
    ) in text
    suite.assert_clean(result)
    assert suite.snapshots() == recorded


TAGGED = ragcheck_module('"golden.jsonl", k=10, metrics=["mrr"], per_tag=True', function="test_faq")


def tagged_cases() -> list[dict[str, Any]]:
    """Ten pricing questions and twenty shipping questions."""
    return [
        {**case, "tags": ["pricing" if i <= 10 else "shipping"]}
        for i, case in zip(range(1, 31), cases(range(1, 31)), strict=True)
    ]


#: Baseline: pricing found at rank 1; shipping half at rank 1, half at rank 2 (MRR 0.833).
TAG_BASELINE = rankings(range(1, 31), {i: ["x", f"d{i}"] for i in range(21, 31)})
#: Every pricing question slips to rank 2 while the slow shipping half moves up to rank 1:
#: the overall MRR does not move (0.833 → 0.833), the pricing slice drops by half.
TAG_SHIFTED = rankings(range(1, 31), {i: ["x", f"d{i}"] for i in range(1, 11)})


# Not about processes: pytest-xdist is covered by
# test_baseline_lifecycle.py::test_baseline_life_cycle[xdist].
@SERIAL_ONLY
def test_a_regression_in_one_tag_fails_naming_the_tag(suite, run_mode) -> None:
    suite.make(TAGGED, cases=tagged_cases(), rankings=TAG_BASELINE)
    suite.update_baselines().assert_outcomes(passed=1)
    suite.retriever(TAG_SHIFTED)
    result = suite.run("--junitxml=junit.xml", *run_mode)
    result.assert_outcomes(failed=1)
    text = suite.text(result)
    result.stdout.fnmatch_lines(
        [
            "mrr@10 [[]tag pricing[]] regressed 1.000 → 0.500 (Δ −0.500) "
            "(ragcheck failed for golden.jsonl (30 cases, k=10))",
            "Regressed against the baseline:",
            # Ten of ten pricing cases dropped: p = 2**-10, Holm-corrected over two tags.
            "  mrr@10 [[]tag pricing[]]: 1.000 → 0.500 (Δ −0.500, allowed 0.020, p=0.00195 Holm "
            "over 2 tags, *",
        ]
    )
    regressed = text.split("Regressed against the baseline:")[1].split("\n\n")[0]
    assert "  mrr@10: " not in regressed  # the overall mean did not move
    suite.assert_clean(result)
    props = suite.junit_properties("junit.xml")["test_faq"]
    assert props["ragcheck.mrr@10"] == "0.833333"
    assert props["ragcheck.mrr@10 [tag pricing]"] == "0.5"
    assert props["ragcheck.mrr@10 [tag pricing].status"] == "regressed"
    assert props["ragcheck.mrr@10 [tag shipping].status"] == "improved"


@SERIAL_ONLY
def test_per_tag_says_plainly_when_no_tag_is_large_enough(suite, run_mode) -> None:
    suite.make(
        ragcheck_module(
            '"golden.jsonl", k=10, metrics=["mrr"], per_tag=True, min_tag_cases=25',
            function="test_faq",
        ),
        cases=tagged_cases(),
        rankings=TAG_BASELINE,
    )
    suite.update_baselines().assert_outcomes(passed=1)
    suite.retriever(TAG_SHIFTED)
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=1)
    text = flat(suite, result)
    assert (
        "per_tag=True: no tag has at least 25 evaluated cases (min_tag_cases; the largest, "
        "'shipping', has 20); only the overall metrics are gated"
    ) in text
    assert text.count("no tag has at least") == 1, text
    suite.assert_clean(result)


# Not about processes: pytest-xdist is covered by
# test_baseline_lifecycle.py::test_baseline_life_cycle[xdist].
@SERIAL_ONLY
def test_four_of_twelve_cases_dropping_fail_by_tolerance_alone(suite, run_mode) -> None:
    """Four changed cases cannot reach p ≤ 0.05 (2**-4 = 0.0625): the tolerance decides."""
    ids = range(1, 13)
    # Baseline: half the cases at rank 1, half at rank 2 (MRR 0.75).
    base = rankings(ids, {i: ["x", f"d{i}"] for i in range(7, 13)})
    suite.make(
        ragcheck_module('"golden.jsonl", k=10, metrics=["mrr"]', function="test_faq"),
        cases=cases(ids),
        rankings=base,
    )
    suite.update_baselines().assert_outcomes(passed=1)
    suite.retriever({**base, **rankings(range(1, 5), {i: ["x"] for i in range(1, 5)})})
    result = suite.run(*run_mode)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "mrr@10 regressed (tolerance; too few changed cases to test) 0.750 → 0.417 "
            "(Δ −0.333) (ragcheck failed for golden.jsonl*",
            "  mrr@10: 0.750 → 0.417 (Δ −0.333, allowed 0.020, p=0.0625, 95% CI [[]*",
            "    judged by tolerance alone: only 4 case(s) changed, too few for the paired "
            "test to reach p ≤ 0.05; smallest detectable change 0.187",
        ]
    )
    # The summary says how small a drop twelve such cases can see: (z.95 + z.8) · s / √12.
    assert "smallest drop this golden set detects (p ≤ 0.05, 80 % power): mrr@10 0.187" in (
        flat(suite, result)
    )
    suite.assert_clean(result)


def to_version_1(text: str) -> str:
    """A schema-version-2 baseline as pytest-ragcheck 0.1 wrote it: values only per case."""
    data = json.loads(text)
    data["schema_version"] = 1
    data["cases"] = {case_id: entry["values"] for case_id, entry in data["cases"].items()}
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


# Not about processes: pytest-xdist is covered by
# test_baseline_lifecycle.py::test_baseline_life_cycle[xdist].
@SERIAL_ONLY
def test_a_baseline_written_by_0_1_keeps_working(suite, run_mode) -> None:
    ten = cases(range(1, 11))
    suite.make(FAQ, cases=ten, rankings=rankings(range(1, 11)))
    suite.update_baselines().assert_outcomes(passed=1)
    path = suite.path / SNAPSHOT
    path.write_text(to_version_1(path.read_text("utf-8")), encoding="utf-8")
    old = suite.snapshots()

    # The same golden set: compared (a worse retriever fails, with no stored ranking to cite).
    suite.retriever(rankings(range(1, 11), WORSE))
    result = suite.run(*run_mode)
    result.assert_outcomes(failed=1)
    text = suite.text(result)
    assert "mrr@3 regressed 1.000 → 0.500 (Δ −0.500)" in text
    assert "    q1  'question 1'  1.000 → 0.000" in text
    assert "rank 1 →" not in text
    suite.assert_clean(result)

    # Cases only added: still compared, on the ten it was recorded on.
    suite.make(FAQ, cases=cases(range(1, 13)), rankings=rankings(range(1, 13)))
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=1)
    assert (
        "golden set changed since the baseline: 2 added (q11, q12); compared on the 10 "
        "shared case(s)"
    ) in flat(suite, result)

    # A case edited: a 0.1 file cannot tell which, so it asks to be re-recorded once.
    edited = [*ten[:4], {**ten[4], "expected_ids": ["d5", "d50"]}, *ten[5:]]
    suite.golden(edited)
    result = suite.run(*run_mode)
    result.assert_outcomes(failed=1)
    text = suite.text(result)
    assert (
        "baseline not comparable: the golden set changed, and this baseline was written by "
        "pytest-ragcheck 0.1, which kept no per-case hashes to tell changed cases from "
        "unchanged ones; re-record it once with --snapshot-update"
    ) in text
    suite.assert_clean(result)
    assert suite.snapshots() == old

    # Re-recorded once, it is a version-2 file and compares case by case.
    suite.update_baselines().assert_outcomes(passed=1)
    assert suite.read_json(SNAPSHOT)["schema_version"] == 2


# Not about processes: pytest-xdist is covered by
# test_baseline_lifecycle.py::test_baseline_life_cycle[xdist].
@SERIAL_ONLY
def test_hits_of_whole_ranking_metrics_are_capped(suite, run_mode) -> None:
    """``@all`` reads the whole ranking: the stored ids stop at ``ragcheck_baseline_max_hits``."""
    suite.ini(ragcheck_baseline_max_hits="4")
    suite.make(
        ragcheck_module('"golden.jsonl", metrics=["map@all", "mrr@2"]', function="test_faq"),
        cases=cases([2, 10]),
        rankings=rankings([2, 10]),
    )
    suite.run("--snapshot-update", *run_mode).assert_outcomes(passed=1)
    stored = suite.read_json(SNAPSHOT)
    assert list(stored["cases"]) == ["q2", "q10"]
    assert stored["cases"]["q10"]["hits"] == ["d10", "x1", "x2", "x3"]


def _damage(suite: Suite, change: Any) -> bytes:
    data = suite.read_json(SNAPSHOT)
    change(data["cases"])
    damaged = json.dumps(data, indent=2).encode("utf-8")
    (suite.path / SNAPSHOT).write_bytes(damaged)
    return damaged


@SERIAL_ONLY
def test_bad_input_is_a_clear_message_and_loses_nothing(suite, run_mode) -> None:
    ten = cases(range(1, 11))
    suite.make(FAQ, cases=ten, rankings=rankings(range(1, 11)))
    suite.update_baselines().assert_outcomes(passed=1)
    recorded = suite.snapshots()

    # A changed set whose new cases reuse an id: the golden set names the line, and neither
    # a run nor --snapshot-update touches the baseline.
    suite.golden([*ten, *cases(range(11, 14)), {**ten[2], "query": "question three"}])
    for args in ([], ["--snapshot-update"]):
        result = suite.run(*args, *run_mode)
        result.assert_outcomes(failed=1)
        assert "golden.jsonl:14: duplicate id 'q3' (also on line 3)" in suite.text(result)
        suite.assert_clean(result)
        assert suite.snapshots() == recorded, args

    # Garbage in the per-case entries of a version-2 file: the field is named.
    suite.golden(ten)
    for change, message in (
        (lambda c: c["q1"].update(hash=5), "bad cases['q1']['hash'] 5 (expected a string)"),
        (
            lambda c: c["q2"].update(hits="d2"),
            "bad cases['q2']['hits'] (expected a list of document ids as strings)",
        ),
        (
            lambda c: c["q2"].update(hits=["d2", 7]),
            "bad cases['q2']['hits'] (expected a list of document ids as strings)",
        ),
        (
            lambda c: c["q3"].pop("hash"),
            "bad cases['q3'] (expected an object with hash, hits and values, got "
            "['hits', 'values'])",
        ),
    ):
        (suite.path / SNAPSHOT).write_bytes(recorded[SNAPSHOT])
        damaged = _damage(suite, change)
        result = suite.run(*run_mode)
        result.assert_outcomes(failed=1)
        text = suite.text(result)
        assert f"Baseline cannot be read: {SNAPSHOT}: {message}." in text, text
        suite.assert_clean(result)
        assert (suite.path / SNAPSHOT).read_bytes() == damaged

    # Stored hits naming documents the golden set no longer judges: the case whose relevant
    # document changed is edited (never explained with its old ranking), a removed case's
    # hits are ignored, and the others still explain their drop.
    (suite.path / SNAPSHOT).write_bytes(recorded[SNAPSHOT])
    suite.golden([{**ten[0], "expected_ids": ["d1-new"]}, *ten[1:9]])
    suite.retriever(rankings(range(1, 11), WORSE))
    result = suite.run(*run_mode)
    result.assert_outcomes(failed=1)
    text = suite.text(result)
    assert "1 removed (q10), 1 edited (q1); compared on the 8 shared case(s)" in text
    assert "d1 rank" not in text
    assert "q1  'question 1'" not in text
    assert "      d2 rank 1 → 4" in text
    suite.assert_clean(result)
    assert suite.snapshots() == recorded

    # No case id in common at all: not comparable, with the counts and first ids.
    suite.golden([{**case, "id": f"faq-{case['id']}"} for case in ten])
    result = suite.run(*run_mode)
    result.assert_outcomes(failed=1)
    assert (
        "baseline not comparable: no case is shared with the baseline (10 added (faq-q1, "
        "faq-q2, faq-q3, faq-q4, faq-q5, …), 10 removed (q1, q2, q3, q4, q5, …))"
    ) in suite.text(result)
    assert suite.snapshots() == recorded
