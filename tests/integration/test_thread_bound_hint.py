"""A retriever bound to the thread that created it (a sqlite3 connection) fails every case on
the worker threads a timeout needs: the failure says how to call it in the test's own thread,
and that advice works."""

from __future__ import annotations

from harness import ragcheck_module

CONFTEST = """
import sqlite3
import pytest

@pytest.fixture
def retriever():
    db = sqlite3.connect(":memory:")
    db.execute("create table docs (word text, id text)")
    db.executemany("insert into docs values (?, ?)", [("alpha", "a"), ("beta", "b")])

    def search(query):
        rows = db.execute("select id from docs where ? like '%' || word || '%'", (query,))
        return [row[0] for row in rows]

    return search
"""


def test_sqlite_retriever_gets_the_thread_hint(suite):
    suite.golden()
    suite.write("conftest.py", CONFTEST)
    suite.test(ragcheck_module('"golden.jsonl", k=2, metrics=["mrr"], baseline=False'))
    result = suite.run()
    result.assert_outcomes(failed=1)
    text = " ".join(suite.text(result).split())
    assert "SQLite objects created in a thread can only be used in that same thread" in text
    assert "pass concurrency=1, timeout=None to call it in the test's own thread" in text


def test_the_hinted_settings_work(suite):
    suite.golden()
    suite.write("conftest.py", CONFTEST)
    suite.test(
        ragcheck_module(
            '"golden.jsonl", k=2, metrics=["mrr"], baseline=False, concurrency=1, timeout=None'
        )
    )
    result = suite.run()
    result.assert_outcomes(passed=1)
