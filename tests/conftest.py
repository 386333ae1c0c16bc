"""Shared helpers for the pytester integration tests: the ``suite`` and ``run_mode`` fixtures.

Typical use in ``tests/integration/test_*.py`` (no imports from this file needed)::

    def test_pass(suite, run_mode):
        suite.golden()                      # golden.jsonl with suite.GOLDEN
        suite.retriever()                   # conftest.py: fixture `retriever` (suite.PERFECT)
        suite.test('''
            from pytest_ragcheck import ragcheck

            @ragcheck("golden.jsonl", baseline=False, min_mrr=0.5)
            def test_rag(ragcheck, retriever):
                ragcheck(retriever)
        ''')
        result = suite.run(*run_mode)
        result.assert_outcomes(passed=1)
        suite.assert_clean(result)          # no traceback, no frame from inside the plugin

``run_mode`` is ``[]`` (one process) or ``["-n", "2"]`` (pytest-xdist). Runs are in-process
(``pytester.runpytest``), which also works with xdist since its workers are subprocesses.
Write ``baseline=False`` in markers unless the test is about baselines: a test without a
stored baseline fails (syrupy's behaviour).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

# litellm imports the importlib_metadata backport, which hooks a finder into sys.meta_path;
# first imported inside an in-process run, the module is dropped but the finder stays, and
# later runs find no plugin entry points. Imported here, it lives for the whole session.
import importlib_metadata  # noqa: F401  (a dependency of litellm, in the dev extra)

# In-process pytester runs drop every module first imported during the inner run. numpy and
# pydantic-core are C extensions that refuse a second initialisation in one process, so they
# are imported here, before any pytester snapshot, and survive between runs.
import numpy  # noqa: F401
import pydantic  # noqa: F401
import pytest

#: Parameters for ``run_mode``: one process, and two pytest-xdist workers.
RUN_MODES = (pytest.param([], id="serial"), pytest.param(["-n", "2"], id="xdist"))


@pytest.fixture(params=RUN_MODES)
def run_mode(request: pytest.FixtureRequest) -> list[str]:
    """Extra pytest arguments: ``[]`` or ``["-n", "2"]``."""
    return list(request.param)


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
    #: costs each xdist worker about a second.
    ARGS: tuple[str, ...] = (
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",
        "-p",
        "no:anyio",
        "-rA",
    )

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.path: Path = pytester.path
        self.ini()

    def ini(self, **options: str) -> Path:
        """(Re)write ``pytest.ini``: BASE_INI plus ``options`` (e.g. ``ragcheck_tolerance="0.05"``)."""
        lines = [f"{key} = {value}" for key, value in {**self.BASE_INI, **options}.items()]
        return self.write("pytest.ini", "[pytest]\n" + "\n".join(lines) + "\n")

    def golden(
        self, cases: Iterable[Mapping[str, Any]] | None = None, name: str = "golden.jsonl"
    ) -> Path:
        """Write cases (default GOLDEN) as JSONL, or as a JSON list when ``name`` ends in .json."""
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        items = [dict(c) for c in (self.GOLDEN if cases is None else cases)]
        if name.endswith(".json"):
            path.write_text(json.dumps(items, indent=1), encoding="utf-8")
        else:
            path.write_text("".join(json.dumps(c) + "\n" for c in items), encoding="utf-8")
        return path

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
        other retrievers or fixtures in ``extra``, which is appended to the conftest source.
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
        self.pytester.makeconftest(source + textwrap.dedent(extra))

    def test(self, source: str, name: str = "test_rag") -> Path:
        """Write a test module (dedented)."""
        return self.pytester.makepyfile(**{name: textwrap.dedent(source)})

    def rebaseline(
        self,
        before: Mapping[str, Sequence[Any]],
        after: Mapping[str, Sequence[Any]],
        *args: str,
    ) -> pytest.RunResult:
        """Record baselines with the ``before`` rankings (``--snapshot-update``, in one
        process), then run with ``after`` and ``args`` (e.g. ``run_mode``); returns that run."""
        self.retriever(before)
        self.run("--snapshot-update", "-p", "no:xdist")
        self.retriever(after)
        return self.run(*args)

    def run(self, *args: str) -> pytest.RunResult:
        """Run pytest in-process in the folder (``-rA``; no cache provider)."""
        return self.pytester.runpytest(*self.ARGS, *args)

    def run_subprocess(self, *args: str) -> pytest.RunResult:
        """Run pytest in a fresh interpreter (for start-up and import checks)."""
        return self.pytester.runpytest_subprocess(*self.ARGS, *args)

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


@pytest.fixture(autouse=True)
def _isolate_from_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inner pytest runs must behave the same on a laptop and in CI.

    With ``CI``/``BUILD_NUMBER`` set, pytest prints full messages in the short summary (so a
    message appears twice), and inner runs must not append to the job summary of a CI run of
    this very suite. Under an outer ``pytest -n``, in-process inner runs would also read the
    worker's ``PYTEST_XDIST_*`` variables and syrupy would act as a worker.
    """
    for name in (
        "CI",
        "BUILD_NUMBER",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_ACTIONS",
        "PYTEST_XDIST_WORKER",
        "PYTEST_XDIST_WORKER_COUNT",
        "PYTEST_XDIST_TESTRUNUID",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def suite(pytester: pytest.Pytester) -> Suite:
    """A user's project in a pytester folder; see :class:`Suite`."""
    return Suite(pytester)


# The local LLM-judge server and its fixtures (tests/judge_fixtures.py).
from judge_fixtures import (  # noqa: E402
    fake_sleep,  # noqa: F401
    fast_retries,  # noqa: F401
    judge_server,  # noqa: F401
    judge_server_session,  # noqa: F401
    judge_settings,  # noqa: F401
)
