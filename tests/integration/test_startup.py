"""Installing the plugin costs nothing for projects that do not use it.

Importing the plugin module itself is checked in ``tests/unit/test_architecture.py``; here a
whole pytest session runs with only this plugin loaded (syrupy, for one, is a pytest plugin
of its own, so autoloading is switched off).
"""

from __future__ import annotations

import pytest
from harness import HEAVY, Suite


def _run_plugin_alone(
    suite: Suite, monkeypatch: pytest.MonkeyPatch, *args: str
) -> pytest.RunResult:
    """pytest in a fresh interpreter with only this plugin loaded and warnings as errors."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    suite.write("pytest.ini", "[pytest]\nfilterwarnings = error\n")
    return suite.pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "pytest_ragcheck.plugin", *args
    )


def test_session_without_ragcheck_tests_loads_nothing_heavy(suite, monkeypatch):
    """A pytest run of plain tests with only this plugin loaded imports no heavy module."""
    suite.test(
        f"""
        import sys

        def test_plain(pytestconfig):
            assert pytestconfig.pluginmanager.hasplugin("pytest_ragcheck.plugin")
            loaded = [m for m in {HEAVY!r} if m in sys.modules]
            assert loaded == []
        """
    )
    result = _run_plugin_alone(suite, monkeypatch)
    result.assert_outcomes(passed=1)


def test_collecting_ragcheck_tests_loads_nothing_heavy(suite, monkeypatch):
    """Marker validation at collection is pure Python: the golden set loads when a test runs."""
    suite.golden()
    suite.pytester.makeconftest(
        f"""
        import sys

        def pytest_collection_finish(session):
            loaded = [m for m in {HEAVY!r} if m in sys.modules]
            print("HEAVY-LOADED:", loaded)
        """
    )
    suite.test(
        """
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=5, metrics=["mrr", "ndcg@3"], min_recall_at_5=0.5)
        def test_rag(ragcheck):
            pass
        """
    )
    result = _run_plugin_alone(suite, monkeypatch, "--collect-only", "-s")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["HEAVY-LOADED: []", "*1 test collected*"])
