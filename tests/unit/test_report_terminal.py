"""The terminal summary as text: tables, statuses, deltas, the compact -q form."""

from __future__ import annotations

import re

import pytest
from report_data import sample_document

from pytest_ragcheck.report.terminal import format_delta, format_number, plain, render_summary


@pytest.fixture(scope="module")
def document():
    return sample_document()


def _block(text: str, test_name: str) -> list[str]:
    """The lines of one test's table, title included."""
    lines = text.splitlines()
    start = next(
        i for i, line in enumerate(lines) if line.endswith(test_name) or f"::{test_name} " in line
    )
    end = next(i for i in range(start + 1, len(lines)) if not lines[i].strip())
    return lines[start:end]


def test_regressed_table(document):
    text = plain(render_summary(document))
    block = _block(text, "test_faq")
    assert block[0].startswith("REGRESSED")
    assert "tests/test_search.py::test_faq  golden/faq.jsonl (12 cases, k=10)" in block[0]
    assert block[1].split() == ["metric", "value", "baseline", "Δ", "allowed", "status"]
    test = next(t for t in document["tests"] if t["nodeid"].endswith("test_faq"))
    mrr = next(m for m in test["metrics"] if m["name"] == "mrr@10")
    row = next(line for line in block if line.strip().startswith("mrr@10"))
    assert row.split() == [
        "mrr@10",
        f"{mrr['value']:.3f}",
        f"{mrr['baseline']:.3f}",
        f"−{abs(mrr['delta']):.3f}",
        "0.020",
        "regressed",
        "(p=0.003)",
    ]
    latency = next(line for line in block if line.strip().startswith("latency_p95_ms"))
    assert latency.split() == ["latency_p95_ms", "23.4", "-", "-", "-", "pass"]


def test_columns_are_aligned(document):
    text = plain(render_summary(document))
    block = _block(text, "test_smoke")
    header, rows = block[1], block[2:]
    # Right-aligned numeric columns end where their header ends.
    for column in ("value", "baseline", "allowed"):
        end = header.index(column) + len(column)
        for row in rows:
            assert row[end - 1] != " ", (column, row)
            assert row[end] == " ", (column, row)


def test_floor_table_without_baseline_columns(document):
    block = _block(plain(render_summary(document)), "test_manual")
    assert block[0].startswith("BELOW FLOOR")
    assert block[1].split() == ["metric", "value", "threshold", "status"]
    row = next(line for line in block if line.strip().startswith("recall@5"))
    assert row.split() == ["recall@5", "0.563", "≥", "0.600", "below", "floor"]


def test_error_test_shows_the_problem(document):
    block = _block(plain(render_summary(document)), "test_flaky_api")
    assert block[0].startswith("FAILED ")  # pytest's word for it
    assert any(line.startswith("  ! The retriever failed on 2 of 5 case(s)") for line in block)


def test_improvements_listed_with_the_update_hint(document):
    text = plain(render_summary(document))
    # The hint re-records exactly the improved test that passed, never the regressed one.
    assert (
        'Improved beyond tolerance — to record it: pytest "tests/test_search.py::test_support" '
        "--snapshot-update" in text
    )
    improved = re.search(r"test_support  ndcg@10 0\.700 → (\d\.\d{3}) \(\+(\d\.\d{3})\)", text)
    assert improved is not None
    assert float(improved.group(1)) - 0.700 == pytest.approx(float(improved.group(2)), abs=1e-3)
    assert text.splitlines()[-1] == (
        "ragcheck: 5 tests — 1 regressed, 1 below floor, 1 failed, 1 improved, 1 passed"
    )


def test_compact_form_is_one_line_per_test(document):
    lines = plain(render_summary(document, verbosity=-1)).splitlines()
    per_test = [
        line
        for line in lines
        if "tests/test_search.py::" in line and "→" not in line and "to record it" not in line
    ]
    assert len(per_test) == 5
    faq = next(line for line in per_test if "test_faq" in line)
    assert re.search(r"mrr@10 \d\.\d{3} \(−\d\.\d{3}, allowed 0\.020\)", faq)
    assert "recall@10" not in faq  # passing metrics of a failing test are left out
    support = next(line for line in per_test if "test_support" in line)
    assert re.search(r"ndcg@10 \d\.\d{3} \(improved \+\d\.\d{3}\)$", support)
    smoke = next(line for line in per_test if "test_smoke" in line)
    assert "hit_rate@10 0.750 · mrr@10 0.625" in smoke
    assert "latency" not in smoke


def test_markup_colours_failing_statuses(document):
    lines = render_summary(document, markup=True)
    regressed_cells = [
        (text, markup) for line in lines for text, markup in line if text.startswith("regressed")
    ]
    assert regressed_cells
    assert all(markup.get("red") for _, markup in regressed_cells)
    titles = [line[0] for line in lines if line and line[0][0].startswith("PASSED")]
    assert titles[0][1] == {"green": True, "bold": True}
    # Without markup nothing asks for colour.
    assert not any(v for line in render_summary(document) for _, m in line for v in m.values())


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [("mrr@10", 0.5, "0.500"), ("latency_p95_ms", 12.345, "12.3"), ("mrr@10", None, "-")],
)
def test_format_number(name, value, expected):
    assert format_number(name, value) == expected


def test_format_delta():
    assert format_delta("mrr@10", -0.0344) == "−0.034"
    assert format_delta("mrr@10", 0.01) == "+0.010"
    assert format_delta("latency_p50_ms", -3.25) == "−3.2"
    assert format_delta("mrr@10", None) == "-"


def test_long_notes_wrap_under_their_label_instead_of_being_cut() -> None:
    from pytest_ragcheck.report.terminal import _note_lines

    note = "retriever returned at most 2 hits; metrics @10 are computed on 2; " + "x " * 40 + "end"
    lines = _note_lines(note + "\nsecond line")
    assert lines[0].startswith("  note: retriever returned at most 2 hits;")
    assert all(line.startswith("        ") for line in lines[1:])
    assert lines[-1].endswith("end")
    assert " ".join(line.strip() for line in lines) == "note: " + note
