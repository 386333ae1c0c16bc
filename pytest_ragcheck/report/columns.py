"""A metric's numbers as table columns: the one layout of the terminal and Markdown tables.

When the golden set changed since the baseline, the value compared with the baseline is the
one over the shared cases: it heads the table (``on 60 shared``) beside the baseline and Δ,
and the value over all cases follows, labelled (``on all 66``), beside the floors it is
checked against. Pure: reads report-document entries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pytest_ragcheck.common.display import format_value, signed
from pytest_ragcheck.gate.per_tag import split_tag
from pytest_ragcheck.report.labels import BASES, detectable_words, p_words, word

__all__ = [
    "basis_short",
    "current",
    "format_delta",
    "format_number",
    "headline_metrics",
    "metric_columns",
    "quiet_rows",
    "shared_counts",
    "shared_suffix",
    "status_text",
]

Counts = tuple[int | None, int | None]


def format_number(name: str, value: float | None) -> str:
    """Quality metrics with three decimals, latencies (ms) with one."""
    if value is None:
        return "-"
    if name.startswith("latency_") or abs(value) >= 100:
        return f"{value:.1f}"
    return format_value(value)


def format_delta(name: str, delta: float | None) -> str:
    """A signed difference with a real minus sign: ``+0.012``, ``−0.034`` (latency ``+1.5``)."""
    return signed(delta, decimals=1 if name.startswith("latency_") else 3)


def current(metric: Mapping[str, Any]) -> float | None:
    """The value compared with the baseline (the shared cases' when the golden set changed)."""
    value: float | None = metric.get("current", metric.get("value"))
    return value


def shared_counts(metrics: Sequence[Mapping[str, Any]]) -> tuple[int | None, int | None] | None:
    """``(shared, all)`` case counts when some metric was compared on the shared cases only
    (the golden set changed since the baseline), else ``None``."""
    for m in metrics:
        if m.get("compared") is not None:
            return m.get("compared_cases"), m.get("all_cases")
    return None


def value_headers(counts: tuple[int | None, int | None]) -> tuple[str, str]:
    """``("on 60 shared", "on all 66")``: the two value columns of a changed golden set."""
    shared, every = counts
    return (
        f"on {shared} shared" if shared is not None else "on shared",
        f"on all {every}" if every is not None else "on all",
    )


def value_cells(m: Mapping[str, Any], counts: tuple[int | None, int | None] | None) -> list[str]:
    """A metric's value column(s): its value; with ``counts``, the value on the shared cases
    (``-`` for a metric not compared) and on all cases, a count added where it differs."""
    name = m["name"]
    if counts is None:
        return [format_number(name, m.get("value"))]
    shared, every = counts
    if m.get("compared") is None:
        return ["-", format_number(name, m.get("value"))]
    own = (m.get("compared_cases"), m.get("all_cases"))
    cells = []
    for value, n, header in ((m["compared"], own[0], shared), (m.get("value"), own[1], every)):
        text = format_number(name, value)
        cells.append(text if n is None or n == header else f"{text} ({n})")
    return cells


def shared_suffix(metrics: Sequence[Mapping[str, Any]]) -> str:
    """`` · on 60 shared of 66 cases`` for a one-line summary of a changed golden set."""
    counts = shared_counts(metrics)
    if counts is None or counts[0] is None:
        return ""
    every = f" of {counts[1]}" if counts[1] is not None else ""
    return f" · compared on {counts[0]} shared{every} cases"


def bound_text(metric: Mapping[str, Any]) -> str:
    bound = metric.get("bound")
    if bound is None:
        return "-"
    op = "≥" if metric.get("bound_kind") == "min" else "≤"
    return f"{op} {format_number(metric['name'], bound)}"


def metric_columns(test: Mapping[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Headers and per-metric cells of a test's metric table, up to (not with) the status:
    value(s), baseline, Δ and allowed unless baselines are off, thresholds if any is set."""
    metrics: Sequence[Mapping[str, Any]] = test["metrics"]
    with_baseline = bool((test.get("config") or {}).get("baseline", True)) or any(
        m.get("baseline") is not None for m in metrics
    )
    with_bound = any(m.get("bound") is not None for m in metrics)
    counts = shared_counts(metrics)
    names = value_headers(counts) if counts is not None else ("value",)
    headers = ["metric", names[0]]
    if with_baseline:
        headers += ["baseline", "Δ", "allowed"]
    headers += names[1:]  # the all-cases value, beside the floors it is checked against
    if with_bound:
        headers.append("threshold")
    rows: list[list[str]] = []
    for m in metrics:
        name = m["name"]
        values = value_cells(m, counts)
        row = [name, values[0]]
        if with_baseline:
            row += [
                format_number(name, m.get("baseline")),
                format_delta(name, m.get("delta")),
                format_number(name, m.get("allowed")) if m.get("baseline") is not None else "-",
            ]
        row += values[1:]
        if with_bound:
            row.append(bound_text(m))
        rows.append(row)
    return headers, rows


#: Notes the status words already say: the basis says "tolerance", the status "improved".
_SAID = ("judged by tolerance alone", "improved beyond tolerance")


def status_text(m: Mapping[str, Any], *, emphasis: str = "") -> str:
    """A check's status as every table shows it: the word, then in brackets its basis when
    the paired test did not decide (``tolerance; too few changed cases to test``), the p-value
    when it did, the note, and the smallest detectable change where the test could not
    decide. ``emphasis`` wraps a failing or changed status word (``**`` in Markdown)."""
    status = m["status"]
    words = word(status)
    if emphasis and status not in ("pass", "new"):
        words = f"{emphasis}{words}{emphasis}"
    basis = m.get("basis") or ""
    inner: list[str] = []
    if status in ("regressed", "improved"):
        if basis in BASES:
            inner.append(BASES[basis])
        elif m.get("p_value") is not None:
            inner.append(p_words(m["p_value"], m.get("holm_over")))
    note = m.get("note") or ""
    if note and not note.startswith(_SAID):
        inner.append(note)
    if basis == "tolerance" and m.get("detectable") is not None:
        inner.append(detectable_words(m["detectable"]))
    return f"{words} ({'; '.join(inner)})" if inner else words


def basis_short(m: Mapping[str, Any]) -> str:
    """``, tolerance alone`` after a one-line change the paired test did not decide."""
    return ", tolerance alone" if (m.get("basis") or "") in BASES else ""


def _tag(m: Mapping[str, Any]) -> str | None:
    return split_tag(m["name"])[1]


def quiet_rows(
    metrics: Sequence[Mapping[str, Any]], *, everything: bool = False
) -> tuple[list[Mapping[str, Any]], str]:
    """The rows a summary shows, and one line for the per-tag rows it leaves out.

    Every overall metric is shown; a per-tag row only when it failed or changed beyond
    tolerance (its ``basis`` is set). The rest read ``12 tags held`` (``everything``: ``-v``
    shows every row, and the JSON report keeps them all)."""
    if everything:
        return list(metrics), ""
    shown = [m for m in metrics if _tag(m) is None or m["status"] != "pass" or m.get("basis")]
    if len(shown) == len(metrics):
        return shown, ""
    kept = {_tag(m) for m in shown} - {None}
    held = [m for m in metrics if not any(m is s for s in shown)]
    tags = {_tag(m) for m in held} - kept
    rest = sum(1 for m in held if _tag(m) in kept)
    parts = []
    if tags:
        parts.append(f"{len(tags)} tag{'' if len(tags) == 1 else 's'} held on every metric")
    if rest:
        parts.append(f"{rest} more tag row{'' if rest == 1 else 's'} within tolerance")
    return shown, "per tag: " + "; ".join(parts)


def headline_metrics(metrics: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """What a one-line summary of a test names: the failing checks and the overall metrics
    that improved, else every overall quality metric (a latency-only test: its latency)."""
    overall = [m for m in metrics if _tag(m) is None]
    failing = [m for m in metrics if m["status"] not in ("pass", "new", "improved")]
    improved = [m for m in overall if m["status"] == "improved"]
    quality = [m for m in overall if m["kind"] != "latency"]
    return failing + improved or quality or overall
