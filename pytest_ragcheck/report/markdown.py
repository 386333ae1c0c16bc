"""Markdown: the ``.md`` report and the GitHub Actions job summary.

Both lead with one table of every test, regressions first, so the reason a pull request is
red is the first thing on the page; details per test follow.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import accumulate
from typing import Any

from pytest_ragcheck.common.display import shorten
from pytest_ragcheck.common.sorting import natural_key
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
from pytest_ragcheck.report.labels import FAILING, ICONS, TEST_STATUSES, p_words, word
from pytest_ragcheck.report.packing import ESCAPE
from pytest_ragcheck.report.terminal import detectable_text, improved_nodeids

__all__ = ["GITHUB_SUMMARY_LIMIT", "render_github_summary", "render_markdown"]

#: GitHub rejects a job summary larger than 1 MiB per step.
GITHUB_SUMMARY_LIMIT = 1024 * 1024
#: Cases listed per test in the Markdown outputs.
WORST_CASES = 5


def cell(text: object) -> str:
    """Text safe inside a Markdown table cell (one line, pipes escaped, no HTML or entity)."""
    flat = " ".join(str(text).split())
    return flat.replace("\\", "\\\\").replace("|", "\\|").replace("&", "&amp;").replace("<", "&lt;")


#: Characters that would format a user's text (``__init__`` in bold, ``[a](b)`` a link).
_FORMATTING = re.compile(r"([`*_\[\]~])")


def literal(text: object) -> str:
    """A user's text (a query, an answer, document ids) in a table cell, shown as written:
    :func:`cell`, with Markdown's formatting characters escaped too."""
    return _FORMATTING.sub(r"\\\1", cell(text))


def code(text: str, *, in_table: bool = True) -> str:
    """Inline code that shows ``text`` as written, on one line, whatever backticks it holds.

    Nothing is escaped inside code (``&lt;`` or ``\\\\`` would show as typed), except a pipe
    in a table cell, which GitHub's tables read as ``\\|`` even there.
    """
    flat = " ".join(str(text).split())
    if in_table:
        flat = flat.replace("|", "\\|")
    ticks = max((len(run) for run in re.findall("`+", flat)), default=0)
    fence = "`" * (ticks + 1)
    pad = " " if ticks else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def _name(test: Mapping[str, Any]) -> str:
    return str(test["nodeid"]) + (f" [call {test['call'] + 1}]" if test.get("call") else "")


def _status(test: Mapping[str, Any]) -> str:
    return f"{ICONS.get(test['status'], '')} {word(test['status'])}"


def _metric_change(m: Mapping[str, Any]) -> str:
    name = m["name"]
    value = format_number(name, current(m))
    if m["status"] == "improved":
        return (
            f"{name} {format_number(name, m.get('baseline'))} → {value} "
            f"(improved {format_delta(name, m.get('delta'))}{basis_short(m)})"
        )
    if m["status"] == "regressed":
        parts = [format_delta(name, m.get("delta"))]
        if m.get("allowed") is not None:
            parts.append(f"allowed {format_number(name, m['allowed'])}")
        if basis_short(m):
            parts.append("tolerance alone")
        elif m.get("p_value") is not None:
            parts.append(p_words(m["p_value"], m.get("holm_over")))
        return (
            f"**{name}** {format_number(name, m.get('baseline'))} → **{value}** "
            f"({', '.join(parts)})"
        )
    if m["status"] in ("below_floor", "above_ceiling"):
        op = "<" if m["status"] == "below_floor" else ">"
        return f"**{name} {value}** {op} {format_number(name, m.get('bound'))}"
    return f"{name} {value}"


def changes(test: Mapping[str, Any]) -> str:
    """What a reader needs from one test in one cell: the failing metrics, else all values."""
    shown = headline_metrics(test["metrics"])
    text = " · ".join(_metric_change(m) for m in shown) + shared_suffix(shown)
    if test.get("problems"):
        first = test["problems"][0].strip().splitlines()[0] if test["problems"][0].strip() else ""
        text = (text + " · " if text else "") + f"**{first}**"
    return cell(text) if text else "-"


def overview(tests: Sequence[Mapping[str, Any]]) -> list[str]:
    """One row per test, regressions first."""
    rows = ["| Status | Test | Golden set | Metrics |", "|---|---|---|---|"]
    for test in sort_for_attention(tests):
        source = test.get("header") or test.get("source") or ""
        rows.append(f"| {_status(test)} | {code(_name(test))} | {cell(source)} | {changes(test)} |")
    return rows


def counts_text(tests: Sequence[Mapping[str, Any]], *, comparisons: int = 0) -> str:
    """``"3 tests: 2 passed, 1 regressed"``, and how many ``ragcheck.compare`` tables follow
    (a run that only compared ran no gated test, but it did run)."""
    counts = {s: sum(1 for t in tests if t["status"] == s) for s in TEST_STATUSES}
    parts = [f"{n} {word(s)}" for s, n in counts.items() if n]
    noun = "test" if len(tests) == 1 else "tests"
    text = f"{len(tests)} {noun}: " + ", ".join(parts) if tests else "no gated ragcheck test ran"
    if comparisons:
        text += f" · {comparisons} comparison{'' if comparisons == 1 else 's'}"
    elif not tests:
        text = "no ragcheck test ran"
    return text


