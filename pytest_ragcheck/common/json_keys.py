"""JSON objects that name a key twice.

``json`` keeps the last of two equal keys without a word: a golden case's field or a
baseline's case id given twice (a merge that kept both sides) would lose one silently. Golden
files and baselines are read with :func:`unique_keys` as the ``object_pairs_hook``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DuplicateKeyError", "unique_keys"]


class DuplicateKeyError(ValueError):
    """A key given twice in one JSON object."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The object's dict; :class:`DuplicateKeyError` naming the first key given twice."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return found
