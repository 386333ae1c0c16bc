"""A large golden set through real sessions: the quick baseline paths keep every outcome.

Record a baseline of 6,000 cases, rerun unchanged (the file is recognised by its text and stays
byte-identical), worsen a few cases (the stored cases are read in chunks; the regression and
its worst cases are reported), and read a re-indented file (read whole, still compared).
"""

from __future__ import annotations

import json
from pathlib import Path

from harness import SERIAL_ONLY

N = 6000

TESTS = """
from pytest_ragcheck import ragcheck
N = {n}
WORSE = {worse!r}


def retriever(query):
    i = int(query.split()[1])
    shift = 1 if i in WORSE else 0
    return [("doc-%d" % ((i + j * j + shift) % N), 1.0 - j / 10) for j in range(10)]


@ragcheck(cases="golden.jsonl", k=10)
def test_scale(ragcheck):
    ragcheck(retriever)
"""

FILE = Path("__ragcheck__/test_rag/test_scale[ragcheck].json")


def _cases() -> list[dict[str, object]]:
    return [
        {
            "id": f"case-{i:05d}",
            "query": f"document {i} please",
            "expected_ids": [f"doc-{i}", f"doc-{(i * 7) % N}"],
        }
        for i in range(N)
    ]


@SERIAL_ONLY
def test_a_large_baseline_is_kept_compared_and_read(suite, run_mode: list[str]) -> None:
    suite.golden(_cases())
    suite.test(TESTS.format(n=N, worse=[]))
    suite.run("--snapshot-update", *run_mode).assert_outcomes(passed=1)
    stored = (suite.path / FILE).read_bytes()
    assert stored.count(b"\n") == N + 19  # one line per case

    # Unchanged: passes, and the file stays byte-identical.
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=1)
    suite.assert_clean(result)
    assert (suite.path / FILE).read_bytes() == stored

    # 600 cases lose their first hit: mrr@10 regresses, the worst cases are named.
    suite.test(TESTS.format(n=N, worse=list(range(0, N, 10))))
    result = suite.run(*run_mode)
    result.assert_outcomes(failed=1)
    text = suite.text(result)
    assert "mrr@10" in text, text
    assert "regressed" in text, text
    assert "case-00000" in text, text
    assert (suite.path / FILE).read_bytes() == stored

    # A re-indented file is read whole and compared as before.
    suite.test(TESTS.format(n=N, worse=[]))
    (suite.path / FILE).write_text(json.dumps(json.loads(stored), indent=2), encoding="utf-8")
    edited = (suite.path / FILE).read_bytes()
    result = suite.run(*run_mode)
    result.assert_outcomes(passed=1)
    assert (suite.path / FILE).read_bytes() == edited

    # --snapshot-update writes the canonical text again, the same bytes as first recorded.
    suite.run("--snapshot-update", *run_mode).assert_outcomes(passed=1)
    assert (suite.path / FILE).read_bytes() == stored
