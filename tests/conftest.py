"""Fixtures of this project's tests: the integration-test harness and the local LLM judge.

``suite`` is a user's project in a pytester folder and ``run_mode`` the extra arguments of a
run (``[]`` or ``["-n", "2"]``); see ``tests/harness.py`` for what ``suite`` can do.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator

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
from harness import RUN_MODES, Suite

import pytest_ragcheck.evaluation.pipeline
import pytest_ragcheck.gate.verdict
import pytest_ragcheck.golden
import pytest_ragcheck.plugin.guard

# The package's heavier modules, imported before any pytester snapshot for the same reason:
# otherwise every in-process run imports them again (pydantic models, syrupy, the report).
import pytest_ragcheck.plugin.snapshots
import pytest_ragcheck.report.files
import pytest_ragcheck.report.terminal  # noqa: F401

# Tests that send a real SIGINT need processes that turn it into KeyboardInterrupt. A shell
# starts a background job (`cmd &` without job control) with SIGINT ignored, and an ignored
# signal stays ignored in every process started from it: handled here, pytest's subprocesses
# start with the default disposition, and Python's own Ctrl-C handling, again.
if sys.platform != "win32" and signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest tests first: ``-n auto`` workers then end on short tests, together.

    The ``slow`` tests (a pytest-xdist session or the example suite each run) start first,
    then the other tests that run pytest sessions (pytester), then the rest; each group keeps
    pytest's order.
    """

    def cost(item: pytest.Item) -> int:
        if item.get_closest_marker("slow"):
            return 0
        return 1 if "pytester" in getattr(item, "fixturenames", ()) else 2

    items.sort(key=cost)


@pytest.fixture(scope="session", autouse=True)
def _bytecode_cache_for_child_interpreters() -> Iterator[None]:
    """Let this process and the Python processes that tests start cache bytecode.

    With ``PYTHONDONTWRITEBYTECODE`` set, every one of them (pytest-xdist workers of inner
    runs, subprocess runs) would compile this package and rewrite the pytest plugins again:
    about half a second of CPU per process. So would every in-process pytester run, which
    drops the modules it imported: pytest rewrites the asserts of the package's modules again
    each time. The cache goes where Python puts it by default (``__pycache__``, ignored by
    git), so the installed libraries' own bytecode is used as it is: a separate
    ``PYTHONPYCACHEPREFIX`` would compile every library again (litellm alone: 5 s).
    """
    if not sys.dont_write_bytecode:
        yield
        return
    with pytest.MonkeyPatch.context() as env:
        env.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
        env.setattr(sys, "dont_write_bytecode", False)
        yield


@pytest.fixture(params=RUN_MODES)
def run_mode(request: pytest.FixtureRequest) -> list[str]:
    """Extra pytest arguments: ``[]`` or ``["-n", "2"]``."""
    return list(request.param)


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
