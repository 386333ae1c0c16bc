"""``history.trend`` groups the lines once by test and call: the same runs, in file order, the
last ``MAX_RUNS`` of each, as reading every line for each test did."""

from __future__ import annotations

import random
from typing import Any

from pytest_ragcheck.explore.history import MAX_RUNS, trend


def _reference(entries: list[dict[str, Any]], key: tuple[str, Any]) -> list[str]:
    return [e["timestamp"] for e in entries if (e["test"], e.get("call", 0)) == key][-MAX_RUNS:]


def test_runs_per_test_and_call_in_file_order() -> None:
    rng = random.Random(7)
    names = ["t.py::a", "t.py::b", "t.py::c[x]"]
    entries: list[dict[str, Any]] = []
    for i in range(30 * MAX_RUNS):
        entry: dict[str, Any] = {
            "test": rng.choice(names),
            "timestamp": f"run-{i}",
            "metrics": {"mrr@10": rng.random()},
        }
        call = rng.choice([None, 0, 1, [1], {"x": 1}])  # None: no "call" field
        if call is not None:
            entry["call"] = call
        entries.append(entry)
    document = {"tests": [{"nodeid": n, "call": c, "metrics": []} for n in names for c in (0, 1)]}
    found = trend(entries, document, file="h.jsonl")
    assert found["lines"] == len(entries)
    for test in found["tests"]:
        expected = _reference(entries, (test["nodeid"], test["call"]))
        assert [r["timestamp"] for r in test["runs"]] == expected
        assert len(expected) <= MAX_RUNS
    assert any(len(t["runs"]) == MAX_RUNS for t in found["tests"])  # the cut was exercised
