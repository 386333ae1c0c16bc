"""Packed entries: many pieces, each compressed on a thread while the next is written."""

from __future__ import annotations

import json

import pytest

from pytest_ragcheck.common.redact import MARKER, Redactor
from pytest_ragcheck.report import packing
from pytest_ragcheck.report.cases import unpacked_text


@pytest.mark.parametrize("piece", [1, 50, 10**9])
def test_pieces_unpack_to_the_array_of_every_entry_in_order(
    monkeypatch: pytest.MonkeyPatch, piece: int
) -> None:
    monkeypatch.setattr(packing, "_PIECE", piece)
    secret = "sk-abcdef123456"
    entries = [
        json.dumps({"n": n, "text": f"é {n} {secret}" if n % 7 == 0 else "x"}) for n in range(500)
    ]
    chunks = [",".join(entries[i : i + 3]) for i in range(0, len(entries), 3)]  # as cases_json
    blob = packing.pack(iter(chunks), Redactor([secret]))
    text = "".join(unpacked_text(blob, size=64))
    assert text == "[" + ",".join(entries).replace(secret, MARKER) + "]"
    assert json.loads(text)[7]["text"] == f"é 7 {MARKER}"


def test_nothing_to_pack_is_an_empty_array() -> None:
    assert "".join(unpacked_text(packing.pack([], Redactor([])))) == "[]"


def test_a_failing_entry_stops_the_packing_with_its_error() -> None:
    def entries() -> object:
        yield "1"
        raise ValueError("entry broke")

    with pytest.raises(ValueError, match="entry broke"):
        packing.pack(entries(), Redactor([]))  # type: ignore[arg-type]
