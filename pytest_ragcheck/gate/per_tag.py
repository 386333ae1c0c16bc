"""``per_tag=True``: each tag with enough cases is gated on its own.

A regression in one slice (the pricing questions) can hide in a flat overall mean. With
``per_tag=True`` every tag with at least ``min_tag_cases`` cases gets its own check,
``mrr@10 [tag pricing]``, compared with the baseline on that tag's shared cases. The paired
tests of one metric across tags are Holm-corrected, so more tags do not mean more false
alarms. Pure: no pytest.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from pytest_ragcheck.common.sorting import natural_key
from pytest_ragcheck.gate.checks import MetricCheck

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import Result
    from pytest_ragcheck.evaluation.settings import Settings
    from pytest_ragcheck.gate.sides import Sides

__all__ = ["compare_tags", "split_tag", "tag_check_name", "tag_checks"]

_TAG_MARK = " [tag "


def tag_check_name(metric: str, tag: str) -> str:
    """``mrr@10 [tag pricing]``: how a per-tag check is named everywhere."""
    return f"{metric}{_TAG_MARK}{tag}]"


def split_tag(name: str) -> tuple[str, str | None]:
    """``"mrr@10 [tag pricing]"`` -> ``("mrr@10", "pricing")``; a plain name -> ``(name, None)``."""
    metric, mark, rest = name.partition(_TAG_MARK)
    if not mark or not rest.endswith("]"):
        return name, None
    return metric, rest[:-1]


def _ids_by_tag(result: Result, ids: Sequence[str]) -> dict[str, list[str]]:
    tags = {case.id: case.tags for case in result.cases}
    by_tag: dict[str, list[str]] = {}
    for case_id in ids:
        for tag in tags.get(case_id, ()):
            by_tag.setdefault(tag, []).append(case_id)
    return {tag: by_tag[tag] for tag in sorted(by_tag, key=natural_key)}


def _too_few_note(by_tag: Mapping[str, Sequence[str]], minimum: int, what: str) -> str:
    if not by_tag:
        return f"per_tag=True: no {what} case has a tag; only the overall metrics are gated"
    tag, ids = max(by_tag.items(), key=lambda item: (len(item[1]), item[0]))
    return (
        f"per_tag=True: no tag has at least {minimum} {what} cases (min_tag_cases; the "
        f"largest, {tag!r}, has {len(ids)}); only the overall metrics are gated"
    )


def tag_checks(result: Result, settings: Settings) -> tuple[dict[str, MetricCheck], list[str]]:
    """This run's value of every metric per tag (no baseline needed), and a note if none."""
    evaluated = [c.id for c in result.evaluated]
    by_tag = _ids_by_tag(result, evaluated)
    eligible = {t: ids for t, ids in by_tag.items() if len(ids) >= settings.min_tag_cases}
    if not eligible:
        return {}, [_too_few_note(by_tag, settings.min_tag_cases, "evaluated")]
    values = {c.id: c.values for c in result.evaluated}
    specs = {s.name: s for s in result.specs}
    checks: dict[str, MetricCheck] = {}
    for name in result.metric_names:
        for tag, ids in eligible.items():
            scores = [values[i][name] for i in ids if name in values[i]]
            if len(scores) != len(ids):
                continue
            checks[tag_check_name(name, tag)] = MetricCheck(
                name=tag_check_name(name, tag),
                value=math.fsum(scores) / len(scores),
                higher_is_better=specs[name].higher_is_better if name in specs else True,
            )
    return checks, []


def compare_tags(
    result: Result,
    sides: Sides,
    names: Sequence[str],
    checks: Mapping[str, MetricCheck],
    settings: Settings,
    *,
    update: bool,
) -> tuple[dict[str, MetricCheck], list[str], tuple[float, str] | None]:
    """Per-tag checks against the baseline, the notes, and the worst regression (if any)."""
    from pytest_ragcheck.gate.sides import judge_change
    from pytest_ragcheck.gate.stats import holm

    by_tag = _ids_by_tag(result, sides.match.shared)
    eligible = {t: ids for t, ids in by_tag.items() if len(ids) >= settings.min_tag_cases}
    if not eligible:
        if not any(split_tag(name)[1] for name in checks):
            return {}, [], None  # ``tag_checks`` already said no tag is large enough
        return {}, [_too_few_note(by_tag, settings.min_tag_cases, "shared")], None
    out: dict[str, MetricCheck] = {}
    notes: list[str] = []
    worst: tuple[float, str] | None = None
    sizes = {t: len(i) for t, i in _ids_by_tag(result, [c.id for c in result.evaluated]).items()}
    for name in names:
        tests = {tag: sides.paired([name], ids)[name] for tag, ids in eligible.items()}
        adjusted = dict(zip(tests, holm([t.p_value for t in tests.values()]), strict=True))
        for tag, ids in eligible.items():
            key = tag_check_name(name, tag)
            before, after = sides.means(name, ids)
            base = checks.get(key) or MetricCheck(
                name=key,
                value=after,
                higher_is_better=checks[name].higher_is_better if name in checks else True,
            )
            if not sides.match.whole:
                base = base.on_shared(after, len(ids), sizes.get(tag))
            level = settings.significance
            # Holm compares the smallest p with level / tags: what a tag's test detects
            detectable = sides.detectable(name, ids, level / len(tests) if level else None)
            judged = judge_change(
                replace(
                    base, holm_over=len(tests) if len(tests) > 1 else None, detectable=detectable
                ),
                before=before,
                after=after,
                precision=sides.current.precision,
                allowed=settings.allowed_drop(name),
                # Holm multiplies the smallest p by the number of tags: a tag whose changed
                # cases cannot reach the level even so is judged by its tolerance alone.
                test=replace(
                    tests[tag],
                    p_value=adjusted[tag],
                    min_p_value=min(1.0, tests[tag].min_p_value * len(tests)),
                ),
                level=level,
                update=update,
            )
            if judged.regressed and (worst is None or judged.worse_by > worst[0]):
                worst = (judged.worse_by, key)
            out[key] = judged.check
    return out, notes, worst
