"""What counts as a document or case id, and how a non-string id becomes its string.

One rule for both sides of a comparison: the ids a retriever returns (``hits``) and the ids a
golden set expects (``golden``). Real BEIR/TREC files and vector stores use numeric ids, so an
integer id is read as its decimal string; were the two sides to disagree, ``12`` would never
match ``"12"`` and every metric would quietly be 0.
"""

from __future__ import annotations

import math
import numbers
import sys
import uuid

__all__ = ["IdError", "as_id"]


class IdError(ValueError):
    """An integer too long to be written as a decimal id (Python refuses the conversion)."""


def as_id(value: object) -> str | None:
    """``value`` as an id string, or ``None`` when it cannot be one.

    A non-empty ``str`` is kept (a subclass, such as numpy's ``str_``, as a plain ``str``); an
    integer (Python, JSON or numpy, never a ``bool``) becomes its decimal string and a ``UUID``
    its canonical form. Anything else, the empty string included, is ``None``. An integer with
    more digits than Python converts to text raises :class:`IdError` (no message here may print
    the number itself: that fails too).
    """
    if type(value) is str:
        return value if value else None
    if isinstance(value, str):  # numpy's str_: its repr in messages, and a subclass's own
        return str.__str__(value) if value else None  # __eq__/__hash__ in matching, left out
    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Integral):
        number = int(value)
        try:
            return str(number)
        except ValueError:
            digits = int(abs(number).bit_length() * math.log10(2)) + 1
            raise IdError(
                f"an integer id of about {digits:,} digits is longer than Python converts to "
                f"text ({sys.get_int_max_str_digits():,} digits); write such ids as strings"
            ) from None
    if isinstance(value, uuid.UUID):
        return str(value)
    return None
