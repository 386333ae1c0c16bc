"""Values that used to be accepted and ignored (or quietly changed): ``tolerances`` that is no
dict, a blank ``id_key``, a qrels grade with ``_``, a path inside the list of cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ragcheck.common.errors import ConfigError, GoldenSetError
from pytest_ragcheck.evaluation.keywords import build_settings
from pytest_ragcheck.golden import load_golden


@pytest.mark.parametrize("value", [0, [], "", 0.05])
def test_tolerances_that_is_no_dict_is_an_error(value: object) -> None:
    with pytest.raises(ConfigError) as info:
        build_settings({"tolerances": value})
    assert str(info.value) == (
        f"tolerances must be a dict of metric name -> allowed drop, got {value!r}"
        " (for one tolerance for every metric, use tolerance=)"
    )


@pytest.mark.parametrize("value", [None, {}])
def test_tolerances_none_or_empty_dict(value: object) -> None:
    assert build_settings({"tolerances": value}).tolerances == {}


@pytest.mark.parametrize("value", ["", "  "])
def test_blank_id_key_is_an_error(value: str) -> None:
    with pytest.raises(ConfigError) as info:
        build_settings({"id_key": value})
    assert str(info.value) == (
        f"id_key must name the id's metadata key or attribute (e.g. 'doc_id'), got {value!r}"
    )


def test_tags_empty_set_and_blank_tag() -> None:
    with pytest.raises(ConfigError, match=r"^tags=set\(\) names no tag"):
        build_settings({"tags": set()})
    with pytest.raises(ConfigError, match=r"^tags: '\\t' is an empty tag"):
        build_settings({"tags": ("faq", "\t")})
    assert build_settings({"tags": "faq"}).tags == ("faq",)


@pytest.mark.parametrize("grade", ["1_0", "0_1"])
def test_qrels_grade_with_underscore_is_an_error(tmp_path: Path, grade: str) -> None:
    (tmp_path / "queries.jsonl").write_text('{"_id": "q1", "text": "alpha"}\n')
    (tmp_path / "qrels.tsv").write_text(f"q1\td1\t1\nq1\td2\t{grade}\n")
    with pytest.raises(GoldenSetError) as info:
        load_golden(tmp_path)
    assert str(info.value).endswith(f"qrels.tsv:2: grade must be an integer, got {grade!r}")


def test_path_inside_the_list_of_cases() -> None:
    with pytest.raises(GoldenSetError) as info:
        load_golden(["golden/faq.jsonl"])
    assert str(info.value) == (
        "case #1: expected a GoldenCase or a dict, got str 'golden/faq.jsonl' "
        "(a path goes in cases= on its own, not in a list)"
    )
