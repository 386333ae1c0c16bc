"""The terminal summary: one aligned table per ragcheck test, what got worse first.

Rendering produces lines of ``(text, markup)`` segments, so the same code prints coloured
output through pytest's terminal writer and plain text for docs and tests.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

from pytest_ragcheck.common.display import format_value
from pytest_ragcheck.gate.checks import update_command
from pytest_ragcheck.report.columns import (
    basis_short,
    current,
    format_delta,
    format_number,
    headline_metrics,
    metric_columns,
    quiet_rows,
    shared_suffix,
    status_text,
)
from pytest_ragcheck.report.document import sort_for_attention
from pytest_ragcheck.report.labels import FAILING, TEST_STATUSES, title, word

__all__ = [
    "Line",
    "format_delta",
    "format_number",
    "plain",
    "render_summary",
]

Markup = dict[str, bool]
Line = list[tuple[str, Markup]]


_BAD = {"red": True}
_COLOURS: Mapping[str, Markup] = {
    **dict.fromkeys(FAILING, _BAD),
    "improved": {"cyan": True},
    "new": {"yellow": True},
    "pass": {"green": True},
    "passed": {"green": True},
    "skipped": {"yellow": True},
}
_STATUS_WIDTH = max(len(title(s)) for s in TEST_STATUSES)
#: Notes wrap at this width (a table row is about as wide).
_NOTE_WIDTH = 110


def _table(test: Mapping[str, Any], markup: bool, verbosity: int = 0) -> list[Line]:
    if not test["metrics"]:  # failed before its evaluation: its problem says why
        return []
    metrics, held = quiet_rows(test["metrics"], everything=verbosity > 0)
    headers, rows = metric_columns({**test, "metrics": metrics})
    headers.append("status")
    for m, row in zip(metrics, rows, strict=True):
        row.append(status_text(m))
    widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(len(headers))]

    def cells(values: Sequence[str]) -> list[str]:
        out = [values[0].ljust(widths[0])]
        out += [v.rjust(widths[i]) for i, v in enumerate(values[1:-1], start=1)]
        out.append(values[-1])
        return out

    lines: list[Line] = [[("  " + "  ".join(cells(headers)).rstrip(), {"bold": markup})]]
    for m, row in zip(metrics, rows, strict=True):
        parts = cells(row)
        colour = _COLOURS.get(m["status"], {}) if markup else {}
        line: Line = [("  " + "  ".join(parts[:-1]) + "  ", {})]
        line.append((parts[-1], dict(colour)))
        lines.append(line)
    if held:
        lines.append([(f"  {held} (-v lists every row)", {})])
    return lines


def _title(test: Mapping[str, Any], markup: bool) -> Line:
    status = test["status"]
    label = title(status).ljust(_STATUS_WIDTH)
    colour = {**_COLOURS.get(status, {}), "bold": True} if markup else {}
    name = test["nodeid"] + (f" [call {test['call'] + 1}]" if test.get("call") else "")
    line: Line = [(label, colour), ("  " + name, {"bold": markup})]
    if test.get("header"):
        line.append(("  " + test["header"], {}))
    return line


def _first_line(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= 160 else first[:159] + "…"


def _note_lines(note: str) -> list[str]:
    """A note's first line wrapped under its label, not cut: notes carry the fix to apply."""
    first = note.strip().splitlines()[0] if note.strip() else ""
    wrapped = textwrap.wrap(
        first,
        width=_NOTE_WIDTH,
        initial_indent="  note: ",
        subsequent_indent="        ",
        break_long_words=False,
        break_on_hyphens=False,
    )
    return wrapped or ["  note:"]


def _compact(test: Mapping[str, Any], markup: bool) -> Line:
    status = test["status"]
    label = title(status).ljust(_STATUS_WIDTH)
    colour = {**_COLOURS.get(status, {}), "bold": True} if markup else {}
    name = test["nodeid"] + (f" [call {test['call'] + 1}]" if test.get("call") else "")
    parts: list[str] = []
    shown = headline_metrics(test["metrics"])
    for m in shown:
        text = f"{m['name']} {format_number(m['name'], current(m))}"
        if m["status"] == "improved":
            text += f" (improved {format_delta(m['name'], m.get('delta'))}{basis_short(m)})"
        elif m["status"] == "regressed" and m.get("delta") is not None:
            text += f" ({format_delta(m['name'], m['delta'])}"
            if m.get("allowed") is not None:
                text += f", allowed {format_number(m['name'], m['allowed'])}"
            text += f"{basis_short(m)})"
        elif m["status"] in ("below_floor", "above_ceiling"):
            text += f" ({word(m['status'])} {format_number(m['name'], m.get('bound'))})"
        parts.append(text)
    text = " · ".join(parts) + shared_suffix(shown)
    if test.get("problems"):
        text += (" · " if text else "") + _first_line(test["problems"][0])
    return [(label, colour), ("  " + name + "  " + text, {})]


