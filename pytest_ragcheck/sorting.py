"""Natural order for case ids and tags: ``q2`` before ``q10``, as people number things."""

from __future__ import annotations

import re

__all__ = ["natural_key", "natural_sorted"]

_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key: runs of digits compare as numbers, the rest as text (ties by the raw text)."""
    parts = _DIGITS.split(text)
    key: list[tuple[int, int | str]] = [
        (0, int(part)) if i % 2 else (1, part) for i, part in enumerate(parts) if part
    ]
    key.append((2, text))  # "q01" and "q1" stay distinct and ordered
    return tuple(key)


def natural_sorted(items: list[str] | tuple[str, ...] | set[str] | frozenset[str]) -> list[str]:
    return sorted(items, key=natural_key)
