"""Properties of the metrics, checked on generated cases (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_ragcheck import metrics as m
from pytest_ragcheck.metrics.names import RANK_METRICS, MetricSpec

FUNCTIONS = [m.metric_function(name) for name in RANK_METRICS]
SETTINGS = settings(max_examples=150, deadline=None)

doc_ids = st.sampled_from([f"d{i}" for i in range(12)] + ["é", "Ω", "z"])
rankings = st.lists(doc_ids, max_size=15)  # may repeat ids
grades = st.dictionaries(doc_ids, st.integers(-2, 4), max_size=12)
cutoffs = st.one_of(st.none(), st.integers(1, 16))


@SETTINGS
@given(rankings, grades, cutoffs)
def test_every_metric_is_between_zero_and_one(ranking, relevance, k):
    for fn in FUNCTIONS:
        assert 0.0 <= fn(ranking, relevance, k) <= 1.0 + 1e-12, fn.__name__


@SETTINGS
@given(rankings, grades, cutoffs, st.randoms(use_true_random=False))
def test_shuffling_the_grades_of_unretrieved_docs_changes_nothing(ranking, relevance, k, rnd):
    retrieved = set(ranking)
    outside = [d for d in relevance if d not in retrieved]
    values = [relevance[d] for d in outside]
    rnd.shuffle(values)
    shuffled = dict(relevance) | dict(zip(outside, values, strict=True))
    reordered = dict(reversed(list(shuffled.items())))  # judgment order does not matter either
    for fn in FUNCTIONS:
        assert fn(ranking, reordered, k) == fn(ranking, relevance, k), fn.__name__


@SETTINGS
@given(rankings, grades, cutoffs, st.permutations([f"d{i}" for i in range(12)] + ["é", "Ω", "z"]))
def test_relabelling_ids_changes_nothing(ranking, relevance, k, new_names):
    names = [f"d{i}" for i in range(12)] + ["é", "Ω", "z"]
    rename = dict(zip(names, new_names, strict=True))
    renamed_ranking = [rename[d] for d in ranking]
    renamed_relevance = {rename[d]: g for d, g in relevance.items()}
    for fn in FUNCTIONS:
        assert fn(renamed_ranking, renamed_relevance, k) == fn(ranking, relevance, k)


@SETTINGS
@given(rankings, grades)
def test_recall_and_hit_rate_never_decrease_with_k(ranking, relevance):
    for fn in (m.recall, m.hit_rate, m.hit_rate_granular):
        values = [fn(ranking, relevance, k) for k in range(1, 18)]
        assert values == sorted(values), fn.__name__
        assert values[-1] == fn(ranking, relevance, None)


@SETTINGS
@given(st.lists(st.tuples(rankings, grades), max_size=12), cutoffs)
def test_engine_equals_pure_functions(cases, k):
    run = {f"q{i}": ranking for i, (ranking, _) in enumerate(cases)}
    qrels = {f"q{i}": relevance for i, (_, relevance) in enumerate(cases)}
    specs = [MetricSpec(base, None if base == "r_precision" else k) for base in RANK_METRICS]
    got = m.evaluate_run(run, qrels, specs)
    for spec in specs:
        fn = m.metric_function(spec.base)
        expected = [fn(run[q], qrels[q], spec.k) for q in run]
        assert got[spec.name].tolist() == expected, spec.name


score_values = st.one_of(
    st.sampled_from([0.0, 0.5, 1.0, 1.0 + 1e-9, -3.0]),  # ties, and a float32-only tie
    st.floats(-1e6, 1e6, allow_nan=False),
)


@SETTINGS
@given(
    st.lists(st.tuples(st.dictionaries(doc_ids, score_values, max_size=15), grades), max_size=10),
    cutoffs,
)
def test_score_runs_equal_their_sorted_list_runs(cases, k):
    scored = {f"q{i}": scores for i, (scores, _) in enumerate(cases)}
    listed = {q: m.rank_scores(scores) for q, scores in scored.items()}
    qrels = {f"q{i}": relevance for i, (_, relevance) in enumerate(cases)}
    names = [
        f"{base}@{'all' if k is None else k}" for base in RANK_METRICS if base != "r_precision"
    ]
    names.append("r_precision")
    from_scores = m.evaluate_run(scored, qrels, names)
    from_lists = m.evaluate_run(listed, qrels, names)
    for name in names:
        assert from_scores[name].tolist() == from_lists[name].tolist(), name


@pytest.mark.parametrize("fn", FUNCTIONS, ids=RANK_METRICS)
def test_appending_irrelevant_docs_never_changes_cutoff_metrics(fn):
    """A tail of unjudged docs after rank k cannot change a metric at k."""
    ranking, relevance = ["a", "b", "c"], {"b": 2, "c": 1, "x": 3}
    longer = [*ranking, "u1", "u2", "b", "x"]
    if fn is m.r_precision:  # cut at R = 3, not at k
        assert fn(longer, relevance) == fn(ranking, relevance)
    else:
        assert fn(longer, relevance, 3) == fn(ranking, relevance, 3)