def metric_table(test: Mapping[str, Any]) -> list[str]:
    """Every metric of a test; baseline columns unless baselines are off, thresholds if set."""
    metrics, held = quiet_rows(test["metrics"])
    head, table = metric_columns({**test, "metrics": metrics})
    head.append("status")
    align = ["---", *["--:"] * (len(head) - 2), "---"]
    rows = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    for m, cells in zip(metrics, table, strict=True):
        cells[0] = cell(cells[0])
        status = status_text({**m, "note": cell(m.get("note") or "")}, emphasis="**")
        cells.append(status)
        rows.append("| " + " | ".join(cells) + " |")
    if held:  # every row is in the JSON report
        rows += ["", f"{held} (the JSON report has every row)"]
    return rows


def case_lines(test: Mapping[str, Any]) -> list[str]:
    """The cases that got worse most against the baseline, else the lowest-scoring ones."""
    case_changes = test.get("case_changes") or []
    if case_changes:
        metric = case_changes[0]["metric"]
        rows = [
            f"Cases that got worse most ({cell(metric)}):",
            "",
            "| case | query | before | after | what changed |",
            "|---|---|--:|--:|---|",
        ]
        for change in case_changes[:WORST_CASES]:
            rows.append(
                f"| {code(str(change['id']))} | {literal(shorten(change['query'], 80))} | "
                f"{format_number(metric, change.get('before'))} | "
                f"{format_number(metric, change.get('after'))} | "
                f"{literal('; '.join(change.get('explain') or []))} |"
            )
        return rows
    failing = [m for m in test["metrics"] if m["status"] == "below_floor"]
    if not failing:
        return []
    metric = failing[0]["name"]
    scored = [c for c in test.get("cases") or [] if (c.get("values") or {}).get(metric) is not None]
    scored.sort(key=lambda c: (c["values"][metric], natural_key(str(c["id"]))))
    if not scored:
        return []
    answers = any(c.get("answer") is not None for c in scored[:WORST_CASES])
    rows = [
        f"Lowest-scoring cases ({cell(metric)}):",
        "",
        "| case | query | value |" + (" answer |" if answers else ""),
        "|---|---|--:|" + ("---|" if answers else ""),
    ]
    for case in scored[:WORST_CASES]:
        answer = f" {literal(shorten(case.get('answer') or '', 120))} |" if answers else ""
        rows.append(
            f"| {code(str(case['id']))} | {literal(shorten(case['query'], 80))} | "
            f"{format_number(metric, case['values'][metric])} |{answer}"
        )
    return rows


def _details_body(test: Mapping[str, Any]) -> list[str]:
    lines = [*metric_table(test)]
    cases = case_lines(test)
    if cases:
        lines += ["", *cases]
    for problem in test.get("problems") or []:
        lines += ["", "```", problem.replace("```", "'''"), "```"]
    for note in test.get("notes") or []:
        lines += ["", f"> {cell(note)}"]
    detectable = detectable_text(test)
    if detectable:
        lines += ["", f"> {cell(detectable)}"]
    return lines


def _improvement_hint(tests: Sequence[Mapping[str, Any]]) -> list[str]:
    """Last, and only for tests that passed: re-recording must never accept a regression."""
    nodeids = improved_nodeids(tests)
    if not nodeids:
        return []
    command = code(update_command(nodeids), in_table=False)
    return ["", f"📈 Improved beyond tolerance; to record it: {command}"]


def render_markdown(document: Mapping[str, Any], *, limit: int = GITHUB_SUMMARY_LIMIT) -> str:
    """The ``.md`` report: overview table, then a section per test (failing ones first).

    At most ``limit`` UTF-8 bytes (GitHub's 1 MiB, so the file can be posted as a job summary
    or a comment): past it, the remaining test sections are left out and a note says how many.
    """
    tests: Sequence[Mapping[str, Any]] = document["tests"]
    run = document.get("run") or {}
    lines = [
        "# ragcheck report",
        "",
        f"{counts_text(tests, comparisons=len(document.get('comparisons') or []))} · "
        f"{cell(run.get('generator', ''))} · {cell(run.get('created_at', ''))}",
    ]
    if run.get("incomplete"):
        lines += [
            "",
            f"> ⚠️ Incomplete run: {literal(str(run['incomplete']))}; only the tests that ran "
            "are listed.",
        ]
    if tests:
        lines += ["", *overview(tests)]
    head = "\n".join(lines)
    tail = (
        "".join("\n" + line for line in [*_improvement_hint(tests), *comparison_markdown(document)])
        + "\n"
    )
    sections = [_section(test) for test in sort_for_attention(tests)]
    used = _size(head) + _size(tail) + _NOTE_ROOM
    kept = 0
    for section in sections:
        if used + _size(section) > limit:
            break
        used += _size(section)
        kept += 1
    note = ""
    if kept < len(sections):
        note = (
            f"\n\n> {len(sections) - kept} of {len(sections)} test sections left out to stay "
            "under 1 MiB; the JSON report (--ragcheck-report=report.json) has every test."
        )
    text = head + "".join(sections[:kept]) + note + tail
    if _size(text) > limit:  # an overview table alone past the limit: cut it too
        cut = text.encode("utf-8", ESCAPE)[: limit - _NOTE_ROOM].decode("utf-8", "ignore")
        text = cut.rsplit("\n", 1)[0] + "\n\n> Report cut at 1 MiB; see the JSON report.\n"
    return text


