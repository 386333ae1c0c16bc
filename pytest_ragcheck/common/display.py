"""How numbers and texts are written for people: one place, so every output agrees.

Pure and dependency-free: the failure message, the terminal summary and the Markdown, HTML and
JSON reports all format values through these helpers, so ``0.3685`` never reads ``0.368`` in
one place and ``0.369`` in another.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

__all__ = [
    "MINUS",
    "TEXT_LIMIT",
    "clip",
    "counted",
    "format_value",
    "printable",
    "shorten",
    "shown_id",
    "signed",
]

#: The real minus sign (U+2212): a delta reads ``−0.034``, not ``-0.034``.
MINUS = "−"
#: Characters kept of a retrieved chunk, a judge reason or a claim in the reports, and of a
#: judge reason anywhere (the verdict cache stores no more).
TEXT_LIMIT = 240


def format_value(value: float | None, *, decimals: int = 3) -> str:
    """Three decimals, rounded half-up from the value at baseline precision (4 decimals).

    A baseline stores 0.3685 for a current 0.36852; plain ``f"{x:.3f}"`` prints those as
    0.368 and 0.369 (binary rounding), which reads as a change that is not there.
    """
    if value is None:
        return "-"
    if not math.isfinite(value):
        return str(value)
    if abs(value) >= 100:
        decimals = 1
    quantum = Decimal(1).scaleb(-decimals)
    return str(Decimal(repr(round(value, 4))).quantize(quantum, rounding=ROUND_HALF_UP))


def signed(value: float | None, *, decimals: int = 3) -> str:
    """A signed difference with a real minus sign: ``+0.012``, ``−0.034`` (``-`` for none)."""
    if value is None:
        return "-"
    return f"{value:+.{decimals}f}".replace("-", MINUS)


def shorten(text: object, width: int = 60) -> str:
    """``text`` on one line (white space collapsed), cut to ``width`` characters with ``…``."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def clip(text: str | None, limit: int = TEXT_LIMIT) -> str | None:
    """``text`` cut to ``limit`` characters, with an ellipsis when something was dropped."""
    if text is None:
        return None
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shown_id(text: str, width: int = 60) -> str:
    """An id (a case's, a document's) as a message line shows it: as written when printable,
    else escaped as in its ``repr`` (a newline, a NUL or a terminal escape sequence in a golden
    file or a retriever's id must not break or recolour the terminal); cut to ``width``."""
    shown = text if text.isprintable() else repr(text)[1:-1]
    return shown if len(shown) <= width else shown[: width - 1] + "…"


#: C0 controls but newline and tab, DEL and the C1 controls -> their ``\xNN`` escapes.
_CONTROLS = {
    code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7F, 0xA0)) if chr(code) not in "\n\t"
}


def printable(text: str) -> str:
    """``text`` safe for a terminal: control characters (an escape sequence in a retriever's
    error message, a case id or a query) written as ``\x1b``, so that no text we print
    recolours, rewrites or beeps the terminal; newlines and tabs stay as they are."""
    return text.translate(_CONTROLS)


def counted(n: int, noun: str) -> str:
    """``1 case``, ``2 cases``: a count with its noun (regular plurals only)."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
