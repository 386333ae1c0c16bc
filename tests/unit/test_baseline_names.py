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
