"""An async retriever: ragcheck awaits it, many queries at a time, in its own event loop.

Use this shape for retrievers that call a vector database or an embedding API over HTTP. No
pytest-asyncio needed: the test itself stays a plain function.
"""

from __future__ import annotations

from pytest_ragcheck import ragcheck


@ragcheck(
    cases="golden/cranfield.jsonl",
    k=10,
    metrics=["mrr@10", "ndcg@10"],
    concurrency=8,  # at most 8 queries in flight (be kind to your API's rate limit)
    max_latency_p95_ms=1000,  # a latency budget; latency is reported but never snapshotted
)
def test_async_retriever(ragcheck, retriever):
    async def search(query: str, k: int = 10) -> list[dict]:
        return await retriever.asearch(query, k=k)

    result = ragcheck(search)
    assert result.metrics["latency_p50_ms"] <= result.metrics["latency_p95_ms"]
