"""A gateway that answers 400 with the key spelt some other way (base64 of the Authorization
header, base64url, hex, the key's last 12 characters): no output holds any of it.

One run: each of the first requests gets one spelling; the errors reach the failure messages,
the terminal, junit XML, the JSON / Markdown / HTML reports, the step summary and (none of
it, errors are never cached) the verdict cache. Every file is read back with the reference
reader of ``tests/leaks.py``.
"""

from __future__ import annotations

import pytest
from harness import Suite
from judge_fixtures import JUDGE_MODEL, JUDGED_CHUNKS, JUDGED_GOLDEN
from judge_server import SPELLINGS, JudgeServer, spelt_key
from leaks import leaks

from pytest_ragcheck.common.redact import MARKER

KEY = "sk-proj-Zt8qW2mXv5Lb9KcR3nP7yH4dF6gJ1sAe"

SOURCE = """
from pytest_ragcheck import ragcheck

@ragcheck("golden.jsonl", k=3, metrics=["llm_relevancy"], baseline=False,
          judge_concurrency=1)
def test_judged(ragcheck, retriever):
    ragcheck(retriever)
"""


def test_a_key_echoed_in_any_spelling_reaches_no_output(
    suite: Suite, judge_server: JudgeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.make(SOURCE, cases=JUDGED_GOLDEN, rankings=JUDGED_CHUNKS)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(suite.path / "step-summary.md"))
    for spelling in SPELLINGS:  # one request each, answered 400 (not retried)
        judge_server.inject("echo_key", status=400, spelling=spelling)
    result = suite.run(
        f"--ragcheck-judge-model={JUDGE_MODEL}",
        f"--ragcheck-judge-api-base={judge_server.url}",
        "--ragcheck-report=r.json,r.md,r.html",
        "--junitxml=j.xml",
    )
    result.assert_outcomes(failed=1)
    assert [r.fault for r in judge_server.requests] == ["echo_key"] * len(SPELLINGS)
    assert {r.headers["authorization"] for r in judge_server.requests} == {f"Bearer {KEY}"}
    sent = [spelt_key(f"Bearer {KEY}", s) for s in SPELLINGS]
    assert all(leaks(message, KEY) for message in sent)  # the reader does see each one

    text = Suite.text(result)
    assert not leaks(text, KEY), text
    assert text.count(MARKER) >= len(SPELLINGS)  # every message got there, masked
    assert "bad auth [redacted]" in text
    assert "invalid key ending in [redacted]" in text
    outputs = ["j.xml", "r.json", "r.md", "r.html", "step-summary.md"]
    for name in outputs:
        written = (suite.path / name).read_text(encoding="utf-8")
        assert MARKER in written, name
        assert not leaks(written, KEY), name
    for path in (suite.path / ".ragcheck").rglob("*"):
        if path.is_file():
            assert not leaks(path.read_text(encoding="utf-8"), KEY), path
