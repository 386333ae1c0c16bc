"""Baseline file names: stable, file-system safe, and never two tests in one file."""

from __future__ import annotations

import re
from urllib.parse import unquote

import pytest

from pytest_ragcheck.plugin.snapshots import safe_file_stem

UNSAFE = re.compile(r'[\\/?*:|"<>\x00-\x1f\x7f]')


@pytest.mark.parametrize(
    "name",
    [
        "test_faq[ragcheck]",
        "TestSearch.test_variant[docs/faq.jsonl][ragcheck]",
        'test_x[a:b|c*d?e"f<g>h\\i][ragcheck]',
        "test_x[tab\there\nnewline][ragcheck]",
        "test_x[100%][ragcheck]",
        "test_x[héllo wörld — ünïcode][ragcheck]",
    ],
)
def test_names_are_safe_and_reversible(name: str) -> None:
    stem = safe_file_stem(name, limit=250)
    assert not UNSAFE.search(stem)
    assert unquote(stem) == name  # nothing is lost, so two names never share a stem
    assert safe_file_stem(name, limit=250) == stem


def test_names_differing_only_in_unsafe_characters_stay_apart() -> None:
    names = ["test[docs/faq]", "test[docsfaq]", "test[docs:faq]", "test[docs%2Ffaq]"]
    stems = {safe_file_stem(n, limit=250) for n in names}
    assert len(stems) == len(names)


def test_plain_names_are_unchanged() -> None:
    assert safe_file_stem("TestA.test_b[1-x][ragcheck]", limit=250) == "TestA.test_b[1-x][ragcheck]"


def test_long_names_are_cut_with_a_hash() -> None:
    first = "test_x[" + "a" * 400 + "1][ragcheck]"
    second = "test_x[" + "a" * 400 + "2][ragcheck]"
    a = safe_file_stem(first, limit=250)
    b = safe_file_stem(second, limit=250)
    assert len(a) == len(b) == 250
    assert a != b
    assert re.fullmatch(r"test_x\[a+~[0-9a-f]{12}", a)
    assert safe_file_stem(first, limit=250) == a


@pytest.mark.parametrize("name", ["test_x[" + "語" * 200 + "][ragcheck]", "t[" + "é" * 300 + "]"])
def test_long_names_are_cut_in_utf8_bytes_on_a_character_boundary(name: str) -> None:
    stem = safe_file_stem(name, limit=236)
    assert len(stem.encode("utf-8")) <= 236
    assert re.search(r"~[0-9a-f]{12}$", stem)
    assert name.startswith(stem[:-13])  # whole characters, none cut in half
    assert stem != safe_file_stem(name + "x", limit=236)


def test_names_fitting_in_bytes_are_kept_whole() -> None:
    name = "test_x[" + "é" * 100 + "]"  # 108 characters, 208 bytes
    assert safe_file_stem(name, limit=208) == name
    assert safe_file_stem(name, limit=207) != name


def test_the_earlier_rule_cut_characters() -> None:
    """How names were cut before (250 characters): used to find a baseline kept then."""
    name = "test_x[" + "é" * 300 + "]"
    stem = safe_file_stem(name, limit=250, in_bytes=False)
    assert len(stem) == 250
    assert stem[-13:] == safe_file_stem(name, limit=236)[-13:]  # the same hash ends both
