"""The capped report's choice of cases and its histograms, taken from one array per metric.

Each is compared with the same choice made one case at a time in Python (``heapq`` over
``(delta, index)`` pairs, as the selection is specified), on generated values with many ties,
missing values and cases the baseline does not have. Also: redaction of packed reports.
"""

from __future__ import annotations

import heapq
import math
import random
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from pytest_ragcheck.common.redact import MARKER, Redactor
from pytest_ragcheck.evaluation.result import CaseResult
from pytest_ragcheck.report.capped import MetricColumns, distribution, select_shown
from pytest_ragcheck.report.cases import HIST_BINS

METRICS = [("mrr@10", True), ("recall@10", True), ("latency", False)]


def _by_python(
    cases: Sequence[CaseResult],
    metrics: Sequence[tuple[str, bool]],
    baseline: Mapping[str, Mapping[str, float]],
    first: Sequence[str],
    limit: int,
) -> list[int]:
    """The selection one case at a time: first, errors, then round-robin over the lists."""
    position = {case.id: i for i, case in enumerate(cases)}
    chosen = dict.fromkeys(position[i] for i in first if i in position)
    chosen.update(dict.fromkeys(i for i, c in enumerate(cases) if c.status == "error"))
    ranked: list[list[int]] = []
    for name, higher in metrics:
        sign = 1.0 if higher else -1.0
        scored = [(i, v) for i, c in enumerate(cases) if (v := c.values.get(name)) is not None]
        scored = [(i, v) for i, v in scored if not math.isnan(v)]
        moved = [
            (sign * (v - before[name]), i)
            for i, v in scored
            if name in (before := baseline.get(cases[i].id, {}))
        ]
        ranked.append([i for d, i in heapq.nsmallest(limit, moved) if d < 0])
        ranked.append([i for _, i in heapq.nsmallest(limit, ((sign * v, i) for i, v in scored))])
    for turn in range(limit):
        for indices in ranked:
            if turn < len(indices):
                chosen.setdefault(indices[turn])
    return sorted(list(chosen)[:limit])


def _histograms(
    cases: Sequence[CaseResult], names: Sequence[str], baseline: Mapping[str, Mapping[str, float]]
) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        now = [v for c in cases if (v := c.values.get(name)) is not None and math.isfinite(v)]
        before = [b[name] for c in cases if name in (b := baseline.get(c.id, {}))]
        top = max(1.0, *now, *before)

        def counts(values: list[float], top: float = top) -> list[int]:
            bins = [min(max(math.floor(v / top * HIST_BINS), 0), HIST_BINS - 1) for v in values]
            return [bins.count(b) for b in range(HIST_BINS)]

        out[name] = {"max": top, "counts": counts(now), "baseline": counts(before) or None}
    return out


def _run(
    seed: int, size: int, *, clean: bool = False
) -> tuple[list[CaseResult], dict[str, dict[str, float]]]:
    """Cases and a baseline; ``clean``: every case and baseline entry has every metric (read
    in one pass), else some miss one, have ``None`` or are new (read one metric at a time)."""
    rng = random.Random(seed)
    steps = [0.0, 0.1, 0.25, 0.5, 1.0]  # few distinct values: many ties
    cases = []
    baseline: dict[str, dict[str, float]] = {}
    for n in range(size):
        values: dict[str, Any] = {
            "mrr@10": rng.choice(steps),
            "recall@10": rng.choice([*steps, math.nan]),
            "latency": rng.choice([1, 2, 3.5, 40.0]),
        }
        if rng.random() < 0.1 and not clean:
            del values["mrr@10"]
        if rng.random() < 0.05 and not clean:
            values["recall@10"] = None
        failed = rng.random() < 0.02
        cases.append(
            CaseResult(id=f"c{n}", query="q", status="error" if failed else "ok", values=values)
        )
        if rng.random() < 0.8 or clean:
            before = {"mrr@10": rng.choice(steps), "latency": rng.choice([1.0, 2.0, 30.0])}
            if rng.random() < 0.3 or clean:
                before["recall@10"] = rng.choice(steps)
            baseline[f"c{n}"] = before
    return cases, baseline


@pytest.mark.parametrize(("seed", "clean"), [(1, False), (2, False), (3, True), (4, True)])
def test_the_arrays_choose_the_cases_python_chooses(seed: int, clean: bool) -> None:
    cases, baseline = _run(seed, 3000, clean=clean)
    first = ["c17", "nope", "c2999", "c17"]
    for limit in (5, 200):
        got = select_shown(cases, METRICS, baseline, first=first, limit=limit)
        assert got == _by_python(cases, METRICS, baseline, first, limit)
    assert select_shown(cases, METRICS, {}, limit=50) == _by_python(cases, METRICS, {}, [], 50)
    assert select_shown(cases[:10], METRICS, baseline, limit=50) == list(range(10))


@pytest.mark.parametrize(("seed", "clean"), [(1, False), (2, True)])
def test_the_histograms_count_what_python_counts(seed: int, clean: bool) -> None:
    cases, baseline = _run(seed, 2000, clean=clean)
    names = [name for name, _ in METRICS]
    columns = MetricColumns(cases, baseline)
    select_shown(cases, METRICS, baseline, columns=columns)
    assert distribution(cases, names, baseline, columns=columns) == _histograms(
        cases, names, baseline
    )
    assert distribution(cases, names, {})["mrr@10"]["baseline"] is None


def test_metrics_read_together_equal_metrics_read_one_at_a_time() -> None:
    cases, baseline = _run(5, 500, clean=True)
    names = ["mrr@10", "recall@10", "latency"]
    together = MetricColumns(cases, baseline, names)
    apart = MetricColumns(cases, baseline)
    for name in [*names, "absent"]:
        np.testing.assert_array_equal(together.now(name), apart.now(name))
        np.testing.assert_array_equal(together.before(name), apart.before(name))
    assert not np.isnan(together.before("recall@10")).any()


def test_columns_read_any_mapping_and_none_values() -> None:
    class Values(Mapping[str, Any]):
        def __init__(self, data: dict[str, Any]) -> None:
            self._data = data

        def __getitem__(self, key: str) -> Any:
            return self._data[key]

        def __iter__(self) -> Any:
            return iter(self._data)

        def __len__(self) -> int:
            return len(self._data)

    cases = [
        CaseResult(id="a", query="q", values={"m": 0.5}),
        CaseResult(id="b", query="q", values={"m": None}),  # type: ignore[dict-item]
        CaseResult(id="c", query="q", values={}),
    ]
    columns = MetricColumns(cases, {"a": Values({"m": 1.0})})
    np.testing.assert_array_equal(columns.now("m"), [0.5, np.nan, np.nan])
    np.testing.assert_array_equal(columns.before("m"), [1.0, np.nan, np.nan])


def test_packed_bytes_are_not_read_by_redaction_and_texts_without_a_secret_come_back() -> None:
    secret = "sk-abcdef123456"
    redact = Redactor([secret])
    packed = zlib.compress(f'["{secret}"]'.encode())  # never unpacked to be masked again
    record = {"cases_packed": packed, "note": f"key {secret}", "n": 1}
    masked = redact.data(record)
    assert masked["cases_packed"] is packed
    assert masked["note"] == f"key {MARKER}"
    plain = "no secret here… at all" * 1000
    assert redact(plain) is plain
    assert redact(f"cut {secret[:8]}… here") == f"cut {MARKER}… here"
    assert redact(f"quoted {secret}") == f"quoted {MARKER}"
