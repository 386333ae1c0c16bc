"""Compare the example retrievers from a plain script: no pytest, just numbers.

    python example_suite/evaluate.py

The same engine as the tests (``pytest_ragcheck.compare``), handy in a notebook when you
tune a retriever: it scores every variant of ``retriever.VARIANTS`` on the 225 Cranfield
queries and prints them side by side, each tested case by case against the first (``default``)
with a paired test, with the per-case wins, ties and losses.
"""

from __future__ import annotations

from pathlib import Path

from retriever import VARIANTS, BM25Retriever, load_corpus

from pytest_ragcheck import compare

GOLDEN = Path(__file__).resolve().parent / "golden" / "cranfield.jsonl"
METRICS = ["hit_rate@10", "mrr@10", "precision@10", "recall@5", "recall@10", "map@10", "ndcg@10"]


def main() -> None:
    documents = load_corpus()
    retrievers = {name: BM25Retriever(documents, config) for name, config in VARIANTS.items()}
    comparison = compare(retrievers, GOLDEN, k=10, metrics=METRICS)
    for name, config in VARIANTS.items():
        print(f"{name}: {config}")
    print()
    print(comparison)


if __name__ == "__main__":
    main()
