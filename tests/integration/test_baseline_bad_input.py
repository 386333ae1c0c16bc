"""Damaged baseline files: a clear failure naming the file and the fix; never a crash or a pass.

``--snapshot-update`` replaces a damaged file, but never one written by a newer version.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness import SERIAL_ONLY, ragcheck_module


def _module(name: str) -> str:
    return ragcheck_module('"golden.jsonl", k=5', function=f"test_{name}")


def _edit(change: Callable[[dict[str, Any]], None]) -> Callable[[str], str]:
    def apply(text: str) -> str:
        data = json.loads(text)
        change(data)
        return json.dumps(data, indent=2)

    return apply


#: test name -> (how the stored text is damaged, what the failure must say).
DAMAGE: dict[str, tuple[Callable[[str], str], str]] = {
    "truncated": (lambda t: t[: len(t) // 2], "not valid JSON (line "),
    # Not even UTF-8 (a merge conflict in a binary-ish file).
    "garbage": (lambda t: "\x00\udcff<<<<<<< HEAD\n" + t, "not valid JSON (line 1, column 1"),
    "edited_value": (
        lambda t: t.replace('"mrr@5": 1.0', '"mrr@5": "1.0"', 1),
        "aggregates['mrr@5'] is '1.0', expected a number",
    ),
    "missing_metric": (
        _edit(lambda d: d["aggregates"].pop("ndcg@5")),
        "aggregates has no value for 'ndcg@5' (listed in metrics)",
    ),
    "nan": (
        lambda t: t.replace('"map@5": 1.0', '"map@5": NaN', 1),
        "holds a non-finite number (NaN is not allowed)",
    ),
    "infinity": (
        lambda t: t.replace('"map@5": 1.0', '"map@5": Infinity', 1),
        "holds a non-finite number (Infinity is not allowed)",
    ),
    "wrong_file": (lambda t: '{"snapshot": [1, 2, 3]}', "not a pytest-ragcheck baseline"),
    "newer": (
        _edit(lambda d: d.update(schema_version=99, shards=[])),
        "written by a newer pytest-ragcheck (schema_version 99; this version reads up to 2): "
        "upgrade pytest-ragcheck",
    ),
}


def _path(root: Path, name: str) -> Path:
    return root / f"__ragcheck__/test_{name}/test_{name}[ragcheck].json"


# Not about processes: pytest-xdist is covered by
# test_baseline_lifecycle.py::test_baseline_life_cycle[xdist].
@SERIAL_ONLY
def test_damaged_baselines_fail_clearly_and_update_repairs_them(suite, run_mode) -> None:
    root = suite.path
    suite.golden()
    suite.retriever()
    for name in DAMAGE:
        suite.test(_module(name), name=f"test_{name}")
    suite.update_baselines().assert_outcomes(passed=len(DAMAGE))
    good = {name: _path(root, name).read_text("utf-8") for name in DAMAGE}
    for name, (damage, _) in DAMAGE.items():
        _path(root, name).write_bytes(damage(good[name]).encode("utf-8", "surrogateescape"))
    damaged = {name: _path(root, name).read_bytes() for name in DAMAGE}

    result = suite.run(*run_mode)
    result.assert_outcomes(failed=len(DAMAGE))
    text = suite.text(result)
    for name, (_, expected) in DAMAGE.items():
        where = f"__ragcheck__/test_{name}/test_{name}[ragcheck].json"
        assert f"{where}: {expected}" in text, name
    assert text.count("Fix the file, or re-run with --snapshot-update") == len(DAMAGE) - 1
    assert "or delete the file and re-run with --snapshot-update" in text
    suite.assert_clean(result)
    assert {name: _path(root, name).read_bytes() for name in DAMAGE} == damaged

    # --snapshot-update repairs the damaged files, but refuses to downgrade a newer one.
    result = suite.run("--snapshot-update", *run_mode)
    result.assert_outcomes(passed=len(DAMAGE) - 1, failed=1)
    assert "FAILED test_newer.py::test_newer" in suite.text(result)
    for name in DAMAGE:
        if name == "newer":
            assert _path(root, name).read_bytes() == damaged[name]
        else:
            assert _path(root, name).read_text("utf-8") == good[name], name


@SERIAL_ONLY
def test_crlf_checkout_still_matches(suite, run_mode) -> None:
    """A baseline checked out with Windows line endings compares equal and is left alone."""
    suite.make(_module("crlf"))
    suite.update_baselines().assert_outcomes(passed=1)
    path = suite.path / "__ragcheck__/test_rag/test_crlf[ragcheck].json"
    crlf = path.read_bytes().replace(b"\n", b"\r\n")
    path.write_bytes(crlf)
    result = suite.run("--snapshot-update", *run_mode)
    result.assert_outcomes(passed=1)
    assert "1 snapshot passed" in suite.text(result)
    assert path.read_bytes() == crlf
