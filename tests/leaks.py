"""Is a key readable in a text, in any spelling? A reference reader for the redaction tests.

It knows nothing of how :mod:`pytest_ragcheck.common.masking` finds spellings: it decodes every run
of base64 characters (either alphabet) from each of its four starting characters and every
run of hex digits from both, and looks for the key, or any 8 of its characters in a row, in
the text and in everything decoded.
"""

from __future__ import annotations

import base64
import binascii
import re

__all__ = ["decoded_pieces", "leaks"]

_B64_RUN = re.compile(r"[A-Za-z0-9+/_-]{4,}")
_HEX_RUN = re.compile(r"[0-9A-Fa-f]{12,}")


def decoded_pieces(text: str) -> list[bytes]:
    """Everything any base64 (either alphabet) or hex run of ``text`` decodes to, from every
    start (a reference decoder: it knows nothing of alignments or cores)."""
    pieces = []
    for run in _B64_RUN.findall(text):
        run = run.replace("-", "+").replace("_", "/")
        for start in range(4):
            body = run[start:]
            body = body[: len(body) // 4 * 4]
            if body:
                pieces.append(base64.b64decode(body))
    for run in _HEX_RUN.findall(text):
        for start in range(2):
            body = run[start:]
            pieces.append(binascii.unhexlify(body[: len(body) // 2 * 2]))
    return pieces


def leaks(text: str, key: str) -> bool:
    """The key, or 8 of its characters in a row, readable in ``text`` or in a decoding of it."""
    raw = key.encode()
    windows = {raw[i : i + 8] for i in range(len(raw) - 7)}
    return any(
        any(w in piece for w in windows)
        for piece in [text.encode("utf-8", "surrogatepass"), *decoded_pieces(text)]
    )
