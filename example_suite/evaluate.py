"""Evaluate the example retrievers from a plain script: no pytest, just numbers.

    python example_suite/evaluate.py

The same engine as the tests (``pytest_ragcheck.evaluate``), handy in a notebook when you
tune a retriever: it scores every variant of ``retriever.VARIANTS`` on the 225 Cranfield
queries and prints one table per variant, then a side-by-side comparison.
"""

from __future__ import annotations

from pathlib import Path

from retriever import VARIANTS, BM25Retriever, load_corpus

from pytest_ragcheck import evaluate

GOLDEN = Path(__file__).resolve().parent / "golden" / "cranfield.jsonl"
METRICS = ["hit_rate@10", "mrr@10", "precision@10", "recall@5", "recall@10", "map@10", "ndcg@10"]


def main() -> None:
    documents = load_corpus()
    results = {}
    for name, config in VARIANTS.items():
        result = evaluate(BM25Retriever(documents, config), GOLDEN, k=10, metrics=METRICS)
        results[name] = result
        print(f"== {name}: {config}")
        print(result.table())
        print()

    names = list(results)
    print("metric".ljust(14) + "".join(n.rjust(10) for n in names) + "         Δ")
    first, last = results[names[0]], results[names[-1]]
    for metric in METRICS:
        row = "".join(f"{results[n][metric]:10.4f}" for n in names)
        print(f"{metric:<14}{row}{last[metric] - first[metric]:+10.4f}")


if __name__ == "__main__":
    main()
