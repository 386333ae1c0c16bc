"""The integration-test harness: a user's project in a pytester folder, and what its runs leave.

The fixtures live in ``tests/conftest.py``: ``suite`` (a :class:`Suite`) and ``run_mode``
(``[]`` for one process, ``["-n", "2"]`` for two pytest-xdist workers). A typical test::

    from harness import ragcheck_module

    def test_floor(suite, run_mode):
        suite.make(ragcheck_module('"golden.jsonl", k=2, baseline=False, min_mrr=0.5'))
        result = suite.run(*run_mode)
        result.assert_outcomes(passed=1)
        suite.assert_clean(result)          # no traceback, no frame from inside the plugin

``suite.make`` writes ``golden.jsonl`` (``Suite.GOLDEN`` or the given cases), a ``conftest.py``
with a ``retriever`` fixture (``Suite.PERFECT`` or the given rankings) and the test module.
Runs are in-process (``pytester.runpytest``), which also works with xdist since its workers
are subprocesses. Write ``baseline=False`` in markers unless the test is about baselines: a
test without a stored baseline fails (syrupy's behaviour). For baselines: ``update_baselines``
records them, ``rebaseline(before, after)`` records them with one ranking and switches the
retriever to another, ``snapshots`` reads the stored files; ``read_json`` reads a report or a
baseline, ``junit_properties`` a --junitxml file.
"""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from bm25 import BM25, Collection, load_cranfield

__all__ = [
    "HEAVY",
    "REGRESSED_FLOOR_PLAIN",
    "RUN_MODES",
    "SERIAL_ONLY",
    "Suite",
    "cranfield_index",
    "cranfield_slice",
    "ragcheck_module",
]

#: Parameters for ``run_mode``: one process, and two pytest-xdist workers (``slow``: the
#: workers are fresh interpreters, about 3 s of CPU per session).
RUN_MODES = (
    pytest.param([], id="serial"),
    pytest.param(["-n", "2"], id="xdist", marks=pytest.mark.slow),
)

#: For a test that takes ``run_mode`` but only needs one process: its behaviour does not cross
#: processes, and a comment above it names the test that covers its path under pytest-xdist.
SERIAL_ONLY = pytest.mark.parametrize("run_mode", [pytest.param([], id="serial")])

#: Modules that importing the plugin, or a session without ragcheck tests, must not load.
HEAVY = ("numpy", "pydantic", "pydantic_core", "syrupy", "litellm", "httpx", "openai", "pandas")

#: Three tests that, after ``suite.rebaseline(suite.PERFECT, suite.WORSE)``, end regressed,
#: below a floor and passed.
REGRESSED_FLOOR_PLAIN = """
from pytest_ragcheck import ragcheck
@ragcheck("golden.jsonl", metrics=["mrr", "recall@1"])
def test_regressed(ragcheck, retriever):
    ragcheck(retriever)

@ragcheck("golden.jsonl", baseline=False, min_recall_at_1=0.9)
def test_floor(ragcheck, retriever):
    ragcheck(retriever)

@ragcheck("golden.jsonl", baseline=False, metrics=["hit_rate"])
def test_plain(ragcheck, retriever):
    ragcheck(retriever)
"""


def ragcheck_module(
    marker: str = '"golden.jsonl"',
    *,
    function: str = "test_rag",
    body: str = "ragcheck(retriever)",
    extra: str = "",
) -> str:
    """The source of a test module with one ragcheck test.

    ``marker`` is the argument list of ``@ragcheck(...)`` as source text; the test takes the
    ``ragcheck`` and ``retriever`` fixtures and runs ``body``; ``extra`` is appended.
    """
    return (
        "from pytest_ragcheck import ragcheck\n\n"
        f"@ragcheck({marker})\n"
        f"def {function}(ragcheck, retriever):\n"
        + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
        + "\n"
        + textwrap.dedent(extra)
    )


@functools.cache
def cranfield_index() -> tuple[Collection, BM25]:
    """The Cranfield collection and its BM25 index, built once per session."""
    collection = load_cranfield()
    return collection, BM25(collection.corpus)


