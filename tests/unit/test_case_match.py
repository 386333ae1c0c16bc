"""Which cases a run shares with its baseline: shared, added, removed and edited."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import pytest

from pytest_ragcheck.baseline.document import BaselineDoc
from pytest_ragcheck.gate.case_match import CaseMatch, match_cases
from pytest_ragcheck.golden import GoldenCase, GoldenSet


def doc(hashes: Mapping[str, str], *, version: int = 2, golden_hash: str = "g") -> BaselineDoc:
    """A baseline (or a run, as the document it would store) with these case hashes."""
    return BaselineDoc(
        k=10,
        metrics=("mrr@10",),
        n_cases=len(hashes),
        golden_hash=golden_hash,
        aggregates={"mrr@10": 1.0},
        cases={case_id: {"mrr@10": 1.0} for case_id in hashes},
        schema_version=version,
        case_hashes=dict(hashes) if version >= 2 else {},
    )


def test_the_same_cases_are_the_whole_set() -> None:
    hashes = {"q10": "a", "q2": "b", "q1": "c"}
    match = match_cases(doc(hashes), doc(hashes))
    assert match == CaseMatch(shared=("q1", "q2", "q10"))
    assert match.whole
    assert match.summary() == ""


def test_added_removed_and_edited_cases_in_natural_order() -> None:
    stored = doc({"q1": "h1", "q2": "h2", "q9": "h9", "q10": "h10"})
    current = doc({"q11": "h11", "q10": "h10", "q3": "h3", "q2": "changed", "q1": "h1"})
    match = match_cases(stored, current)
    assert match.shared == ("q1", "q10")
    assert match.added == ("q3", "q11")
    assert match.removed == ("q9",)
    assert match.edited == ("q2",)
    assert not match.whole
    assert match.summary() == "2 added (q3, q11), 1 removed (q9), 1 edited (q2)"


def test_summary_and_report_show_the_first_five_ids() -> None:
    stored = doc({"q1": "h"})
    current = doc({"q1": "h", **{f"new-{i}": "n" for i in range(1, 8)}})
    match = match_cases(stored, current)
    assert match.summary() == "7 added (new-1, new-2, new-3, new-4, new-5, …)"
    assert match.to_dict() == {
        "shared": 1,
        "added": 7,
        "added_ids": ["new-1", "new-2", "new-3", "new-4", "new-5"],
        "removed": 0,
        "removed_ids": [],
        "edited": 0,
        "edited_ids": [],
    }


def test_nothing_shared_is_an_empty_match() -> None:
    match = match_cases(doc({"a": "1"}), doc({"b": "1"}))
    assert match.shared == ()
    assert (match.added, match.removed, match.edited) == (("b",), ("a",), ())
    assert match.reason == ""  # "no case is shared" is said by the comparison


# --- version-1 files (pytest-ragcheck 0.1): no per-case hashes ---------------------------


def test_version_1_with_an_unchanged_golden_set_shares_every_case() -> None:
    stored = doc({"q1": "", "q2": ""}, version=1, golden_hash="same")
    current = doc({"q1": "h1", "q2": "h2"}, golden_hash="same")
    match = match_cases(stored, current)
    assert match == CaseMatch(shared=("q1", "q2"))


def test_version_1_with_cases_only_added_compares_the_old_ones() -> None:
    stored = doc({"q1": "", "q2": ""}, version=1, golden_hash="old")
    current = doc({"q1": "h1", "q2": "h2", "q3": "h3"}, golden_hash="new")
    asked: list[set[str]] = []

    def subset_hash(ids: Collection[str]) -> str:
        asked.append(set(ids))
        return "old"

    match = match_cases(stored, current, subset_hash=subset_hash)
    assert match == CaseMatch(shared=("q1", "q2"), added=("q3",))
    assert asked == [{"q1", "q2"}]


@pytest.mark.parametrize(
    ("current", "subset"),
    [
        ({"q1": "h1", "q2": "h2", "q3": "h3"}, "edited"),  # an old case changed
        ({"q1": "h1", "q3": "h3"}, "old"),  # a case removed: cannot be told apart
        ({"q1": "h1", "q2": "h2"}, None),  # no way to hash the old cases
    ],
)
def test_version_1_cannot_tell_edits_apart_and_asks_for_one_re_record(
    current: dict[str, str], subset: str | None
) -> None:
    stored = doc({"q1": "", "q2": ""}, version=1, golden_hash="old")
    match = match_cases(
        stored,
        doc(current, golden_hash="new"),
        subset_hash=None if subset is None else (lambda ids: subset),
    )
    assert match.shared == ()
    assert "written by pytest-ragcheck 0.1" in match.reason
    assert "re-record it once with --snapshot-update" in match.reason


# --- what counts as an edit: the case content hash ---------------------------------------

BASE: dict[str, Any] = {"id": "q1", "query": "refund window", "expected_ids": ["kb-1"]}


@pytest.mark.parametrize(
    "change",
    [{"tags": ["billing"]}, {"metadata": {"owner": "support"}}, {"relevance": {"kb-1": 1}}],
    ids=["tags", "metadata", "the same grades written as relevance"],
)
def test_notes_about_a_case_are_not_an_edit(change: dict[str, Any]) -> None:
    assert GoldenCase(**{**BASE, **change}).content_hash == GoldenCase(**BASE).content_hash


@pytest.mark.parametrize(
    "change",
    [
        {"query": "refund window?"},
        {"expected_ids": ["kb-1", "kb-2"]},
        {"relevance": {"kb-1": 2}},
        {"relevance": {"kb-9": 0}},
        {"expected_texts": ["30 days"]},
        {"reference_answer": "30 days"},
    ],
    ids=["query", "expected_ids", "grade", "a judged non-relevant document", "spans", "answer"],
)
def test_what_can_change_a_score_is_an_edit(change: dict[str, Any]) -> None:
    assert GoldenCase(**{**BASE, **change}).content_hash != GoldenCase(**BASE).content_hash


def test_a_grown_set_hashes_its_old_cases_as_the_old_set() -> None:
    """What lets a version-1 baseline survive added cases."""
    old = GoldenSet(tuple(GoldenCase(id=f"q{i}", query=f"question {i}") for i in (1, 2)), "g")
    grown = GoldenSet((*old.cases, GoldenCase(id="q3", query="question 3")), "g")
    assert grown.content_hash != old.content_hash
    assert grown.subset_hash({"q1", "q2"}) == old.content_hash
    assert grown.case_hashes["q1"] == old.case_hashes["q1"]


def _diff(shared: int, removed: int, edited: int = 0) -> dict[str, object]:
    ids = [f"q{i}" for i in range(1, removed + 1)]
    match = CaseMatch(
        shared=tuple(f"s{i}" for i in range(shared)),
        removed=tuple(ids),
        edited=tuple(f"e{i}" for i in range(edited)),
    )
    return match.to_dict()


@pytest.mark.parametrize(
    ("shared", "removed", "edited", "warned"),
    [
        (1, 11, 0, True),  # 12 cases -> 1
        (6, 6, 0, False),  # exactly half: a golden set cut in two on purpose reads as such
        (5, 6, 1, False),  # 6 of 12 removed, one edited: half, not more
        (4, 7, 1, True),
        (0, 3, 0, True),
        (10, 0, 9, False),  # edited cases are still there
    ],
)
def test_a_golden_set_shrunk_by_more_than_half_is_warned_about(shared, removed, edited, warned):
    from pytest_ragcheck.gate.against_baseline import golden_shrink_warning

    warning = golden_shrink_warning(_diff(shared, removed, edited), "t.py::test_x")
    assert bool(warning) is warned


def test_the_shrink_warning_says_what_was_lost_and_how_to_accept_it():
    from pytest_ragcheck.gate.against_baseline import golden_shrink_warning

    assert golden_shrink_warning(_diff(1, 11), "t.py::test_x") == (
        "t.py::test_x: the golden set lost 11 of the baseline's 12 cases (q1, q2, q3, q4, q5, "
        "…); compared on 1 shared case only. If the cases were removed on purpose, re-record "
        'the baseline: `pytest "t.py::test_x" --snapshot-update`'
    )
    assert golden_shrink_warning(_diff(1, 2), "t.py::test_x", updated=True) == (
        "t.py::test_x: the golden set lost 2 of the baseline's 3 cases (q1, q2); the baseline "
        "was re-recorded without them: check that this was meant"
    )
    assert golden_shrink_warning({"shared": "1", "removed": 9, "edited": 0}, "t") == ""
