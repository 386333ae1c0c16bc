"""The copy-paste fixtures of docs/golden-and-retrievers.md, run as they are written.

Each framework's section has a ``conftest.py`` and a ``test_retrieval.py`` block; they are
written into a project with a ``myapp.search`` module (the Cranfield corpus and the
deterministic embedding) and run for real: recorded twice with ``--snapshot-update`` (the
baselines must be byte-identical), then checked (Haystack's under ``-n 2``).
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from corpus import cases

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "golden-and-retrievers.md"

#: ``myapp/search.py``: what the fixtures import from "your" project.
SEARCH = """
import sys

sys.path[:0] = [{tests!r}, {frameworks!r}]

from corpus import collection, {adapters}


def load_documents():
    return list(collection().corpus.items())

{models}
"""

FRAMEWORKS = {
    "LangChain": ("langchain_core", {"embeddings": "langchain_embeddings"}, []),
    "LlamaIndex": ("llama_index.core", {"embed_model": "llamaindex_embedding"}, []),
    "Haystack": ("haystack", {}, ["-n", "2"]),
}


def doc_files(section: str) -> dict[str, str]:
    """The ``python`` code blocks of one ``### section``, by the file name on their first line."""
    text = DOCS.read_text(encoding="utf-8")
    body = text.split(f"\n### {section}\n", 1)[1]
    body = re.split(r"\n#{2,3} ", body, maxsplit=1)[0]
    files = {}
    for block in re.findall(r"```python\n(.*?)```", body, re.S):
        first, _, _ = block.partition("\n")
        files[first.removeprefix("# ").strip()] = block
    return files


@pytest.mark.parametrize("section", list(FRAMEWORKS))
def test_the_documented_fixture_runs(suite, section):
    module, models, mode = FRAMEWORKS[section]
    pytest.importorskip(
        module, reason=f"{section} tests need the frameworks extra: pip install -e '.[frameworks]'"
    )
    files = doc_files(section)
    assert set(files) == {"conftest.py", "test_retrieval.py"}
    tests = Path(__file__).resolve().parent
    suite.write("myapp/__init__.py", "")
    suite.write(
        "myapp/search.py",
        SEARCH.format(
            tests=str(tests.parent),
            frameworks=str(tests),
            adapters=", ".join(models.values()) or "collection as _",
            models="\n".join(f"{name} = {fn}()" for name, fn in models.items()),
        ),
    )
    suite.golden(cases(15))
    for name, source in files.items():
        suite.write(name, textwrap.dedent(source))

    recorded = []
    for _ in range(2):
        result = suite.run("--snapshot-update", "-p", "no:xdist")
        result.assert_outcomes(passed=1)
        recorded.append(suite.snapshots())
    assert recorded[0] == recorded[1]
    assert len(recorded[0]) == 1

    result = suite.run(*mode, "--ragcheck-report=report.json")
    result.assert_outcomes(passed=1)
    suite.assert_clean(result)
    (entry,) = suite.read_json("report.json")["tests"]
    assert entry["aggregates"]["mrr@10"] > 0.3  # the documents' own ids were read
    assert all(len(case["hits"]) == 20 for case in entry["cases"])  # asked for recall@20
    assert [n for n in entry["notes"] if not n.startswith("concurrency auto → ")] == []
    result.stdout.fnmatch_lines(
        ["*test_retrieval.py::test_retrieval*", "*note: concurrency auto → *"]
    )