def _counts(tests: Sequence[Mapping[str, Any]], comparisons: int = 0) -> str:
    """``ragcheck: 3 tests — 2 passed, 1 regressed · 1 comparison``: every entry listed above
    (the ``COMPARED`` tables are not gated, so they are counted apart, as in the Markdown)."""
    counts = {s: sum(1 for t in tests if t["status"] == s) for s in TEST_STATUSES}
    parts = [f"{n} {word(s)}" for s, n in counts.items() if n]
    noun = "test" if len(tests) == 1 else "tests"
    text = f"{len(tests)} {noun} — " + ", ".join(parts) if tests else "no gated test ran"
    if comparisons:
        text += f" · {comparisons} comparison{'' if comparisons == 1 else 's'}"
    return "ragcheck: " + text


def render_summary(
    document: Mapping[str, Any], *, verbosity: int = 0, markup: bool = False
) -> list[Line]:
    """The summary section's lines (without the ``=== ragcheck summary ===`` separator).

    ``verbosity < 0`` (``-q``) gives one line per test; otherwise a table per test. Tests are
    listed in node-id order; improvements are gathered at the end with the update hint.
    """
    tests: Sequence[Mapping[str, Any]] = document["tests"]
    lines: list[Line] = []
    for test in tests:
        if verbosity < 0:
            lines.append(_compact(test, markup))
            continue
        lines.append(_title(test, markup))
        lines.extend(_table(test, markup, verbosity))
        for problem in test.get("problems") or []:
            lines.append([("  ! " + _first_line(problem), _BAD if markup else {})])
        for note in test.get("notes") or []:
            if note.startswith("improved beyond tolerance"):
                continue  # listed with the update hint below
            lines.extend([(text, {})] for text in _note_lines(note))
        detectable = detectable_text(test)
        if detectable:
            lines.append([("  " + detectable, {})])
        lines.append([])
    improved = [
        (t, m)
        for t in sort_for_attention(tests)
        if t["status"] == "improved"  # a failed test is never offered for re-recording
        for m in t["metrics"]
        if m["status"] == "improved" and " [tag " not in m["name"]  # a slice never asks
    ]
    if improved:
        colour = _COLOURS["improved"] if markup else {}
        command = update_command(improved_nodeids(tests))
        lines.append([(f"Improved beyond tolerance — to record it: {command}", colour)])
        for test, m in improved:
            name = m["name"]
            lines.append(
                [
                    (
                        f"  {test['nodeid']}  {name} {format_number(name, m.get('baseline'))} → "
                        f"{format_number(name, current(m))} "
                        f"({format_delta(name, m.get('delta'))})",
                        {},
                    )
                ]
            )
    lines.extend(comparison_section(document, markup))
    comparisons = len(document.get("comparisons") or [])
    if tests or comparisons:
        lines.append([(_counts(tests, comparisons), {"bold": markup})])
    lines.extend([(text, {"yellow": True} if markup else {})] for text in _error_warnings(tests))
    incomplete = (document.get("run") or {}).get("incomplete")
    if incomplete:
        text = f"ragcheck: incomplete run: {incomplete}; only the tests that ran are listed"
        lines.append([(text, {"yellow": True} if markup else {})])
    return lines


def _error_warnings(tests: Sequence[Mapping[str, Any]]) -> list[str]:
    """A line for each test whose retriever failed on most of its cases: under
    ``on_error="zero"`` such a run passes, and its table alone would not say why it scored."""
    lines = []
    for test in tests:
        errors, ran = test.get("n_errors") or 0, test["n_cases"] - (test.get("n_skipped") or 0)
        if 2 * errors <= ran:
            continue
        zero = (test.get("config") or {}).get("on_error") == "zero"
        lines.append(
            f"ragcheck: warning: {test['nodeid']}: the retriever failed on {errors} of {ran} "
            "cases"
            + (
                " (scored 0, on_error='zero'): its metrics measure the failures more than the "
                "retriever"
                if zero
                else ""
            )
        )
    return lines


def comparison_section(document: Mapping[str, Any], markup: bool = False) -> list[Line]:
    """``COMPARED  <test>`` and the side-by-side table of each ``ragcheck.compare(...)``."""
    from pytest_ragcheck.explore.table import comparison_lines

    lines: list[Line] = []
    for data in document.get("comparisons") or []:
        lines.append([(f"{'COMPARED':<{_STATUS_WIDTH}}  ", {"bold": markup}), (data["nodeid"], {})])
        lines.extend([("  " + text, {})] for text in comparison_lines(data))
        lines.append([])
    return lines


def improved_nodeids(tests: Sequence[Mapping[str, Any]]) -> list[str]:
    """Tests that passed with an improvement: the ones worth re-recording (never a failed one)."""
    ids: list[str] = []
    for test in tests:
        if test["status"] == "improved" and test["nodeid"] not in ids:
            ids.append(test["nodeid"])
    return ids


def detectable_text(test: Mapping[str, Any]) -> str:
    """``smallest drop this golden set detects (p ≤ 0.05, 80 % power): mrr@10 0.066, …``."""
    level = (test.get("config") or {}).get("significance")
    shown = [
        f"{m['name']} {format_value(m['detectable'])}"
        for m in test["metrics"]
        if m.get("detectable") is not None and " [tag " not in m["name"]
    ]
    if not shown or level is None:
        return ""
    return f"smallest drop this golden set detects (p ≤ {level:g}, 80 % power): " + ", ".join(shown)


def plain(lines: Sequence[Line]) -> str:
    """Lines as plain text (what the terminal shows without colour)."""
    return "\n".join("".join(text for text, _ in line).rstrip() for line in lines)
