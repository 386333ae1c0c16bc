"""Markdown report and GitHub job summary: order, escaping, the 1 MiB limit, appending."""

from __future__ import annotations

import re

import pytest
from report_data import NODE, passed_record, sample_document

from pytest_ragcheck.report.document import build_document
from pytest_ragcheck.report.files import append_github_summary
from pytest_ragcheck.report.markdown import (
    GITHUB_SUMMARY_LIMIT,
    cell,
    render_github_summary,
    render_markdown,
)


@pytest.fixture(scope="module")
def document():
    return sample_document()


def _overview_rows(text: str) -> list[list[str]]:
    lines = text.splitlines()
    start = lines.index("| Status | Test | Golden set | Metrics |")
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("| "):
            break
        rows.append([c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]])
    return rows


def test_markdown_overview_regressions_first(document):
    text = render_markdown(document)
    assert text.startswith("# ragcheck report\n")
    rows = _overview_rows(text)
    assert [r[1] for r in rows] == [
        f"`{NODE}test_faq`",
        f"`{NODE}test_manual`",
        f"`{NODE}test_flaky_api`",
        f"`{NODE}test_support`",
        f"`{NODE}test_smoke`",
    ]
    assert rows[0][0] == "❌ regressed"
    assert re.fullmatch(
        r"\*\*mrr@10\*\* \d\.\d{3} → \*\*\d\.\d{3}\*\* \(−\d\.\d{3}, allowed 0\.020, p=0\.003\)",
        rows[0][3],
    )
    assert rows[1][3] == "**recall@5 0.563** &lt; 0.600"  # 0.5625 rounds half-up
    assert re.fullmatch(r"ndcg@10 0\.700 → 0\.767 \(improved \+0\.067\)", rows[3][3])
    assert rows[4][3] == "hit_rate@10 0.750 · mrr@10 0.625"


def test_markdown_sections_have_metric_tables_and_worst_cases(document):
    text = render_markdown(document)
    faq = text[text.index(f"## ❌ `{NODE}test_faq`") :]
    faq = faq[: faq.index("\n## ")]
    assert "| metric | value | baseline | Δ | allowed | status |" in faq
    assert re.search(
        r"\| mrr@10 \| \d\.\d{3} \| \d\.\d{3} \| −\d\.\d{3} \| 0\.020 \| \*\*regressed\*\*", faq
    )
    assert "Cases that got worse most (mrr@10):" in faq
    worst = re.findall(r"^\| `(q\d\d)` \|", faq, flags=re.M)
    assert len(worst) == 3
    manual = text[text.index(f"## ❌ `{NODE}test_manual`") :]
    assert "| metric | value | threshold | status |" in manual  # baseline=False: no columns
    assert "Lowest-scoring cases (recall@5):" in manual
    # Last, after every regression, naming only the improved test that passed.
    assert text.rstrip().endswith(
        '📈 Improved beyond tolerance; to record it: `pytest "tests/test_search.py::test_support" '
        "--snapshot-update`"
    )


def test_cells_are_escaped():
    assert cell("a|b\nc") == "a\\|b c"
    assert cell("<script>") == "&lt;script>"
    record = passed_record(NODE + "test_x[a|b]")
    text = render_markdown(build_document([record], run={}))
    row = _overview_rows(text)[0]
    assert len(row) == 4
    assert row[1] == f"`{NODE}test_x[a\\|b]`"


def test_github_summary_fits_its_budget_and_says_what_it_cut():
    records = [passed_record(f"{NODE}test_{i:04d}") for i in range(300)]
    document = build_document(records, run={})
    full = render_github_summary(document, budget=GITHUB_SUMMARY_LIMIT)
    assert "Output cut" not in full
    size = len(full.encode())
    assert full.count("<details") == 300
    for budget in (size - 1, size // 2, 40_000, 5_000, 600):
        text = render_github_summary(document, budget=budget)
        assert 0 < len(text.encode()) <= budget
        assert text.startswith("### ragcheck: 300 tests: 300 passed")
        assert "Output cut to stay under GitHub's 1 MiB job summary limit" in text
    cut_details = render_github_summary(document, budget=size // 2)
    assert len(_overview_rows(cut_details)) == 300  # details go before rows
    kept = cut_details.count("<details")
    assert 0 < kept < 300
    assert f"details of {300 - kept} of 300 tests left out" in cut_details
    cut_rows = render_github_summary(document, budget=5_000)
    assert "<details" not in cut_rows
    listed = len(_overview_rows(cut_rows))
    assert f"{300 - listed} of 300 tests not listed" in cut_rows
    assert render_github_summary(document, budget=50) == ""


def test_github_summary_keeps_failing_details_when_cutting(document):
    size = len(render_github_summary(document, budget=GITHUB_SUMMARY_LIMIT).encode())
    text = render_github_summary(document, budget=size - 10)
    assert text.count("<details") == 4  # the passing test's details went first
    assert "<details open><summary>❌ regressed" in text
    assert "✅ passed: " not in text.split("</details>")[-1]


def test_append_keeps_existing_content(tmp_path, document):
    path = tmp_path / "summary.md"
    path.write_text("## Build\nall good\n", encoding="utf-8")
    written = append_github_summary(path, document)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("## Build\nall good\n\n### ragcheck: 5 tests:")
    assert written == len(text.encode()) - len(b"## Build\nall good\n")
    append_github_summary(path, document)
    assert path.read_text(encoding="utf-8").count("### ragcheck:") == 2


def test_append_respects_the_limit_with_existing_content(tmp_path):
    records = [passed_record(f"{NODE}test_{i:04d}") for i in range(300)]
    document = build_document(records, run={})
    path = tmp_path / "summary.md"
    path.write_bytes(b"x" * 20_000)
    append_github_summary(path, document, limit=60_000)
    size = path.stat().st_size
    assert size <= 60_000
    assert "Output cut" in path.read_text(encoding="utf-8")
    with pytest.raises(OSError, match="no room left"):
        append_github_summary(path, document, limit=size + 10)
    assert path.stat().st_size == size


def test_markdown_report_stays_under_one_mebibyte_at_any_size(document):
    one = document["tests"][0]
    many = [
        {**one, "nodeid": f"{one['nodeid']}[{i}]", "problems": ["what failed\n" + "x" * 4000]}
        for i in range(400)
    ]
    text = render_markdown({**document, "tests": many})
    assert len(text.encode("utf-8")) <= 1024 * 1024
    kept = text.count("\n## ")
    assert 0 < kept < len(many)
    assert f"> {len(many) - kept} of {len(many)} test sections left out to stay under 1 MiB" in text
    assert text.endswith("\n")
    # a small report is whole
    assert "left out" not in render_markdown(document)