def cranfield_slice(
    queries: int, *, k: int = 10
) -> tuple[list[dict[str, Any]], dict[str, list[list[Any]]]]:
    """The first ``queries`` Cranfield queries as golden cases (graded relevance), and their
    BM25 top ``k`` as ``[id, score]`` hits: arguments for ``suite.make(cases=, rankings=)``."""
    collection, index = cranfield_index()
    ids = list(collection.queries)[:queries]
    cases = [
        {"id": q, "query": collection.queries[q], "relevance": collection.qrels[q]} for q in ids
    ]
    rankings = {
        collection.queries[q]: [
            [doc, score] for doc, score in index.search(collection.queries[q], k).items()
        ]
        for q in ids
    }
    return cases, rankings


class Suite:
    """A user's project inside a pytester folder: golden set, retriever fixture, tests."""

    #: Four cases with one or two relevant documents each.
    GOLDEN: tuple[dict[str, Any], ...] = (
        {"id": "q1", "query": "what is alpha", "expected_ids": ["a"]},
        {"id": "q2", "query": "what is beta", "expected_ids": ["b"]},
        {"id": "q3", "query": "gamma and delta", "expected_ids": ["c", "d"]},
        {"id": "q4", "query": "what is epsilon", "expected_ids": ["e"]},
    )
    #: Rankings that put the relevant documents of GOLDEN first.
    PERFECT: Mapping[str, Sequence[Any]] = {
        "what is alpha": ["a", "x"],
        "what is beta": ["b", "x"],
        "gamma and delta": ["c", "d"],
        "what is epsilon": ["e", "x"],
    }

    #: PERFECT with the relevant documents of q1 and q4 pushed down (MRR@10 0.708,
    #: recall@1 0.375): a regression against baselines recorded with PERFECT.
    WORSE: Mapping[str, Sequence[Any]] = {
        "what is alpha": ["x", "a"],
        "what is beta": ["b", "x"],
        "gamma and delta": ["c", "d"],
        "what is epsilon": ["x", "y", "e"],
    }

    #: The ini every run starts from: warnings are errors, as in this project.
    BASE_INI: Mapping[str, str] = {
        "asyncio_default_fixture_loop_scope": "function",
        "filterwarnings": "error",
    }

    #: Arguments of every run. Plugins unrelated to ragcheck are left out: importing them
    #: costs each xdist worker about a second (langsmith's, installed with langchain-core,
    #: about two).
    ARGS: tuple[str, ...] = (
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",
        "-p",
        "no:anyio",
        "-p",
        "no:langsmith_plugin",
        "-rA",
    )

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.path: Path = pytester.path
        self.ini()

    # -- writing the project ------------------------------------------------------------

    def ini(self, **options: str) -> Path:
        """(Re)write ``pytest.ini``: BASE_INI plus ``options`` (e.g. ``ragcheck_tolerance="0.05"``)."""
        lines = [f"{key} = {value}" for key, value in {**self.BASE_INI, **options}.items()]
        return self.write("pytest.ini", "[pytest]\n" + "\n".join(lines) + "\n")

    def golden(
        self, cases: Iterable[Mapping[str, Any]] | None = None, name: str = "golden.jsonl"
    ) -> Path:
        """Write cases (default GOLDEN) as JSONL, or as a JSON list when ``name`` ends in .json."""
        items = [dict(c) for c in (self.GOLDEN if cases is None else cases)]
        if name.endswith(".json"):
            return self.write(name, json.dumps(items, indent=1))
        return self.write(name, "".join(json.dumps(c) + "\n" for c in items))

    def write(self, name: str, text: str) -> Path:
        """Write a raw file (e.g. a malformed golden set)."""
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def retriever(
        self, rankings: Mapping[str, Sequence[Any]] | None = None, *, extra: str = ""
    ) -> None:
        """Write ``conftest.py`` with a ``retriever`` fixture returning ``lookup(query)``.

        ``lookup`` returns ``rankings[query]`` (default PERFECT) as a list, or no hits for an
        unknown query. Hits must be JSON values (``[id, score]`` pairs arrive as lists); put
        other retrievers, fixtures or hooks in ``extra``, which is appended to the conftest.
        """
        data = json.dumps(json.dumps(self.PERFECT if rankings is None else rankings))
        source = textwrap.dedent(
            f"""
            import json

            import pytest

            RANKINGS = json.loads({data})


            def lookup(query):
                return list(RANKINGS.get(query, []))


            @pytest.fixture
            def retriever():
                return lookup
            """
        )
        self._forget_compiled()
        self.pytester.makeconftest(source + textwrap.dedent(extra))

    def test(self, source: str, name: str = "test_rag") -> Path:
        """Write a test module (dedented)."""
        self._forget_compiled()
        return self.pytester.makepyfile(**{name: textwrap.dedent(source)})

    def _forget_compiled(self) -> None:
        """Drop the project's compiled modules before one is rewritten: pytest 8 keys its
        assertion-rewrite cache by whole-second mtime and size (pytest 9 by source hash), so
        a conftest rewritten within the second with as many bytes ran the old code."""
        shutil.rmtree(self.pytester.path / "__pycache__", ignore_errors=True)

    def make(
        self,
        source: str,
        *,
        cases: Iterable[Mapping[str, Any]] | None = None,
        rankings: Mapping[str, Sequence[Any]] | None = None,
        extra: str = "",
        name: str = "test_rag",
    ) -> Path:
        """The whole project: ``golden(cases)``, ``retriever(rankings, extra=extra)`` and
        ``test(source, name)``; returns the test module's path."""
        self.golden(cases)
        self.retriever(rankings, extra=extra)
        return self.test(source, name)

    # -- running ------------------------------------------------------------------------

    def run(self, *args: str) -> pytest.RunResult:
        """Run pytest in-process in the folder (``-rA``; no cache provider)."""
        return self.pytester.runpytest(*self.ARGS, *args)

    def run_subprocess(self, *args: str) -> pytest.RunResult:
        """Run pytest in a fresh interpreter (for start-up and import checks)."""
        return self.pytester.runpytest_subprocess(*self.ARGS, *args)

    def spawn(self, *args: str) -> subprocess.Popen[bytes]:
        """Start pytest in the project, in a process group of its own (as a terminal's
        foreground job, which Ctrl-C signals whole); its output is on ``stdout``."""
        return subprocess.Popen(
            [sys.executable, "-m", "pytest", *self.ARGS, *args],
            cwd=self.path,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def update_baselines(
        self, rankings: Mapping[str, Sequence[Any]] | None = None, *args: str
    ) -> pytest.RunResult:
        """Record baselines (``--snapshot-update``, in one process), with ``rankings`` as the
        retriever when given; returns the run."""
        if rankings is not None:
            self.retriever(rankings)
        return self.run("--snapshot-update", "-p", "no:xdist", *args)

    def rebaseline(
        self, before: Mapping[str, Sequence[Any]], after: Mapping[str, Sequence[Any]]
    ) -> pytest.RunResult:
        """Record baselines with the ``before`` rankings, then make ``after`` the retriever's
        rankings for the runs that follow; returns the recording run."""
        result = self.update_baselines(before)
        self.retriever(after)
        return result

    # -- reading what the runs left -----------------------------------------------------

    def snapshots(self) -> dict[str, bytes]:
        """Every stored baseline file: path relative to the project (posix) -> bytes."""
        folder = self.path / "__ragcheck__"
        return {
            p.relative_to(self.path).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*"))
            if p.is_file()
        }

    def read_json(self, name: str | Path) -> Any:
        """A JSON file of the project (a report, a baseline), parsed."""
        return json.loads((self.path / name).read_text(encoding="utf-8"))

    def junit_properties(self, name: str | Path) -> dict[str | None, dict[str | None, str | None]]:
        """``<property>`` entries of a --junitxml file: test name -> {name: value}.

        Fails when a test has the same property twice.
        """
        found: dict[str | None, dict[str | None, str | None]] = {}
        for case in ET.parse(self.path / name).getroot().iter("testcase"):
            props = [(p.get("name"), p.get("value")) for p in case.iter("property")]
            found[case.get("name")] = dict(props)
            assert len(props) == len(found[case.get("name")]), f"duplicate property: {props}"
        return found

    @staticmethod
    def text(result: pytest.RunResult) -> str:
        """stdout and stderr of a run, as one string."""
        return result.stdout.str() + "\n" + result.stderr.str()

    @classmethod
    def assert_clean(cls, result: pytest.RunResult) -> None:
        """No Python traceback and no frame from inside the plugin in the output."""
        text = cls.text(result)
        assert "Traceback" not in text, text
        assert "pytest_ragcheck/" not in text, text
        assert "INTERNALERROR" not in text, text
        assert "During handling of the above exception" not in text, text
