"""Whether a text has a character a JSON string escapes (the quick paths' one check), whether
JSON data can be written as UTF-8 at all, and any value made plain JSON data.

The bulk writers (the stored baseline's cases block, the report entries) put strings into JSON
text as they are when nothing in them needs escaping; this tells, for many strings joined.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["escapes", "json_safe", "utf8_writable"]

#: Characters a JSON string escapes (``json.dumps`` with ``ensure_ascii=False``).
_ESCAPED = re.compile(r'[\x00-\x1f"\\]')


def escapes(text: str) -> bool:
    """Whether ``json.dumps(text, ensure_ascii=False)`` escapes a character of ``text``.

    A printable text has no control character, so only a quote or a backslash is left to look
    for (twice as quick as the pattern over a long text); any other text is searched.
    """
    if text.isprintable():
        return '"' in text or "\\" in text
    return _ESCAPED.search(text) is not None


def utf8_writable(value: Any) -> bool:
    """Whether every string in JSON-like ``value`` can be written as UTF-8: half a surrogate
    pair (JSON can spell ``\\udc00`` alone; ``surrogateescape`` makes one) cannot. Bytes
    inside ``value`` are not read."""
    try:
        json.dumps(value, ensure_ascii=False, default=_not_read).encode()
    except UnicodeEncodeError:
        return False
    return True


def _not_read(value: object) -> str:
    return ""


def json_safe(value: Any) -> Any:
    """``value`` as plain JSON data: non-finite floats become ``None``, unknown objects ``str``."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_safe(v) for v in value]
    try:  # numpy scalars and friends
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return number if math.isfinite(number) else None
