"""The numbers the docs quote come from runs: a figure the example suite no longer produces
fails here (regenerate them with ``python docs/figures.py``).

One test, so that the example suite runs once per variant (``docs/figures.py`` caches its runs
per process; pytest-xdist would otherwise repeat them on each worker).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _figures():
    spec = importlib.util.spec_from_file_location("doc_figures", ROOT / "docs" / "figures.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # the example suite, three times
def test_quoted_figures_match_a_fresh_run_of_the_example_suite(monkeypatch):
    # docs/figures.py puts the repository and the example suite on sys.path; later in-process
    # pytest runs of this worker must not see them (a second pytest_ragcheck on the path).
    monkeypatch.setattr(sys, "path", list(sys.path))
    figures = _figures()
    quoted = figures.quoted_figures()
    readme = [
        f for f in quoted if f.path == "README.md" and f.name not in figures.BENCHMARK_FIGURES
    ]
    assert "weak-summary" in [f.name for f in readme]
    assert {f.path for f in quoted} == set(figures.FILES)

    problems = figures.drift()
    assert not problems, "\n\n".join(problems) + "\n\nRegenerate them: python docs/figures.py"

    # The check can fail: a number that drifted is caught, a latency that moved is not.
    summary = readme[0].quoted
    fresh = figures.FIGURES["weak-summary"]()
    row = re.search(r"^  \w+@\d+ +(\d\.\d{3})", summary, re.M)
    assert row is not None
    other = f"{(float(row.group(1)) + 0.001) % 1:.3f}"
    drifted = summary[: row.start(1)] + other + summary[row.end(1) :]
    assert figures.stable(drifted) != figures.stable(fresh)
    latency = re.sub(r"(latency_p95_ms +)\d+\.\d", r"\g<1>99.9", summary)
    assert latency != summary
    assert figures.stable(latency) == figures.stable(fresh)
