"""Where a fixed set of secrets shows in a text, in any spelling, found fast.

:mod:`pytest_ragcheck.common.redact` decides which values are secrets; this module finds them. A
secret is looked for as written, URL-quoted, JSON-escaped, base64 / base64url encoded (in each
of the three alignments a value can have inside a longer encoded text, padded or not) and
hex encoded (lower or upper case), and so is the ``Authorization`` header value that carries
it (``Bearer <secret>``). A secret that looks like a key (see :func:`fragment_source`) is also
found by any run of :data:`MIN_FRAGMENT` or more of its characters that reads like key
material (a digit in it, or upper- and lower-case letters: ``sk-proj-`` or ``insecure`` of
``django-insecure-…`` are words, not secrets), and any secret by a start of
:data:`MIN_PREFIX` or more characters cut off by an ellipsis (what shortening a message
leaves).

Every one of those spellings starts with one of a fixed set of :data:`WINDOW`-byte strings
(the start of a spelling, or any window of a fragment source), so a text is searched once for
those windows, whatever the number of secrets and spellings: in plain Python for a short
text, and with numpy (8 bytes read as one integer at every offset, looked up in a hashed
table) for a long one, a few milliseconds per megabyte. Only where a window is found are
the spellings compared. Texts are compared as UTF-8 bytes.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "MIN_FRAGMENT",
    "MIN_FRAGMENT_SECRET",
    "MIN_PREFIX",
    "WINDOW",
    "Finder",
    "base64_cores",
    "fragment_source",
    "spellings",
]

#: Bytes every spelling starts with that the first search looks for (no secret is shorter).
WINDOW = 6
#: A run of this many characters of a key is masked wherever it shows.
MIN_FRAGMENT = 8
#: Only secrets at least this long have their fragments masked (see :func:`fragment_source`).
MIN_FRAGMENT_SECRET = 16
#: A start this long of a secret, followed by an ellipsis, is masked too.
MIN_PREFIX = 6
#: A key as issued: letters, digits and ``-_.~+/=:``, not a path or a URL.
_KEY_LIKE = re.compile(r"(?![/~.])[A-Za-z0-9._~+/=:-]+")
_ELLIPSES = ("…".encode(), b"...")  # what shortening a text appends (display.shorten, clip)
_URLSAFE = str.maketrans("+/", "-_")
_DIGIT, _UPPER, _LOWER = re.compile(rb"[0-9]"), re.compile(rb"[A-Z]"), re.compile(rb"[a-z]")
#: Texts at least this long (in bytes) are searched with numpy.
_NUMPY_FROM = 512
#: Windows looked up at a time with numpy (bounds the temporary arrays to a few MB each).
_BLOCK = 1 << 20
_TABLE_BITS = 20
_MULTIPLIER = 0x9E3779B97F4A7C15  # Fibonacci hashing of the window integers


def fragment_source(secret: str) -> bool:
    """Whether runs of ``secret``'s characters are masked: a key-like value of at least
    :data:`MIN_FRAGMENT_SECRET` characters. A shorter value (a password, a test value) or one
    that is a path, a URL or prose (a ``*_CREDENTIALS`` variable naming a file) would mask
    ordinary words and paths in every report."""
    return (
        len(secret) >= MIN_FRAGMENT_SECRET
        and _KEY_LIKE.fullmatch(secret) is not None
        and "://" not in secret
    )


def base64_cores(data: bytes) -> Iterator[str]:
    """The base64 characters that encode only ``data``, at each of its three alignments.

    Inside a longer encoded text, ``data`` starts at a byte offset of 0, 1 or 2 modulo 3; the
    characters whose 6 bits all come from ``data`` are the same whatever surrounds it (the
    first and last characters mix in bits of the neighbours and are left out).
    """
    for shift in range(3):
        text = base64.b64encode(bytes(shift) + data).decode("ascii")
        first = -(-8 * shift // 6)  # the first character with no bit of the shift bytes
        yield text[first : 8 * (shift + len(data)) // 6]


def spellings(secret: str) -> set[str]:
    """Every whole spelling of ``secret`` that is masked (see the module docstring)."""
    found = {secret, quote(secret, safe=""), json.dumps(secret, ensure_ascii=False)[1:-1]}
    for value in (secret, f"Bearer {secret}"):
        raw = value.encode("utf-8", "surrogatepass")
        for core in base64_cores(raw):
            found.update((core, core.translate(_URLSAFE)))
        found.update((raw.hex(), raw.hex().upper()))
    return {s for s in found if len(s.encode("utf-8", "surrogatepass")) >= WINDOW}


class Finder:
    """The spans of a text to mask for one set of secrets (built once per set)."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = tuple(sorted(set(secrets), key=len))
        patterns: dict[bytes, set[bytes]] = {}
        for secret in self.secrets:
            for spelling in spellings(secret):
                raw = _utf8(spelling)
                patterns.setdefault(raw[:WINDOW], set()).add(raw)
        #: window -> whole spellings that start with it, longest first
        self.patterns = {w: sorted(p, key=len, reverse=True) for w, p in patterns.items()}
        #: window -> secrets that start with it (their cut-off starts, see MIN_PREFIX)
        self.prefixes: dict[bytes, list[bytes]] = {}
        #: window -> (key, offset) of each place the window shows in a fragment source
        self.fragments: dict[bytes, list[tuple[bytes, int]]] = {}
        for secret in self.secrets:
            raw = _utf8(secret)
            self.prefixes.setdefault(raw[:WINDOW], []).append(raw)
            if fragment_source(secret):
                for at in range(len(raw) - WINDOW + 1):
                    self.fragments.setdefault(raw[at : at + WINDOW], []).append((raw, at))
        self.windows = frozenset(self.patterns) | frozenset(self.fragments)
        self._table: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None = None

    def mask(self, text: str, marker: str) -> str:
        """``text`` with every span found replaced by ``marker``."""
        raw, spans = self.spans(text)
        if not spans:
            return text
        out: list[bytes] = []
        last = 0
        mark = _utf8(marker)
        for start, end in spans:
            out += (raw[last:start], mark)
            last = end
        out.append(raw[last:])
        return b"".join(out).decode("utf-8", "surrogatepass")

    def spans(self, text: str) -> tuple[bytes, list[tuple[int, int]]]:
        """``text`` as UTF-8 and the (start, end) byte spans to mask in it, merged, in order."""
        if not self.windows or not text:
            return b"", []
        raw = _utf8(text)
        found = self._windows_numpy(raw) if len(raw) >= _NUMPY_FROM else self._windows_py(raw)
        return raw, _merged(self._spans(raw, found)) if found else []

    def _windows_py(self, raw: bytes) -> list[int]:
        windows = self.windows
        return [i for i in range(len(raw) - WINDOW + 1) if raw[i : i + WINDOW] in windows]

    def _windows_numpy(self, raw: bytes) -> list[int]:
        """Offsets of the windows in ``raw``: each offset's next 8 bytes read as one integer,
        cut to :data:`WINDOW` bytes, hashed into a table of the known windows, and the few
        table hits checked exactly."""
        import numpy as np

        table, known = self._numpy_table()
        count = len(raw) - WINDOW + 1
        if count <= 0:
            return []
        padded = raw + bytes(8 - WINDOW)  # the last window's integer reads past the end
        low = np.uint64((1 << (8 * WINDOW)) - 1)
        multiplier, shift = np.uint64(_MULTIPLIER), np.uint64(64 - _TABLE_BITS)
        found: list[int] = []
        for start in range(0, count, _BLOCK):
            size = min(_BLOCK, count - start)
            words = np.ndarray((size,), dtype="<u8", buffer=padded, offset=start, strides=(1,))
            words = words & low
            hits = np.flatnonzero(table[(words * multiplier) >> shift])
            if hits.size:
                values = words[hits]
                where = np.minimum(np.searchsorted(known, values), known.size - 1)
                found.extend((hits[known[where] == values] + start).tolist())
        return found

    def _numpy_table(self) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        if self._table is None:
            import numpy as np

            known = np.array(
                sorted({int.from_bytes(w, "little") for w in self.windows}), dtype=np.uint64
            )
            table = np.zeros(1 << _TABLE_BITS, dtype=bool)
            table[(known * np.uint64(_MULTIPLIER)) >> np.uint64(64 - _TABLE_BITS)] = True
            self._table = (table, known)
        return self._table

    def _spans(self, raw: bytes, offsets: list[int]) -> Iterator[tuple[int, int]]:
        """The spans to mask around the offsets where a window was found."""
        covered = -1  # the end of the last fragment found: the offsets inside it add nothing
        for at in offsets:
            window = raw[at : at + WINDOW]
            for spelling in self.patterns.get(window, ()):
                if raw.startswith(spelling, at):
                    yield at, at + len(spelling)
                    break
            for secret in self.prefixes.get(window, ()):
                cut = _cut_start(raw, at, secret)
                if cut:
                    yield at, at + cut
            if at < covered:
                continue
            for key, offset in self.fragments.get(window, ()):
                start, end = _fragment(raw, at, key, offset)
                if end - start >= MIN_FRAGMENT and _key_material(raw[start:end]):
                    covered = max(covered, end)
                    yield start, end


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _cut_start(raw: bytes, at: int, secret: bytes) -> int:
    """The length of a start of ``secret`` (at least MIN_PREFIX, not all of it) at ``at`` that
    an ellipsis follows, or 0."""
    length = 0
    limit = min(len(secret) - 1, len(raw) - at)
    while length < limit and raw[at + length] == secret[length]:
        length += 1
    while length and secret[length] & 0xC0 == 0x80:  # not inside a character
        length -= 1
    if length >= MIN_PREFIX and raw.startswith(_ELLIPSES, at + length):
        return length
    return 0


def _fragment(raw: bytes, at: int, key: bytes, offset: int) -> tuple[int, int]:
    """The span around ``raw[at:]`` that equals a piece of ``key`` (``key[offset:]`` starts
    at ``at``), grown as far as both agree."""
    left = 0
    while left < min(at, offset) and raw[at - left - 1] == key[offset - left - 1]:
        left += 1
    right = WINDOW
    while (
        at + right < len(raw)
        and offset + right < len(key)
        and (raw[at + right] == key[offset + right])
    ):
        right += 1
    return at - left, at + right


def _key_material(piece: bytes) -> bool:
    """A digit, or letters of both cases: not a word or a well-known prefix."""
    return bool(_DIGIT.search(piece) or (_UPPER.search(piece) and _LOWER.search(piece)))


def _merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged
