"""Why a case regressed: relevant documents that left the top k or moved down, newcomers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pytest_ragcheck.gate.explain import MAX_LINES, MAX_NEWCOMERS, explain_case


def explain(
    baseline: Sequence[str],
    current: Sequence[str],
    relevance: Mapping[str, int],
    k: int | None = 3,
) -> tuple[str, ...]:
    return explain_case(baseline=baseline, current=current, relevance=relevance, k=k)


def test_a_relevant_document_that_is_no_longer_retrieved_is_gone() -> None:
    assert explain(["d1", "x", "y"], ["x", "y", "z"], {"d1": 1}) == (
        "d1 rank 1 → gone",
        "came in: z at 3",
    )


def test_documents_that_moved_down_in_or_out_of_the_top_k() -> None:
    lines = explain(["d1", "d2", "x"], ["x", "d1", "y", "z", "d2"], {"d1": 1, "d2": 3})
    assert lines == ("d1 rank 1 → 2", "d2 rank 2 → 5", "came in: y at 3")


def test_lines_follow_the_baseline_ranks() -> None:
    lines = explain(["d2", "d1", "x"], ["x", "y", "z"], {"d1": 1, "d2": 1})
    assert lines[:2] == ("d2 rank 1 → gone", "d1 rank 2 → gone")


def test_a_document_that_moved_up_or_stayed_is_not_listed() -> None:
    assert explain(["x", "d1", "d2"], ["d1", "x", "d2"], {"d1": 1, "d2": 1}) == ()


def test_relevant_documents_outside_the_baseline_top_k_are_not_blamed() -> None:
    # d1 was at rank 4 with k=3: it never counted, so losing it explains nothing.
    assert explain(["x", "y", "z", "d1"], ["x", "y", "z"], {"d1": 1}) == ()


def test_grade_zero_is_judged_not_relevant() -> None:
    assert explain(["d2", "x"], ["n0", "d2"], {"d2": 2, "n0": 0}, k=2) == (
        "d2 rank 1 → 2",
        "came in: n0 at 1",
    )


def test_stored_ids_the_golden_set_does_not_judge_are_read_as_not_relevant() -> None:
    # A hand-edited or stale ranking: unknown ids never count as relevant documents.
    assert explain(["old-1", "d1", "old-2"], ["x", "d1"], {"d1": 1}) == ("came in: x at 1",)


def test_whole_ranking_metrics_read_the_whole_stored_ranking() -> None:
    lines = explain(["a", "b", "d1"], ["a", "b", "c", "e", "d1"], {"d1": 1}, k=None)
    assert lines == ("d1 rank 3 → 5", "came in: c at 3")


def test_long_explanations_are_cut() -> None:
    relevant = {f"d{i}": 1 for i in range(1, 7)}
    newcomers = [f"n{i}" for i in range(1, 7)]
    lines = explain(list(relevant), newcomers, relevant, k=6)
    assert lines[:MAX_LINES] == tuple(f"d{i} rank {i} → gone" for i in range(1, MAX_LINES + 1))
    assert lines[MAX_LINES] == f"… and {6 - MAX_LINES} more relevant documents lower"
    shown = ", ".join(f"n{i} at {i}" for i in range(1, MAX_NEWCOMERS + 1))
    assert lines[MAX_LINES + 1] == f"came in: {shown}, … {6 - MAX_NEWCOMERS} more"
    assert len(lines) == MAX_LINES + 2


def test_no_stored_ranking_explains_nothing() -> None:
    assert explain([], ["d1"], {"d1": 1}, k=None) == ()
