"""The collector settings of a run: objects alive before it are frozen, then thawed once."""

from __future__ import annotations

import gc

from pytest_ragcheck import evaluate
from pytest_ragcheck.evaluation.pipeline import fewer_collections


def test_nested_blocks_freeze_and_thaw_once() -> None:
    before = gc.get_freeze_count()
    threshold = gc.get_threshold()
    with fewer_collections():
        assert gc.get_freeze_count() > before
        with fewer_collections():
            pass
        assert gc.get_freeze_count() > 0  # the inner block leaves the outer one's frozen
        assert gc.get_threshold()[0] >= 100_000
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == threshold
    assert gc.isenabled()


def test_a_run_leaves_the_collector_as_it_was() -> None:
    threshold = gc.get_threshold()
    cases = [{"id": f"c{i}", "query": f"q {i}", "expected_ids": [f"d{i}"]} for i in range(50)]
    result = evaluate(lambda q: [q.replace("q ", "d"), ("x", 0.5)], cases, k=2, metrics=["mrr"])
    assert result["mrr@2"] == 1.0
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == threshold
    assert gc.isenabled()
