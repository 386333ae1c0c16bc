"""Text-span matching: hand-written questions whose answers are quoted, not given by id.

golden/handwritten.jsonl has no document ids, only `expected_texts`: passages copied verbatim
from the abstracts. A retrieved chunk is relevant when its text contains a span (after Unicode
NFKC, case folding and whitespace collapsing), so the golden set survives re-chunking and
re-indexing that changes ids. The hits must carry text: a dict with "text" (or "content" /
"page_content"), a LangChain or LlamaIndex document...
"""

from __future__ import annotations

from pytest_ragcheck import ragcheck


@ragcheck(
    cases="golden/handwritten.jsonl",
    k=10,
    metrics=["hit_rate@5", "mrr@10", "recall@5"],
    min_hit_rate_at_5=0.8,
)
def test_handwritten_questions(ragcheck, retriever):
    result = ragcheck(retriever)
    # This question is answered by two abstracts; each span is one relevant item.
    assert result.per_case("recall@5")["hw-shear-flow-plate"] == 1.0
