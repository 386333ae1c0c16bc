"""Installing the plugin costs nothing for projects that do not use it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "pydantic", "pydantic_core", "syrupy", "litellm")

PROBE = """
import json, sys
import {module}
print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


@pytest.mark.parametrize("module", ["pytest_ragcheck.plugin", "pytest_ragcheck"])
def test_import_loads_nothing_heavy(module):
    code = PROBE.format(module=module, heavy=HEAVY)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert json.loads(out.strip().splitlines()[-1]) == []


def test_probe_detects_a_heavy_import():
    """The probe itself works: importing the golden-set loader does pull in pydantic."""
    code = PROBE.format(module="pytest_ragcheck.golden", heavy=HEAVY)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert "pydantic" in json.loads(out.strip().splitlines()[-1])


def test_session_without_ragcheck_tests_loads_nothing_heavy(suite, monkeypatch):
    """A pytest run of plain tests with only this plugin loaded imports no heavy module.

    Other plugins are switched off: syrupy, for one, is a pytest plugin of its own.
    """
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    suite.write("pytest.ini", "[pytest]\nfilterwarnings = error\n")
    suite.test(
        f"""
        import sys

        def test_plain(pytestconfig):
            assert pytestconfig.pluginmanager.hasplugin("pytest_ragcheck.plugin")
            loaded = [m for m in {HEAVY!r} if m in sys.modules]
            assert loaded == []
        """
    )
    result = suite.pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "pytest_ragcheck.plugin"
    )
    result.assert_outcomes(passed=1)


def test_collecting_ragcheck_tests_loads_nothing_heavy(suite, monkeypatch):
    """Marker validation at collection is pure Python: the golden set loads when a test runs."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    suite.write("pytest.ini", "[pytest]\nfilterwarnings = error\n")
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
    result = suite.pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-p", "pytest_ragcheck.plugin", "--collect-only", "-s"
    )
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["HEAVY-LOADED: []", "*1 test collected*"])
