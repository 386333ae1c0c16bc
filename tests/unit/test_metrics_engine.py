"""``evaluate_run`` / ``evaluate_rankings``: exactly the pure functions, for every input shape.

Equality is exact (``==`` on float64), not approximate: the engine adds the same terms in the
same order as the pure functions (see the module docstring of ``pytest_ragcheck.metrics``).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from metric_cases import ALL_NAMES, random_cases

from pytest_ragcheck import metrics as m
from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.metrics.names import MetricSpec, parse_metric

CASES = random_cases(1000, seed=11)
QRELS = {c.qid: c.grades for c in CASES}


def pure(name: str, ranking: list[str], grades: dict[str, int]) -> float:
    spec = parse_metric(name, None)
    return m.metric_function(spec.base)(ranking, grades, spec.k)


def assert_exact(got: dict[str, np.ndarray], expected: dict[str, list[float]]) -> None:
    assert set(got) == set(expected)
    for name, values in expected.items():
        assert got[name].dtype == np.float64
        mismatch = [i for i, (a, b) in enumerate(zip(got[name], values, strict=True)) if a != b]
        assert not mismatch, f"{name}: first mismatch at query {mismatch[0]}"


def test_list_runs_equal_the_pure_functions_exactly():
    run = {c.qid: c.raw for c in CASES}  # raw: with repeated ids
    got = m.evaluate_run(run, QRELS, ALL_NAMES)
    assert_exact(got, {n: [pure(n, c.raw, c.grades) for c in CASES] for n in ALL_NAMES})


def test_score_runs_equal_the_pure_functions_on_the_sorted_ranking():
    run = {c.qid: c.scores() for c in CASES}
    got = m.evaluate_run(run, QRELS, ALL_NAMES)
    assert_exact(got, {n: [pure(n, c.ranking, c.grades) for c in CASES] for n in ALL_NAMES})


def test_tied_scores_are_broken_by_doc_id_descending():
    rng = random.Random(5)
    runs = {c.qid: c.tied_scores(rng) for c in CASES}
    expected = {
        n: [pure(n, m.rank_scores(runs[c.qid]), c.grades) for c in CASES] for n in ALL_NAMES
    }
    assert_exact(m.evaluate_run(runs, QRELS, ALL_NAMES), expected)
    # one metric at a time: the graded matrix is cut at that cutoff, so ties across the cut
    # are handled separately from ties inside it
    for name in ("mrr@1", "ndcg@3", "precision@5", "map@10"):
        assert_exact(m.evaluate_run(runs, QRELS, [name]), {name: expected[name]})


def test_runs_written_best_first_with_ties_are_still_tie_broken_by_id():
    """Rows already in score order skip the sort; their ties must still be resolved by id."""
    run = {"q1": {"a": 3.0, "b": 2.0, "c": 2.0, "d": 1.0}, "q2": {"x": 5.0, "y": 4.0}}
    qrels = {"q1": {"c": 1}, "q2": {"y": 1}}
    got = m.evaluate_run(run, qrels, ["mrr@all", "mrr@2"])
    assert got["mrr@all"].tolist() == [1 / 2, 1 / 2]  # c (> b) comes second
    assert got["mrr@2"].tolist() == [1 / 2, 1 / 2]


def test_tie_break_by_doc_id_explicitly():
    run = {"q": {"a": 1.0, "c": 1.0, "b": 1.0, "é": 0.5, "z": 0.5}}
    # order: c, b, a (ties: id descending), then é before z (U+00E9 > U+007A, also in UTF-8)
    assert m.evaluate_run(run, {"q": {"c": 1}}, ["mrr@1"])["mrr@1"][0] == 1.0
    assert m.evaluate_run(run, {"q": {"a": 1}}, ["mrr@all"])["mrr@all"][0] == 1 / 3
    assert m.evaluate_run(run, {"q": {"é": 1}}, ["mrr@all"])["mrr@all"][0] == 1 / 4
    assert m.evaluate_run(run, {"q": {"z": 1}}, ["mrr@4"])["mrr@4"][0] == 0.0


def test_scores_are_compared_in_single_precision_like_trec_eval():
    near = 1.0 + 1e-9  # a different float64, the same float32 as 1.0
    run = {"q": {"a": near, "z": 1.0, "m": 0.5}}
    assert m.rank_scores(run["q"]) == ["z", "a", "m"]  # a tie, so doc id descending
    assert m.evaluate_run(run, {"q": {"a": 1}}, ["mrr@all"])["mrr@all"][0] == 1 / 2
    assert m.rank_scores({"a": 1.0 + 1e-6, "z": 1.0}) == ["a", "z"]  # distinct in float32
    huge = {"a": 1e39, "b": float("inf"), "c": 3.0}  # beyond float32: +inf, a tie
    assert m.rank_scores(huge) == ["b", "a", "c"]
    assert m.evaluate_run({"q": huge}, {"q": {"a": 1}}, ["mrr@all"])["mrr@all"][0] == 1 / 2


def test_rank_scores_orders_like_sorting_by_score_then_id():
    rng = random.Random(8)
    for _ in range(200):
        scores = {f"d{i}": float(rng.choice((0.25, 0.5, -1.0, 3.0))) for i in range(20)}
        expected = sorted(scores, key=lambda d: (scores[d], d), reverse=True)
        assert m.rank_scores(scores) == expected


def test_rank_scores_rejects_bad_input():
    with pytest.raises(TypeError, match=r"scores must be a mapping"):
        m.rank_scores(["a", "b"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"document ids must be str, got int 1"):
        m.rank_scores({1: 0.5})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match=r"scores must be numbers"):
        m.rank_scores({"a": "high"})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match=r"scores must not be NaN"):
        m.rank_scores({"a": float("nan")})


@pytest.mark.parametrize("shift", [0, 300])
@pytest.mark.parametrize("kind", ["lists", "scores"])
def test_small_and_large_grades_take_different_paths_to_the_same_values(kind, shift):
    """Grades in 0..255 are gathered as bytes; larger (or negative) ones as Python ints."""
    qrels = {
        c.qid: {d: max(g, 0) + (shift if g > 0 else 0) for d, g in c.grades.items()} for c in CASES
    }
    run = {c.qid: (c.raw if kind == "lists" else c.scores()) for c in CASES}
    expected = {n: [pure(n, c.ranking, qrels[c.qid]) for c in CASES] for n in ALL_NAMES}
    assert_exact(m.evaluate_run(run, qrels, ALL_NAMES), expected)


def test_one_metric_per_call_equals_all_at_once():
    run = {c.qid: c.raw for c in CASES}
    together = m.evaluate_run(run, QRELS, ALL_NAMES)
    for name in ALL_NAMES:
        alone = m.evaluate_run(run, QRELS, [name])
        assert np.array_equal(alone[name], together[name]), name


@pytest.mark.parametrize("kind", ["lists", "scores"])
def test_blocks_of_queries_give_the_same_result(monkeypatch, kind):
    run = {c.qid: (c.raw if kind == "lists" else c.scores()) for c in CASES}
    whole = m.evaluate_run(run, QRELS, ALL_NAMES)
    monkeypatch.setattr(m, "CHUNK_QUERIES", 7)
    chunked = m.evaluate_run(run, QRELS, ALL_NAMES)
    for name in ALL_NAMES:
        assert np.array_equal(whole[name], chunked[name]), name


def test_queries_are_matched_by_key_and_returned_in_run_order():
    run = {"q2": ["a", "b"], "q1": ["b", "a"], "q3": ["a"]}
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}  # other key order; q3 has no judgments
    got = m.evaluate_run(run, qrels, ["mrr@all", "recall@1"])
    assert got["mrr@all"].tolist() == [1 / 2, 1 / 2, 0.0]
    assert got["recall@1"].tolist() == [0.0, 0.0, 0.0]


def test_names_are_canonical_and_bare_names_take_the_default_k():
    run = {"q": ["a", "b", "c"]}
    qrels = {"q": {"c": 1}}
    got = m.evaluate_run(run, qrels, ["mrr", "recall@2", "r_precision", "NDCG@2"])
    assert list(got) == ["mrr@all", "recall@2", "r_precision", "ndcg@2"]
    assert got["mrr@all"][0] == 1 / 3
    got = m.evaluate_run(run, qrels, ["mrr", "recall_at_3"], k=2)
    assert list(got) == ["mrr@2", "recall@3"]
    assert (got["mrr@2"][0], got["recall@3"][0]) == (0.0, 1.0)
    specs = [MetricSpec("precision", 3), MetricSpec("precision", 3), MetricSpec("map", None)]
    assert list(m.evaluate_run(run, qrels, specs)) == ["precision@3", "map@all"]
    assert list(m.evaluate_run(run, qrels, "hit_rate@1")) == ["hit_rate@1"]


def test_empty_run_gives_empty_arrays():
    got = m.evaluate_run({}, {"q": {"a": 1}}, ["mrr@10", "ndcg@3"])
    assert {n: a.shape for n, a in got.items()} == {"mrr@10": (0,), "ndcg@3": (0,)}


def test_every_ranking_empty():
    got = m.evaluate_run({"q1": [], "q2": []}, {"q1": {"a": 1}}, ALL_NAMES)
    assert all(a.tolist() == [0.0, 0.0] for a in got.values())
    got = m.evaluate_run({"q1": {}, "q2": {}}, {"q1": {"a": 1}}, ALL_NAMES)
    assert all(a.tolist() == [0.0, 0.0] for a in got.values())


def test_tuples_and_other_sequences_are_accepted_as_rankings():
    as_lists = m.evaluate_run({c.qid: c.raw for c in CASES[:50]}, QRELS, ALL_NAMES)
    as_tuples = m.evaluate_run({c.qid: tuple(c.raw) for c in CASES[:50]}, QRELS, ALL_NAMES)
    for name in ALL_NAMES:
        assert np.array_equal(as_lists[name], as_tuples[name])


def test_integer_and_numpy_scores_are_accepted():
    run = {"q": {"a": 3, "b": np.float32(2.5), "c": np.int64(1)}}
    assert m.evaluate_run(run, {"q": {"b": 1}}, ["mrr@3"])["mrr@3"][0] == 1 / 2


def test_evaluate_rankings_is_the_positional_twin():
    specs = [parse_metric(n, None) for n in ALL_NAMES]
    got = m.evaluate_rankings([c.raw for c in CASES], [c.grades for c in CASES], specs)
    expected = m.evaluate_run({c.qid: c.raw for c in CASES}, QRELS, ALL_NAMES)
    for name in ALL_NAMES:
        assert np.array_equal(got[name], expected[name]), name


def test_evaluate_rankings_accepts_lists_of_relevant_ids():
    got = m.evaluate_rankings([["a", "b"], ["c"]], [["b"], {"c", "x"}], ["mrr@2", "recall@2"])
    assert got["mrr@2"].tolist() == [1 / 2, 1.0]
    assert got["recall@2"].tolist() == [1.0, 1 / 2]


# ---- bad input ------------------------------------------------------------------------------


def test_run_must_be_a_mapping():
    with pytest.raises(TypeError, match=r"run must be a mapping \{qid: ranking\}, got list"):
        m.evaluate_run([["a"]], {}, ["mrr@1"])  # type: ignore[arg-type]


def test_qrels_must_be_a_mapping_of_mappings():
    with pytest.raises(TypeError, match=r"qrels must be a mapping"):
        m.evaluate_run({"q": ["a"]}, [("q", "a", 1)], ["mrr@1"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"judgments of query 'q' must be a mapping"):
        m.evaluate_run({"q": ["a"]}, {"q": ["a"]}, ["mrr@1"])  # type: ignore[dict-item]


@pytest.mark.parametrize("value", [5, "a b c", None, {"a", "b"}])
def test_a_ranking_that_is_neither_a_list_nor_a_dict_is_rejected(value):
    with pytest.raises(
        TypeError,
        match=r"ranking of query 'q1' must be a list of ids in rank order or a "
        r"\{doc_id: score\} mapping",
    ):
        m.evaluate_run({"q0": ["a"], "q1": value}, {}, ["mrr@1"])


def test_mixing_lists_and_score_dicts_is_rejected():
    with pytest.raises(TypeError, match=r"query 'q1' is a dict .* use one kind for the whole run"):
        m.evaluate_run({"q0": ["a"], "q1": {"a": 1.0}}, {}, ["mrr@1"])
    with pytest.raises(TypeError, match=r"query 'q1' is a list .* use one kind for the whole run"):
        m.evaluate_run({"q0": {"a": 1.0}, "q1": ["a"]}, {}, ["mrr@1"])


def test_non_str_ids_are_rejected():
    with pytest.raises(TypeError, match=r"run: query ids must be str, got int 1"):
        m.evaluate_run({1: ["a"]}, {}, ["mrr@1"])  # type: ignore[dict-item]
    with pytest.raises(TypeError, match=r"run: document ids must be str, got int 7 in query 'q'"):
        m.evaluate_run({"q": [7, 8]}, {"q": {"7": 1}}, ["mrr@1"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"run: document ids must be str, got int 7 in query 'q'"):
        m.evaluate_run({"q": {7: 1.0}}, {"q": {"7": 1}}, ["mrr@1"])  # type: ignore[dict-item]
    with pytest.raises(TypeError, match=r"qrels: document ids must be str, got int 7 in query 'q'"):
        m.evaluate_run({"q": ["7"]}, {"q": {7: 1}}, ["mrr@1"])  # type: ignore[dict-item]


@pytest.mark.parametrize("grade", [1.5, 1.0, "2", None])
def test_non_integer_grades_are_rejected(grade):
    qrels = {"q0": {"a": 1}, "q1": {"a": 1, "b": grade}}
    with pytest.raises(
        TypeError, match=r"qrels: query 'q1': relevance grades must be integers, got .* 'b'"
    ):
        m.evaluate_run({"q0": ["a"], "q1": ["a", "b"]}, qrels, ["mrr@1"])


def test_bad_scores_are_rejected():
    with pytest.raises(TypeError, match=r"run: scores must be numbers, got str '0.5' in query 'q'"):
        m.evaluate_run({"q": {"a": "0.5"}}, {}, ["mrr@1"])
    with pytest.raises(TypeError, match=r"run: scores must be numbers"):
        m.evaluate_run({"q": {"a": 0.5, "b": "high"}}, {}, ["mrr@1"])
    with pytest.raises(ValueError, match=r"scores must not be NaN \(found one in query 'q1'\)"):
        m.evaluate_run({"q0": {"a": 1.0}, "q1": {"a": 1.0, "b": float("nan")}}, {}, ["mrr@1"])


@pytest.mark.parametrize("k", [0, -1, "5", 2.5])
def test_bad_default_k_is_rejected(k):
    with pytest.raises(ValueError, match=r"k must be an int >= 1 or None"):
        m.evaluate_run({"q": ["a"]}, {}, ["mrr"], k=k)


def test_bad_cutoff_in_a_spec_is_rejected():
    with pytest.raises(ValueError, match=r"k must be an int >= 1 or None.*got 0"):
        m.evaluate_run({"q": ["a"]}, {}, [MetricSpec("mrr", 0)])
    with pytest.raises(ConfigError, match=r"bad cutoff in metric 'mrr@0'"):
        m.evaluate_run({"q": ["a"]}, {}, ["mrr@0"])


def test_unknown_and_non_rank_metrics_are_rejected():
    with pytest.raises(ConfigError, match=r"unknown metric 'mmr@10' \(did you mean 'mrr'\?\)"):
        m.evaluate_run({"q": ["a"]}, {}, ["mmr@10"])
    with pytest.raises(ValueError, match=r"'latency_p95_ms' is not a rank metric"):
        m.evaluate_run({"q": ["a"]}, {}, ["latency_p95_ms"])


def test_evaluate_rankings_rejects_length_mismatch():
    with pytest.raises(ValueError, match=r"2 rankings but 1 relevances"):
        m.evaluate_rankings([["a"], ["b"]], [{"a": 1}], ["mrr@1"])
    with pytest.raises(TypeError, match=r"ranking #1 must be a list of ids"):
        m.evaluate_rankings([["a"], 3], [{"a": 1}, {"a": 1}], ["mrr@1"])  # type: ignore[list-item]
