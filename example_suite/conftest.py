"""Fixtures of the example suite: the retriever under test, indexed once per session.

In your own project this is where you build (or connect to) your retriever. ragcheck only needs
something it can call with a query string.
"""

from __future__ import annotations

import pytest
from retriever import VARIANT_ENV, BM25Retriever, config_from_env, load_corpus


def pytest_report_header(config: pytest.Config) -> str:
    return f"ragcheck example: BM25 {config_from_env()} (set {VARIANT_ENV}=weak to degrade it)"


@pytest.fixture(scope="session")
def retriever() -> BM25Retriever:
    """BM25 over the 1,400 Cranfield abstracts; the variant comes from RAGCHECK_EXAMPLE_VARIANT."""
    return BM25Retriever(load_corpus(), config_from_env())