#: Bytes kept for the note that says what was left out.
_NOTE_ROOM = 512


def _size(text: str) -> int:
    return len(text.encode("utf-8", ESCAPE))


def _section(test: Mapping[str, Any]) -> str:
    lines = [
        "",
        f"## {ICONS.get(test['status'], '')} {code(_name(test), in_table=False)}: "
        f"{word(test['status'])}",
        "",
        cell(test.get("header") or test.get("source") or ""),
        "",
        *_details_body(test),
    ]
    return "".join("\n" + line for line in lines)


def comparison_markdown(document: Mapping[str, Any]) -> list[str]:
    """A table per ``ragcheck.compare(...)``: metrics as rows, systems as columns."""
    from pytest_ragcheck.explore.table import comparison_cells, comparison_lines

    lines: list[str] = []
    for data in document.get("comparisons") or []:
        rows = comparison_cells(data)
        text = comparison_lines(data)
        heading = f"## Compared: {code(str(data['nodeid']), in_table=False)}"
        lines += ["", heading, "", cell(text[0]), ""]
        lines.append("| " + " | ".join(cell(c) for c in rows[0]) + " |")
        lines.append("|---" * len(rows[0]) + "|")
        lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows[1:]]
        lines += ["", cell(text[-1])]
    return lines


def _details(test: Mapping[str, Any]) -> str:
    failing = test["status"] in FAILING
    summary = f"{_status(test)}: {cell(_name(test))}"
    body = "\n".join(_details_body(test))
    return (
        f"<details{' open' if failing else ''}><summary>{summary}</summary>\n\n{body}\n\n"
        "</details>\n"
    )


def render_github_summary(document: Mapping[str, Any], *, budget: int) -> str:
    """The job-summary section, at most ``budget`` UTF-8 bytes ("" when nothing fits).

    Past the budget the per-test details go first (passing tests before failing ones), then
    overview rows from the bottom; a note says what was left out. ``ragcheck.compare`` tables
    (a few rows each) are always kept.
    """
    tests = sort_for_attention(document["tests"])
    compared = len(document.get("comparisons") or [])
    head = [f"### ragcheck: {counts_text(tests, comparisons=compared)}", ""]
    rows = overview(tests) if tests else []
    hint = [*_improvement_hint(tests), *comparison_markdown(document)]
    details = [_details(t) for t in tests]
    n = len(tests)

    def size(text: str) -> int:
        return len(text.encode("utf-8", ESCAPE))

    # Prefix sums of sizes (each row or block plus its newline), so trimming stays linear.
    row_sizes = [0, *accumulate(size(r) + 1 for r in rows)]
    detail_sizes = [0, *accumulate(size(d) + 1 for d in details)]
    fixed = sum(size(p) + 1 for p in (*head, *hint)) + 2

    def note_parts(note: str) -> list[str]:
        return ["", f"> {note}"] if note else []

    def measure(n_rows: int, n_details: int, note: str) -> int:
        return (
            fixed
            + row_sizes[min(2 + n_rows, len(rows))]
            + sum(size(p) + 1 for p in note_parts(note))
            + detail_sizes[n_details]
        )

    def compose(n_rows: int, n_details: int, note: str) -> str:
        parts = [*head, *rows[: 2 + n_rows], *note_parts(note), *hint]
        return "\n".join(parts) + "\n\n" + "\n".join(details[:n_details])

    if measure(n, n, "") <= budget:
        return compose(n, n, "")
    cut = (
        "Output cut to stay under GitHub's 1 MiB job summary limit: {what}. "
        "The full results are in the --ragcheck-report file."
    )
    for kept in range(n - 1, -1, -1):
        note = cut.format(what=f"details of {n - kept} of {n} tests left out")
        if measure(n, kept, note) <= budget:
            return compose(n, kept, note)
    for kept in range(n - 1, -1, -1):
        note = cut.format(what=f"{n - kept} of {n} tests not listed")
        if measure(kept, 0, note) <= budget:
            return compose(kept, 0, note)
    return ""
