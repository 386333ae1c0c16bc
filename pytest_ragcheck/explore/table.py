"""The side-by-side table of a comparison, as text (``print(cmp)``, the terminal summary).

It reads the JSON data of :meth:`pytest_ragcheck.explore.systems.Comparison.to_dict`, so a script, the
terminal summary and the Markdown report print the same numbers. System names are escaped
as ids are (:func:`~pytest_ragcheck.common.display.shown_id`): a newline or a terminal escape in a name
must not break or recolour the table; a long one is cut in its middle (names often differ only
at the end: ``...-v1``, ``...-v2``). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_ragcheck.common.display import format_value, signed

__all__ = ["MARKS", "comparison_cells", "comparison_lines", "shown_name"]

#: The signs of a significant win and loss against the reference system.
MARKS = {"win": "▲", "loss": "▼", "": " "}
#: Characters of a system name shown at most (its start and its end).
NAME_WIDTH = 80


def shown_name(name: str) -> str:
    """A system name on one line, its control characters escaped, its middle cut when long."""
    shown = name if name.isprintable() else repr(name)[1:-1]  # as shown_id escapes ids
    if len(shown) <= NAME_WIDTH:
        return shown
    half = (NAME_WIDTH - 1) // 2
    return shown[:half] + "…" + shown[-(NAME_WIDTH - 1 - half) :]


def _p(value: float | None) -> str:
    return "=-" if value is None else f"={value:.2g}" if value >= 0.001 else "<0.001"


def comparison_cells(data: Mapping[str, Any]) -> list[list[str]]:
    """Header row, then one row per metric: the metric, then one cell per system."""
    systems = list(data["systems"])
    reference = data["reference"]
    rows = [
        [
            "metric",
            *(f"{shown_name(s)} (reference)" if s == reference else shown_name(s) for s in systems),
        ]
    ]
    for metric in data["metrics"]:
        by_system = {r["system"]: r for r in metric["rows"]}
        cells = [metric["name"]]
        for system in systems:
            row = by_system[system]
            cell = format_value(row["value"])
            if system != reference:
                cell += (
                    f" {MARKS[row['marker']]} {signed(row['delta'])} p{_p(row['p_holm'])} "
                    f"{row['wins']}/{row['ties']}/{row['losses']}"
                )
            cells.append(cell)
        rows.append(cells)
    return rows


def comparison_lines(data: Mapping[str, Any]) -> list[str]:
    """A heading, the aligned table and a legend."""
    systems = list(data["systems"])
    reference = shown_name(data["reference"])
    others = len(systems) - 1
    level = data.get("significance")
    heading = (
        f"{data.get('source') or 'golden set'} ({data.get('n_cases', 0)} cases, "
        f"k={data.get('k')}): {len(systems)} systems against {reference}"
    )
    cells = comparison_cells(data)
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    lines = [heading]
    for row in cells:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    how = data.get("test") or (
        f"one-sided paired sign-flip test, Holm-corrected over {others} system(s)"
    )
    test = (
        f"▲/▼ significantly better/worse than {reference} (p ≤ {level:g}, {how})"
        if level is not None
        else "significance=None: nothing marked, better() compares means only"
    )
    lines.append(f"{test}; Δ, p and wins/ties/losses per case against {reference}")
    return lines
