"""What a run says beyond the metrics: the depth asked for, fewer hits than a cutoff, ids that
match nothing, the concurrency chosen, and numbers the metrics cannot hold."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from pytest_ragcheck import evaluate
from pytest_ragcheck.common.errors import GoldenSetError
from pytest_ragcheck.evaluation.keywords import build_settings
from pytest_ragcheck.gate.verdict import check_floors, failure_message
from pytest_ragcheck.metrics.names import parse_metric
from pytest_ragcheck.run.concurrency import AUTO_WORKERS, ConcurrencyChoice, choose
from pytest_ragcheck.run.facts import largest_cutoff, requested_depth

CASES = [
    {"id": "a", "query": "alpha", "relevance": {"d1": 2, "d2": 1, "d9": 0}},
    {"id": "b", "query": "beta", "expected_ids": ["d3"]},
    {"id": "c", "query": "gamma", "expected_ids": ["d4", "d5"]},
    {"id": "d", "query": "delta", "expected_ids": ["d6"]},
]


def specs(*names: str, k: int | None = 10) -> list[Any]:
    return [parse_metric(name, k) for name in names]


# ----------------------------------------------------------------- depth


@pytest.mark.parametrize(
    ("names", "k", "depth", "cutoff"),
    [
        (("mrr", "recall@20"), 10, 20, 20),
        (("mrr", "ndcg@5"), 10, 10, 10),
        (("mrr", "map@all"), 10, None, 10),
        (("mrr",), None, None, None),
        (("r_precision", "latency_p95_ms"), 10, None, None),
        (("r_precision", "mrr@3"), 10, 3, 3),
    ],
)
def test_the_depth_is_the_largest_cutoff(
    names: tuple[str, ...], k: int | None, depth: int | None, cutoff: int | None
) -> None:
    assert requested_depth(specs(*names, k=k)) == depth
    assert largest_cutoff(specs(*names, k=k)) == cutoff


def test_a_callable_with_k_is_asked_for_the_largest_cutoff() -> None:
    seen: list[int] = []

    def retriever(query: str, k: int = 3) -> list[str]:
        seen.append(k)
        return [f"d{i}" for i in range(1, k + 1)]

    result = evaluate(retriever, CASES, k=5, metrics=["mrr", "recall@20"])
    assert set(seen) == {20}
    assert result.info["retrieval"]["depth"] == 20
    assert result.info["retrieval"]["shortfall"] is None


# ----------------------------------------------------------------- fewer hits than a cutoff


def three_hits(query: str) -> list[str]:
    return ["d1", "d3", "d4"]


def test_fewer_hits_than_the_cutoff_is_said_with_what_to_change() -> None:
    result = evaluate(three_hits, CASES, k=10, metrics=["mrr@2", "mrr", "recall@20"])
    shortfall = (
        "retriever returned at most 3 hits; metrics @10, @20 are computed on 3; callable "
        "three_hits takes no k or top_k parameter: add one, or make it return at least 20 hits"
    )
    assert result.info["retrieval"]["shortfall"] == shortfall
    settings = build_settings({"k": 10, "metrics": ["mrr"], "min_mrr": 0.99})
    verdict = check_floors(result, settings)
    assert shortfall in verdict.notes
    message = failure_message(verdict, result)
    assert message.endswith(f"\n\nNote: {shortfall}.")
    assert "mrr@10: 0.458 < 0.990 (floor)" in message


def test_a_retriever_that_took_the_depth_says_it_was_asked() -> None:
    def few(query: str, top_k: int) -> list[str]:
        return ["d1"]

    result = evaluate(few, CASES, k=4)
    assert result.info["retrieval"]["shortfall"] == (
        "retriever returned at most 1 hit; metrics @4 are computed on 1 (it was asked for 4)"
    )


def test_one_case_with_enough_hits_is_enough() -> None:
    def uneven(query: str) -> list[str]:
        return [f"d{i}" for i in range(10)] if query == "alpha" else ["d3"]

    assert evaluate(uneven, CASES, k=10).info["retrieval"]["shortfall"] is None


def test_no_depth_is_asked_when_a_metric_is_at_all() -> None:
    seen: list[int] = []

    def retriever(query: str, k: int = 7) -> list[str]:
        seen.append(k)
        return ["d1"]

    result = evaluate(retriever, CASES, k=10, metrics=["mrr", "map@all"])
    assert set(seen) == {7}
    assert result.info["retrieval"]["shortfall"] == (
        "retriever returned at most 1 hit; metrics @10 are computed on 1 (no depth was asked "
        "for: a metric @all takes the retriever's own depth)"
    )


# ----------------------------------------------------------------- ids that match nothing


@dataclass
class Doc:
    """A LangChain-style document whose id the store generated."""

    id: str
    page_content: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


UUIDS = {
    "alpha": ["0b9e2e7a-6f1c-4b55-9a53-3f7c6a0d9f01", "1c2e4f6a-8b0d-4e2f-8a4c-6e8f0a2c4e61"],
    "beta": ["2d3f5a7c-9e1b-4d3f-9b5d-7f9a1b3d5f72"],
    "gamma": ["3e4a6c8e-0a2c-4e6a-8c0e-2a4c6e8a0c83"],
    "delta": ["4f5b7d9f-1b3d-4f7b-9d1f-3b5d7f9b1d94"],
}
META = {"alpha": ["d1", "d7"], "beta": ["d3"], "gamma": ["d8"], "delta": ["d6"]}


def generated_ids(query: str) -> list[Doc]:
    return [
        Doc(uid, metadata={"doc_id": doc, "page": 1})
        for uid, doc in zip(UUIDS[query], META[query], strict=True)
    ]


def test_ids_that_match_nothing_fail_with_the_id_key_that_would() -> None:
    result = evaluate(generated_ids, CASES, k=10)
    verdict = check_floors(result, build_settings({"k": 10}))
    assert verdict.failed
    assert verdict.problems == [
        "No retrieved id matches an id of the golden set (4 cases with hits), so every metric "
        "is 0. Retrieved: '0b9e2e7a-6f1c-4b55-9a53-3f7c6a0d9f01', "
        "'1c2e4f6a-8b0d-4e2f-8a4c-6e8f0a2c4e61', '2d3f5a7c-9e1b-4d3f-9b5d-7f9a1b3d5f72'; "
        "golden set: 'd1', 'd2', 'd9'. Likely cause: they look like UUIDs a framework "
        "generated (LangChain's InMemoryVectorStore and LlamaIndex nodes do), while your "
        "document ids are in metadata. Fix: pass id_key='doc_id' (metadata['doc_id'] holds ids "
        "of the golden set in 3 hits), or set each document's id when indexing it."
    ]
    fixed = evaluate(generated_ids, CASES, k=10, id_key="doc_id")
    assert fixed.info["retrieval"]["problems"] == []
    assert fixed["hit_rate@10"] == 0.75


def test_ids_that_are_neither_uuids_nor_hashes_name_no_framework() -> None:
    result = evaluate(lambda q: ["x1", "x2"], CASES, k=10)
    (problem,) = result.info["retrieval"]["problems"]
    assert "Likely cause: the retriever and the golden set use different ids" in problem
    assert "pass id_key='<metadata key of your ids>'" in problem


def test_most_cases_matching_nothing_is_a_note() -> None:
    def mostly_unknown(query: str) -> list[str]:
        return ["d1"] if query == "alpha" else ["zz"]

    result = evaluate(mostly_unknown, CASES, k=10)
    info = result.info["retrieval"]
    assert info["problems"] == []
    # One hit of four is an id of the golden set: the ids match, the other cases missed.
    assert info["notes"][-1] == (
        "3 of 4 cases have no relevant document in the top 10 (first: b, c, d); other cases' "
        "hits are ids of the golden set, so these are misses, not an id mismatch"
    )
    # Almost no hit of the run a known id: then the ids may well not match.
    many = evaluate(lambda q: ["d1"] if q == "alpha" else [f"z{i}" for i in range(20)], CASES)
    assert many.info["retrieval"]["notes"][-1].startswith(
        "3 of 4 cases returned no id the golden set knows (first: b, c, d); if your ids are in "
        "metadata, pass id_key="
    )
    half = evaluate(lambda q: ["d1"] if q in ("alpha", "beta") else ["zz"], CASES, k=10)
    assert not any("golden set knows" in n for n in half.info["retrieval"]["notes"])


def test_cases_without_hits_or_matched_by_text_are_not_counted() -> None:
    cases = [*CASES[:1], {"id": "t", "query": "text", "expected_texts": ["needle"]}]

    def retriever(query: str) -> list[Any]:
        return [{"id": "zz", "text": "a needle"}] if query == "text" else []

    assert evaluate(retriever, cases, k=10).info["retrieval"]["ids"] is None


# ----------------------------------------------------------------- concurrency


def test_choose_serial_for_cpu_bound_and_parallel_for_waiting() -> None:
    assert choose([(30.0, 29.0), (10.0, 9.8), (10.0, 9.9)]) == ConcurrencyChoice(
        1, True, "CPU-bound: 10.0 ms per call, 99% of it on the CPU"
    )
    assert choose([(20.0, 0.1), (20.0, 0.2)]) == ConcurrencyChoice(
        AUTO_WORKERS, True, "I/O-bound: 20.0 ms per call, 1% of it on the CPU"
    )
    # A call under a millisecond runs serially whatever its CPU share (noise at that scale).
    assert choose([(0.4, 0.0), (0.3, 0.01), (0.5, 0.0)]) == ConcurrencyChoice(
        1, True, "fast: 0.40 ms per call"
    )
    assert choose([(1.0, 0.0), (1.0, 0.0)]).workers == AUTO_WORKERS
    # On a loaded machine a CPU-bound call gets a fifth of a core: still CPU-bound.
    assert choose([(50.0, 10.0), (50.0, 10.0)], available=0.2).workers == 1
    assert choose([(50.0, 1.0), (50.0, 1.0)], available=0.2).workers == AUTO_WORKERS
    assert choose([]).reason == "no successful call to measure"


def test_auto_runs_a_busy_retriever_serially_and_a_sleeping_one_concurrently() -> None:
    cases = [{"id": str(i), "query": f"q{i}", "expected_ids": ["d1"]} for i in range(12)]

    def busy(query: str) -> list[str]:
        end = time.thread_time() + 0.004
        while time.thread_time() < end:
            pass
        return ["d1"]

    def sleepy(query: str) -> list[str]:
        time.sleep(0.02)
        return ["d1"]

    async def async_sleepy(query: str) -> list[str]:
        import asyncio

        await asyncio.sleep(0.02)
        return ["d1"]

    for retriever, workers in ((busy, 1), (sleepy, AUTO_WORKERS), (async_sleepy, AUTO_WORKERS)):
        info = evaluate(retriever, cases, k=1).info["retrieval"]
        assert (info["concurrency"], info["concurrency_auto"]) == (workers, True), info
        assert info["notes"][0].startswith(f"concurrency auto → {workers} (")
    explicit = evaluate(busy, cases, k=1, concurrency=3).info["retrieval"]
    assert (explicit["concurrency"], explicit["concurrency_auto"], explicit["notes"]) == (
        3,
        False,
        [],
    )


# ----------------------------------------------------------------- numbers the metrics cannot hold


def test_grades_the_metrics_cannot_hold_are_golden_set_errors() -> None:
    huge = [{"id": "a", "query": "alpha", "relevance": {"d1": 2**70}}]
    with pytest.raises(GoldenSetError, match=r"<cases>: case 'a': the grade of 'd1' is too large"):
        evaluate(three_hits, huge, k=3, metrics=["mrr"])
    steep = [{"id": "a", "query": "alpha", "relevance": {"d1": 1024}}]
    with pytest.raises(GoldenSetError, match=r"grade 1024 of 'd1' is too large for ndcg_exp"):
        evaluate(three_hits, steep, k=3, metrics=["ndcg_exp"])
    assert evaluate(three_hits, steep, k=3, metrics=["ndcg"])["ndcg@3"] == 1.0


# ----------------------------------------------------------------- retriever errors, grouped


def test_repeated_errors_are_listed_once_with_their_count_and_first_cases() -> None:
    cases = [{"id": f"c{i}", "query": f"q{i}", "expected_ids": ["d1"]} for i in range(11)]

    def flaky(query: str) -> list[str]:
        if query == "q10":
            return ["d1"]
        if query == "q9":
            raise ValueError("bad query " + "x" * 40)
        raise RuntimeError("backend down")

    result = evaluate(flaky, cases, k=1, concurrency=1)
    (problem,) = check_floors(result, build_settings({"k": 1})).problems
    assert problem.splitlines() == [
        "The retriever failed on 10 of 11 case(s) (the other cases were evaluated; "
        "on_error='zero' scores failed cases 0 instead):",
        "  9 cases: RuntimeError: backend down",
        "    c0, c1, c2, c3, c4 and 4 more",
        f"  c9  'q9': ValueError: bad query {'x' * 40}",
    ]


def test_when_every_case_failed_none_is_said_to_be_evaluated() -> None:
    def down(query: str) -> list[str]:
        raise RuntimeError("backend down")

    result = evaluate(down, CASES, k=1)
    (problem,) = check_floors(result, build_settings({"k": 1})).problems
    assert problem.splitlines() == [
        "The retriever failed on all 4 cases; no case could be evaluated:",
        "  4 cases: RuntimeError: backend down",
        "    a, b, c, d",
    ]
    one = evaluate(down, CASES[:1], k=1)
    assert (
        check_floors(one, build_settings({"k": 1}))
        .problems[0]
        .startswith(
            "The retriever failed on the only case; nothing could be evaluated:\n  a  'alpha': "
        )
    )


# ----------------------------------------------------------------- repeated ids, judged texts


def _chunks(query: str) -> dict[str, Any]:
    return {
        "answer": "Paris. It lies on the Seine.",
        "contexts": [
            {"id": "d1", "text": "Paris is the capital of France."},
            {"id": "d1", "text": "It lies on the Seine."},  # a second chunk of one document
        ],
    }


@pytest.mark.parametrize(
    ("metrics", "noted"), [(["faithfulness"], True), (["llm_relevancy"], True), (["mrr"], False)]
)
def test_chunks_that_repeat_an_id_are_named_when_a_judge_reads_texts(
    metrics: list[str], noted: bool
) -> None:
    """Each id counts once with its first text: a judge of texts never sees the other chunks."""
    cases = [{"id": "a", "query": "where", "expected_ids": ["d1"]}]
    judge = {"model": "openai/x", "offline": True}
    result = evaluate(_chunks, cases, k=3, metrics=metrics, judge=judge)
    notes = [n for n in result.info["retrieval"]["notes"] if "repeat an id" in n]
    assert notes == (
        [
            "1 case(s) returned hits that repeat an id: each id counts once, with the text of its "
            "first hit, so the judge does not see the repeated chunks; give each chunk an id of "
            "its own (e.g. 'doc-1#3') to have every chunk judged"
        ]
        if noted
        else []
    )
    assert [h.text for h in result.cases[0].hits] == ["Paris is the capital of France."]
