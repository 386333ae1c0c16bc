"""Hit records built on first read: what a run keeps instead, and that nothing can tell.

``evaluate()`` keeps the retriever's hits and the case's grades; ``case.hits`` turns them into
``HitRecord``s when read. The JSON report entry, the stored baseline and judged@k read the kept
hits directly, so each is compared here with the same case whose hits were built first.
"""

from __future__ import annotations

import json
import math

import pytest

from pytest_ragcheck import evaluate
from pytest_ragcheck.baseline.document import BaselineDoc
from pytest_ragcheck.evaluation.result import CaseResult, HitRecord, hit_ids
from pytest_ragcheck.golden import GoldenCase
from pytest_ragcheck.judge.labels import labels_of
from pytest_ragcheck.metrics import judged
from pytest_ragcheck.report.cases import MAX_HITS, case_json
from pytest_ragcheck.run.hits import Hit

GRADES = {"a": 2, "b": 0, "c": 1, "neg": -1}


def _lazy(hits: list[Hit]) -> CaseResult:
    return CaseResult(id="q1", query="query", _ranked=(hits, GRADES))


def _hits(odd_score: float = math.nan) -> list[Hit]:
    return [
        Hit("a", "text of a", 0.9),
        Hit("x", None, None),
        Hit("neg", 'é "quoted"\n' + "z" * 500, odd_score),
        Hit("c", None, 3),
    ]


def test_hits_are_built_on_first_read_with_ranks_and_grades() -> None:
    case = _lazy(_hits())
    assert hit_ids(case) == ["a", "x", "neg", "c"]
    first, second, third, fourth = case.hits
    assert first == HitRecord(1, "a", "text of a", 0.9, 2)
    assert second == HitRecord(2, "x", None, None, 0)
    assert (third.rank, third.id, third.grade) == (3, "neg", 0)  # a negative grade shows as 0
    assert third.score is not None
    assert math.isnan(third.score)
    assert fourth == HitRecord(4, "c", None, 3, 1)
    assert case.hits is case.hits  # built once, then an ordinary list
    case.hits.append(HitRecord(5, "d", None, None, 0))
    assert hit_ids(case)[-1] == "d"


def test_an_assigned_list_replaces_the_kept_hits() -> None:
    case = _lazy(_hits())
    case.hits = [HitRecord(1, "only", None, None, 0)]
    assert hit_ids(case) == ["only"]
    assert case == CaseResult(id="q1", query="query", hits=[HitRecord(1, "only", None, None, 0)])


def test_lazy_and_built_cases_are_equal_and_show_the_same() -> None:
    lazy, built = _lazy(_hits()), _lazy(_hits())
    assert built.hits  # built now
    assert repr(lazy) == repr(built)
    assert lazy.to_dict() == built.to_dict()
    # ``==`` of records holding NaN is False from Python 3.13 on (dataclasses compare field
    # by field there, no longer as tuples, where ``nan is nan`` made them equal)
    lazy, built = _lazy(_hits(-0.5)), _lazy(_hits(-0.5))
    assert built.hits
    assert lazy == built


@pytest.mark.parametrize("count", [0, 4, MAX_HITS + 7])
def test_report_entry_is_the_same_text_from_kept_hits(count: int) -> None:
    hits = (_hits() * (count // 4 + 1))[:count]
    hits = [Hit(f"{h.id}{i}" if i >= 4 else h.id, h.text, h.score) for i, h in enumerate(hits)]
    lazy, built = _lazy(hits), _lazy(hits)
    built.values.update({"mrr@10": 0.5, "ndcg@10": math.inf})
    lazy.values.update(built.values)
    assert built.hits is not None
    text = case_json(lazy, {"mrr@10": 0.25})
    assert text == case_json(built, {"mrr@10": 0.25})
    entry = json.loads(text)
    assert len(entry["hits"]) == min(count, MAX_HITS)
    assert entry["hits_dropped"] == max(0, count - MAX_HITS)
    assert entry["values"] == {"mrr@10": 0.5, "ndcg@10": None}
    assert lazy._ranked is not None  # the entry built no HitRecord


def _golden(n: int) -> list[GoldenCase]:
    cases = []
    for i in range(n):
        if i % 3 == 0:  # graded, with a judged-not-relevant id
            cases.append(
                GoldenCase(id=f"g{i}", query=f"q{i}", relevance={f"d{i}": 2, f"d{i + 1}": 0})
            )
        else:  # binary
            cases.append(GoldenCase(id=f"b{i}", query=f"q{i}", expected_ids=[f"d{i}"]))
    return cases


def _retriever(query: str) -> list[tuple[str, float]]:
    i = int(query[1:])
    return [(f"d{(i + j) % 7 + i - 3}", 1.0 - j / 10) for j in range(i % 5)]


def test_judged_at_k_equals_the_reference_function_on_the_labels_rule() -> None:
    golden = _golden(30)
    result = evaluate(_retriever, golden, metrics=["mrr@3", "judged@2", "judged@all"], empty="zero")
    by_id = {c.id: c for c in golden}
    checked = 0
    for case in result.cases:
        ids = [h.id for h in case.hits]
        labels = labels_of(by_id[case.id], ids)
        assert labels is not None
        for k in (2, None):
            name = "judged@2" if k else "judged@all"
            assert case.values[name] == judged(ids, labels, k), (case.id, name)
            checked += 1
    assert checked == 60


def test_graded_sets_get_judged_at_k_by_default() -> None:
    golden = [c for c in _golden(30) if c.relevance]
    result = evaluate(_retriever, golden, metrics=["mrr@3"], k=3, empty="zero")
    assert "judged@3" in result.metrics
    for case in result.cases:
        labels = labels_of(next(c for c in golden if c.id == case.id), hit_ids(case))
        assert labels is not None
        assert case.values["judged@3"] == judged(hit_ids(case), labels, 3)


def test_stored_baseline_is_the_same_from_kept_or_built_hits() -> None:
    golden = _golden(30)
    kept = evaluate(_retriever, golden, metrics=["mrr@3", "recall@3"], empty="zero")
    built = evaluate(_retriever, golden, metrics=["mrr@3", "recall@3"], empty="zero")
    for case in built.cases:
        assert isinstance(case.hits, list)
    text = BaselineDoc.from_result(kept).to_json()
    assert text == BaselineDoc.from_result(built).to_json()
    again = BaselineDoc.from_json(text)
    assert again.to_json() == text
    assert again.hits == BaselineDoc.from_result(kept).hits
