"""``per_tag=True``: its keywords, and each tag gated on its own, Holm-corrected across tags."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import pytest
from baseline_data import make_result, settings, stored

from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.evaluation.keywords import build_settings
from pytest_ragcheck.evaluation.result import Result
from pytest_ragcheck.gate.against_baseline import compare_with_baseline
from pytest_ragcheck.gate.per_tag import split_tag, tag_check_name, tag_checks


def test_min_tag_cases_is_a_keyword_not_a_floor() -> None:
    chosen = build_settings({"per_tag": True, "min_tag_cases": 3, "metrics": ["mrr"]})
    assert (chosen.per_tag, chosen.min_tag_cases) == (True, 3)
    assert chosen.thresholds == ()
    assert (build_settings({}).per_tag, build_settings({}).min_tag_cases) == (False, 10)


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ({"per_tag": "yes"}, "per_tag must be True or False, got 'yes'"),
        ({"min_tag_cases": 0}, "min_tag_cases"),
    ],
)
def test_bad_per_tag_keywords_are_clear(marker: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        build_settings(marker)


def test_check_names_round_trip() -> None:
    name = tag_check_name("mrr@10", "pricing [eu]")
    assert name == "mrr@10 [tag pricing [eu]]"
    assert split_tag(name) == ("mrr@10", "pricing [eu]")
    assert split_tag("mrr@10") == ("mrr@10", None)


def tagged(values: Mapping[str, float], tags: Mapping[str, tuple[str, ...]]) -> Result:
    result = make_result({i: {"mrr@10": v} for i, v in values.items()})
    cases = [dataclasses.replace(c, tags=tags.get(c.id, ())) for c in result.cases]
    return dataclasses.replace(result, cases=cases)


PRICING = {f"p{i}": ("pricing",) for i in range(1, 11)}
SHIPPING = {f"s{i}": ("shipping",) for i in range(1, 21)}


def test_a_drop_in_one_tag_regresses_that_tag_only() -> None:
    base_values = {**dict.fromkeys(PRICING, 1.0), **dict.fromkeys(SHIPPING, 1.0)}
    # Pricing halves; the overall mean moves by 0.167, within a 0.2 tolerance.
    now_values = {**dict.fromkeys(PRICING, 0.5), **dict.fromkeys(SHIPPING, 1.0)}
    tags = {**PRICING, **SHIPPING}
    now = tagged(now_values, tags)
    marker = {"per_tag": True, "tolerance": 0.2}
    comparison = compare_with_baseline(now, stored(tagged(base_values, tags)), settings(**marker))
    pricing = comparison.checks["mrr@10 [tag pricing]"]
    assert comparison.checks["mrr@10"].status == "pass"
    assert pricing.status == "regressed"
    assert (pricing.baseline, pricing.current) == (1.0, 0.5)
    # Ten of ten cases dropped: p = 2**-10; Holm over the two tags doubles the smaller p.
    assert pricing.p_value == pytest.approx(2 * 2.0**-10)
    assert comparison.checks["mrr@10 [tag shipping]"].status == "pass"
    assert comparison.regressed == ["mrr@10 [tag pricing]"]


def test_tags_below_min_tag_cases_are_said_plainly() -> None:
    result = tagged({"p1": 1.0, "p2": 1.0, "s1": 1.0}, {"p1": ("pricing",), "p2": ("pricing",)})
    checks, notes = tag_checks(result, settings(per_tag=True, min_tag_cases=3))
    assert checks == {}
    assert notes == [
        "per_tag=True: no tag has at least 3 evaluated cases (min_tag_cases; the largest, "
        "'pricing', has 2); only the overall metrics are gated"
    ]
    _, untagged = tag_checks(tagged({"a": 1.0}, {}), settings(per_tag=True))
    assert untagged == [
        "per_tag=True: no evaluated case has a tag; only the overall metrics are gated"
    ]


def test_a_tag_too_small_on_the_shared_cases_is_said_once() -> None:
    """Ten pricing cases now, five of them new: the tag is gated in this run, not compared."""
    tags = dict(PRICING)
    base = tagged({f"p{i}": 1.0 for i in range(1, 6)}, tags)
    now = tagged(dict.fromkeys(PRICING, 1.0), tags)
    chosen = settings(per_tag=True)
    floors, floor_notes = tag_checks(now, chosen)
    assert list(floors) == ["mrr@10 [tag pricing]"]
    assert floor_notes == []
    comparison = compare_with_baseline(now, stored(base), chosen, checks=floors)
    assert (
        "per_tag=True: no tag has at least 10 shared cases (min_tag_cases; the largest, "
        "'pricing', has 5); only the overall metrics are gated"
    ) in comparison.notes
    # When no tag was large enough in the run itself, tag_checks said so: no second note.
    small = tagged({"p1": 1.0}, {"p1": ("pricing",)})
    again = compare_with_baseline(small, stored(small), chosen, checks={})
    assert not [n for n in again.notes if "no tag has at least" in n]


def test_a_slice_too_small_for_the_corrected_test_is_judged_by_tolerance() -> None:
    """Ten tags: Holm multiplies the smallest p by 10, so six changed cases (2**-6 · 10 =
    0.156) can never reach 0.05. Their drop must not pass as "not significant"."""
    tags = {f"t{t}-{i}": (f"tag{t}",) for t in range(10) for i in range(10)}
    base = {case: 0.0 if case.startswith("t1-") else 1.0 for case in tags}
    now = dict(base)
    now.update({f"t0-{i}": 0.0 for i in range(6)})  # tag0: six cases 1 → 0
    now.update({f"t1-{i}": 1.0 for i in range(6)})  # tag1: six cases 0 → 1; overall flat
    chosen = settings(per_tag=True)
    current = tagged(now, tags)
    floors, _ = tag_checks(current, chosen)
    comparison = compare_with_baseline(current, stored(tagged(base, tags)), chosen, checks=floors)
    assert comparison.checks["mrr@10"].delta == 0.0
    dropped = comparison.checks["mrr@10 [tag tag0]"]
    assert (dropped.baseline, dropped.current) == (1.0, 0.4)
    assert dropped.status == "regressed"
    assert dropped.note == (
        "judged by tolerance alone: only 6 case(s) changed, too few for the paired test to "
        "reach p ≤ 0.05 once Holm-corrected over 10 tags"
    )
    assert comparison.checks["mrr@10 [tag tag1]"].status == "improved"
