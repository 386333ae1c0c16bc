"""Every report entry of a large run as compressed JSON text, and that text back in pieces.

:func:`pack` keeps the entries of every case (:func:`pytest_ragcheck.report.cases.cases_json`)
as one compressed JSON array: what pytest-xdist carries to the controller and what the JSON
report writes out as it is (:func:`unpacked_text`), never holding the whole text at once.
"""

from __future__ import annotations

import codecs
import zlib
from collections.abc import Callable, Iterable, Iterator

__all__ = ["ESCAPE", "pack", "unpacked_text"]

#: The encoding error handler of report text: half a surrogate pair (an id or a chunk read
#: with ``surrogateescape``) cannot be UTF-8, so it is written as the text ``\\udcff`` (a
#: JSON string's escaped backslash; JSON readers refuse a lone ``\udcff`` escape).
ESCAPE = "ragcheck.surrogates"


def _escape_surrogates(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    bad = exc.object[exc.start : exc.end]
    return "".join(f"\\\\u{ord(char):04x}" for char in bad), exc.end


codecs.register_error(ESCAPE, _escape_surrogates)

#: Characters of entries compressed at a time (bounds the text held at once while packing).
_PIECE = 1 << 22


def pack(entries: Iterable[str], redact: Callable[[str], str]) -> bytes:
    """Entries (JSON texts of one or more entries, :func:`cases_json`) as one compressed JSON
    array text, masked by ``redact`` before compressing.

    Compressed a piece at a time, so the uncompressed text of a 200,000-case run is never
    held whole; JSON text needs no escaping of the mask, so masking the text equals masking
    the values. zlib lets go of the interpreter while it compresses, so a thread compresses
    each piece while the next one is written (in order: one piece at a time).
    """
    from concurrent.futures import Future, ThreadPoolExecutor

    packer = zlib.compressobj(1)
    out = [packer.compress(b"[")]
    with ThreadPoolExecutor(1, thread_name_prefix="ragcheck-pack") as pool:
        pending: Future[bytes] | None = None
        for data in _pieces(entries, redact):
            if pending is not None:
                out.append(pending.result())
            pending = pool.submit(packer.compress, data)
        if pending is not None:
            out.append(pending.result())
    out.append(packer.compress(b"]"))
    out.append(packer.flush())
    return b"".join(out)


def _pieces(entries: Iterable[str], redact: Callable[[str], str]) -> Iterator[bytes]:
    """The entries comma-joined and masked, in pieces of about :data:`_PIECE` characters."""
    pieces: list[str] = []
    size = 0
    lead = ""
    for entry in entries:
        pieces.append(entry)
        size += len(entry)
        if size >= _PIECE:
            yield redact(lead + ",".join(pieces)).encode("utf-8", ESCAPE)
            pieces.clear()
            size = 0
            lead = ","
    if pieces:
        yield redact(lead + ",".join(pieces)).encode("utf-8", ESCAPE)


def unpacked_text(blob: bytes, *, size: int = 1 << 20) -> Iterator[str]:
    """The JSON array text :func:`pack` compressed, in pieces of about ``size`` bytes."""
    unpacker = zlib.decompressobj()
    decoder = _Utf8Pieces()
    for start in range(0, len(blob), size // 8):
        yield decoder.feed(unpacker.decompress(blob[start : start + size // 8]))
    yield decoder.feed(unpacker.flush(), final=True)


class _Utf8Pieces:
    """Bytes to text across piece boundaries (a character may straddle two pieces)."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")()

    def feed(self, data: bytes, *, final: bool = False) -> str:
        return self._decoder.decode(data, final)
