"""Text spans: matching a case's ``expected_texts`` against the hits' texts, in rank order.

Texts compare after Unicode NFKC, case folding and collapsing white space, so ``ﬁnal  Answer``
matches ``final answer``; golden validation and the judge's quote checks use the same
:func:`normalize_text`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_ragcheck.run.hits import Hit

__all__ = ["SpanMatch", "match_spans", "normalize_text"]


def normalize_text(text: str) -> str:
    """Unicode NFKC, case-folded, whitespace collapsed to single spaces and trimmed."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return " ".join(folded.split())


@dataclass(frozen=True, slots=True)
class SpanMatch:
    """Where a case's ``expected_texts`` spans were found among the hits.

    Each span is one relevant item (R = ``len(span_rank)``) found at the first hit containing
    it; a hit is relevant only when it finds a span no earlier hit found, so a hit that merely
    repeats found spans counts like a duplicate.
    """

    relevant: list[bool]
    new_spans_per_hit: list[int]
    span_rank: list[int | None]
    hits_without_text: int

    def spans_found(self, k: int | None = None) -> int:
        """Spans first found at rank <= ``k`` (all ranks for ``None``): recall's numerator."""
        return sum(1 for rank in self.span_rank if rank is not None and (k is None or rank <= k))

    def relevant_hits(self, k: int | None = None) -> int:
        """Relevant hits in the top ``k``: precision's numerator."""
        return sum(self.relevant if k is None else self.relevant[:k])


def match_spans(hits: Sequence[Hit], spans: Sequence[str]) -> SpanMatch:
    """Match text spans against hits in rank order (see :class:`SpanMatch`)."""
    wanted = [normalize_text(span) for span in spans]
    span_rank: list[int | None] = [None] * len(wanted)
    relevant: list[bool] = []
    new_counts: list[int] = []
    without_text = 0
    for rank, hit in enumerate(hits, 1):
        if hit.text is None:
            without_text += 1
            relevant.append(False)
            new_counts.append(0)
            continue
        text = normalize_text(hit.text)
        new = 0
        for index, span in enumerate(wanted):
            if span_rank[index] is None and span in text:
                span_rank[index] = rank
                new += 1
        relevant.append(new > 0)
        new_counts.append(new)
    return SpanMatch(relevant, new_counts, span_rank, without_text)
