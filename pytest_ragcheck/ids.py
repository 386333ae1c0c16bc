"""What counts as a document or case id, and how a non-string id becomes its string.

One rule for both sides of a comparison: the ids a retriever returns (``hits``) and the ids a
golden set expects (``golden``). Real BEIR/TREC files and vector stores use numeric ids, so an
integer id is read as its decimal string; were the two sides to disagree, ``12`` would never
match ``"12"`` and every metric would quietly be 0.
"""

from __future__ import annotations

import numbers
import uuid

__all__ = ["as_id"]


def as_id(value: object) -> str | None:
    """``value`` as an id string, or ``None`` when it cannot be one.

    A non-empty ``str`` is kept as is; an integer (Python, JSON or numpy, never a ``bool``)
    becomes its decimal string and a ``UUID`` its canonical form. Anything else, the empty
    string included, is ``None``.
    """
    if isinstance(value, str):
        return value if value else None
    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, uuid.UUID):
        return str(value)
    return None
