"""The user documentation read literally: its links land, its reference is complete, and
the examples a user copies into files work as written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import pytest_ragcheck
from pytest_ragcheck.evaluation.settings import MARKER_KEYWORDS
from pytest_ragcheck.plugin.specs import OPTION_SPECS

ROOT = Path(__file__).resolve().parents[2]
PAGES = (ROOT / "README.md", ROOT / "example_suite" / "README.md", *sorted(ROOT.glob("docs/*.md")))
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\]\(([^)\s]+)\)")
JSON_BLOCK = re.compile(r"^```json\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#+ (.*)$", FENCE.sub("", page.read_text()), re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return found


def _page_text(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def test_links_between_pages_reach_an_existing_file_and_heading() -> None:
    broken = []
    for page in PAGES:
        for link in LINK.findall(page.read_text(encoding="utf-8")):
            if link.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, anchor = link.partition("#")
            target = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(ROOT)}: ({link})"
            if not target.exists():
                broken.append(f"{where}: no file {path}")
            elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
                broken.append(f"{where}: no heading #{anchor}")
    assert not broken, "\n".join(broken)


def test_every_marker_keyword_option_and_ini_key_is_in_the_usage_reference() -> None:
    usage = _page_text("docs/usage.md")
    missing = [kw for kw in MARKER_KEYWORDS if f"`{kw}`" not in usage]
    for spec in OPTION_SPECS:
        if f"`{spec.dest}`" not in usage:
            missing.append(spec.dest)
        if spec.flag and f"`{spec.flag_name}" not in usage:
            missing.append(spec.flag_name)
    assert not missing, f"not in docs/usage.md: {missing}"


def test_every_public_name_is_documented() -> None:
    text = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
    missing = [name for name in pytest_ragcheck.__all__ if name not in text]
    assert not missing, f"pytest_ragcheck.__all__ names no page mentions: {missing}"


def _golden_examples() -> list[tuple[str, str]]:
    """Every JSON block that shows golden cases: what a user pastes into a .jsonl file."""
    found = []
    for page in PAGES:
        for block in JSON_BLOCK.findall(page.read_text(encoding="utf-8")):
            if block.startswith(('{"id"', '{"query"')):
                found.append((str(page.relative_to(ROOT)), block))
    return found


def test_golden_case_examples_are_one_jsonl_line_each() -> None:
    examples = _golden_examples()
    assert examples
    for page, block in examples:
        for line in block.splitlines():
            if line.strip():
                try:
                    case = json.loads(line)
                except json.JSONDecodeError as error:
                    pytest.fail(f"{page}: {line!r} is not one JSONL line: {error}")
                assert isinstance(case, dict), (page, line)
                assert "query" in case, (page, line)


def test_the_reference_answer_case_of_answers_md_runs_as_written(suite) -> None:
    # docs/answers.md showed this case over three lines: pasted into a .jsonl file, every
    # line was a "malformed JSON" error.
    section = _page_text("docs/answers.md").split("## Golden cases: reference answers", 1)[1]
    block = JSON_BLOCK.search(section)
    assert block is not None
    suite.write("golden/faq.jsonl", block.group(1))
    suite.retriever(
        extra="""
        @pytest.fixture
        def pipeline():
            def answer(query):
                text = "Paris is the capital of France."
                return {"answer": "Paris.", "contexts": [{"id": "d12", "text": text}]}

            return answer
        """
    )
    suite.test("""
        from pytest_ragcheck import ragcheck
        @ragcheck("golden/faq.jsonl", k=5, metrics=["recall", "token_f1"], baseline=False)
        def test_rag(ragcheck, pipeline):
            result = ragcheck(pipeline)
            assert result["token_f1"] == 1.0
            assert result["recall@5"] == 1.0
        """)
    result = suite.run()
    result.assert_outcomes(passed=1)
    suite.assert_clean(result)
