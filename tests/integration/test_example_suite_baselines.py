"""The example suite re-records exactly the baselines committed with it.

Its retriever is deterministic, so ``pytest --snapshot-update`` on a copy must write every
stored baseline back byte for byte: a change in how baselines are computed, rounded, ordered or
written (a refactoring that was meant to change nothing) shows up here as a diff.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "example_suite"
STORES = ("__snapshots__", "__ragcheck__")
#: Recorded on purpose from an older, smaller golden set (the example shows a set that grows).
GROWN = "test_growing_golden_set"


def _baselines(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*.json"))
        if any(part in STORES for part in path.relative_to(folder).parts) and GROWN not in path.name
    }


@pytest.mark.slow
def test_snapshot_update_rewrites_the_committed_baselines_unchanged(tmp_path: Path) -> None:
    pytest.importorskip("bm25s")
    copy = tmp_path / "example_suite"
    shutil.copytree(SUITE, copy, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    committed = _baselines(SUITE)
    assert committed, "the example suite commits its baselines"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "--snapshot-update"],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rewritten = _baselines(copy)
    assert sorted(rewritten) == sorted(committed)
    changed = [name for name, data in committed.items() if rewritten[name] != data]
    assert changed == [], f"baselines rewritten differently: {changed}"
