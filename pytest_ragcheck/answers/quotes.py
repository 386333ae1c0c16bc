"""Checking the judge's evidence: a quote counts only when it is really in the contexts.

A judge may mark a claim supported and invent the passage that supports it. Each quote is
looked up in the top-k contexts after the same normalisation as text spans (Unicode NFKC,
case folding, whitespace collapsed), one context at a time: a quote stitched together from two
passages is not found.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_ragcheck.golden.spans import normalize_text

__all__ = ["QuoteChecker"]


class QuoteChecker:
    """Looks quotes up in one case's contexts (normalised once)."""

    def __init__(self, contexts: Sequence[str]) -> None:
        self._contexts = [normalize_text(text) for text in contexts]

    def found(self, quote: str) -> bool:
        """True when the normalised, non-empty ``quote`` is inside one of the contexts."""
        wanted = normalize_text(quote)
        return bool(wanted) and any(wanted in context for context in self._contexts)
