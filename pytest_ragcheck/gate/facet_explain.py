"""Why a case scores low on a diversity or authority metric (SPEC §12's explanations).

A diversity metric names the subtopics the top k does not cover (``misses 'the animal' (d2
at 14)``) and, against a baseline, the ones it no longer covers with the documents that
covered them before (``lost subtopic 'the animal' (was d2 at 1)``); an authority metric names
the sources of the top k with their weights (``3 of the top 5 from unknown sources:
example.com ×2, spam.net``). Pure: no pytest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pytest_ragcheck.common.display import format_value, shown_id
from pytest_ragcheck.metrics.names import parse_metric
from pytest_ragcheck.metrics.registry import find_metric

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import CaseResult, Result

__all__ = ["facet_lines", "lost_subtopics", "source_lines", "subtopic_lines"]

#: Subtopics, documents and sources named per line.
_SHOWN = 4


def _more(items: Sequence[str], total: int) -> str:
    extra = total - len(items)
    return ", ".join(items) + (f", … {extra} more" if extra > 0 else "")


def facet_lines(result: Result, case: CaseResult, name: str) -> list[str]:
    """The lines that explain ``case``'s value of ``name`` now (empty for other metrics)."""
    metric = find_metric(name)
    if metric is None or case.facets is None:
        return []
    k = parse_metric(name, result.k).k
    if "subtopics" in metric.needs and "subtopics" in case.facets:
        golden = result.golden
        gold = next((c for c in golden.cases if c.id == case.id), None) if golden else None
        return subtopic_lines(case.facets["subtopics"], k, gold.subtopics if gold else {})
    if "sources" in metric.needs and "sources" in case.facets:
        trusted = (result.info.get("facets") or {}).get("trusted_min", 0.5)
        return source_lines(
            case.facets["sources"], k, trusted, untrusted=not metric.higher_is_better
        )
    return []


def subtopic_lines(
    coverage: Mapping[str, Mapping[str, Any]],
    k: int | None,
    subtopics: Mapping[str, Mapping[str, int]],
) -> list[str]:
    """``top 10 misses 2 of 3 subtopics: 'cat' (d2 at 14), 'team' (d5, d9 not retrieved)``."""
    judged = {n: c for n, c in coverage.items() if c.get("relevant")}
    missed = [
        (n, c.get("first_rank"))
        for n, c in judged.items()
        if c.get("first_rank") is None or (k is not None and c["first_rank"] > k)
    ]
    if not missed:
        return []
    parts = []
    for subtopic, rank in missed[:_SHOWN]:
        docs = [d for d, g in (subtopics.get(subtopic) or {}).items() if g >= 1]
        named = ", ".join(shown_id(d) for d in docs[:3]) + (", …" if len(docs) > 3 else "")
        where = "not retrieved" if rank is None else f"first at {rank}"
        parts.append(f"{subtopic!r} ({named + ' ' if named else ''}{where})")
    top = "the ranking" if k is None else f"top {k}"
    return [f"{top} misses {len(missed)} of {len(judged)} subtopics: {_more(parts, len(missed))}"]


def lost_subtopics(
    subtopics: Mapping[str, Mapping[str, int]],
    baseline: Sequence[str],
    current: Sequence[str],
    k: int | None,
) -> list[str]:
    """The subtopics the baseline's top k covered and this run's does not, with the documents
    that covered them: ``lost subtopic 'the animal' (was d2 at 1)``."""
    old = baseline if k is None else baseline[:k]
    now = set(current if k is None else current[:k])
    lines: list[str] = []
    for name, grades in subtopics.items():
        relevant = {doc for doc, grade in grades.items() if grade >= 1}
        before = [(rank, doc) for rank, doc in enumerate(old, 1) if doc in relevant]
        if before and not relevant & now:
            shown = [f"{shown_id(doc)} at {rank}" for rank, doc in before[:3]]
            lines.append(f"lost subtopic {name!r} (was {_more(shown, len(before))})")
    if len(lines) > _SHOWN:
        lines[_SHOWN:] = [f"… and {len(lines) - _SHOWN} more lost subtopics"]
    return lines


def _grouped(entries: Sequence[Mapping[str, Any]], *, weights: bool) -> list[str]:
    """``example.com 0.2 ×2``: each source once, in rank order, with its count."""
    counts: dict[tuple[str, float], int] = {}
    for entry in entries:
        key = (_label(entry), float(entry.get("weight") or 0.0))
        counts[key] = counts.get(key, 0) + 1
    return [
        f"{label}{' ' + format_value(weight) if weights else ''}{f' ×{n}' if n > 1 else ''}"
        for (label, weight), n in counts.items()
    ]


def _label(entry: Mapping[str, Any]) -> str:
    from pytest_ragcheck.metrics.authority_table import host_of

    source = str(entry.get("source") or "")
    return host_of(source) or source


def source_lines(
    sources: Sequence[Mapping[str, Any]], k: int | None, trusted_min: float, *, untrusted: bool
) -> list[str]:
    """The sources of the top k with their weights, and which of them are unknown (matched
    by ``"*"`` or nothing) or, for ``untrusted``, below ``trusted_min``."""
    top = list(sources if k is None else sources[:k])
    if not top:
        return []
    where = f"top {len(top)}" if k is not None else "ranking"
    every = _grouped(top, weights=True)
    lines = [f"sources of the {where}: {_more(every[: _SHOWN + 2], len(every))}"]
    if untrusted:
        low = [e for e in top if float(e.get("weight") or 0.0) < trusted_min]
        what = f"below trusted_min {format_value(trusted_min)}"
    else:
        low = [e for e in top if e.get("pattern") in (None, "*")]
        what = "from unknown sources"
    if low:
        named = _grouped(low, weights=False)
        lines.append(f"{len(low)} of the {where} {what}: {_more(named[:_SHOWN], len(named))}")
    return lines
