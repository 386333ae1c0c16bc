"""Odd and hostile input a new user may feed the plugin, end to end: golden files, marker
keywords and report paths get a clear message naming what is wrong, and reports show ids and
queries exactly as written."""

from __future__ import annotations

import json
import urllib.parse

import pytest
from chromium import Browser, needs_chromium
from harness import ragcheck_module

GOOD = json.dumps({"id": "q1", "query": "what is alpha", "expected_ids": ["a"]})
# deeper than the JSON decoder's recursion limit on every Python (3.13 decodes 5,000 levels)
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("name", "content", "where"),
    [
        pytest.param(
            "golden.jsonl",
            GOOD + "\n" + '{"query": "what is beta", "metadata": ' + DEEP + "}\n",
            "golden.jsonl:2: ",
            id="jsonl",
        ),
        pytest.param("golden.json", DEEP, "golden.json: ", id="json"),
    ],
)
def test_deeply_nested_json_is_a_golden_set_error(suite, name, content, where):
    text = _golden_set_error(suite, name, content)
    assert f"{where}malformed JSON: lists or objects nested too deeply" in text


def _golden_set_error(suite, name: str, content: str) -> str:
    """The output of a run whose one test reads the golden file ``name`` (``content``) and
    fails cleanly on it."""
    suite.write(name, content)
    suite.retriever()
    suite.test(ragcheck_module(f'"{name}", k=2, baseline=False'))
    result = suite.run()
    result.assert_outcomes(failed=1)
    suite.assert_clean(result)
    return suite.text(result)


def test_a_cutoff_in_other_digits_is_a_usage_error(suite):
    """``"²"`` passes ``str.isdigit`` but not ``int``: a usage error, not an internal one."""
    suite.make(ragcheck_module('"golden.jsonl", baseline=False, metrics=["mrr@²"]'))
    result = suite.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    suite.assert_clean(result)
    assert "bad cutoff in metric 'mrr@²': k must be an integer >= 1" in suite.text(result)


def test_metrics_in_one_string_are_named_as_such(suite):
    """``metrics="mrr, recall@5"`` is one string where a list was meant (the closest metric
    name, 'recall', would be a wrong hint)."""
    suite.make(ragcheck_module('"golden.jsonl", baseline=False, metrics="mrr, recall@5"'))
    result = suite.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "unknown metric 'mrr, recall@5' (one metric per string: ['mrr', 'recall@5']); "
        "valid metrics: " in suite.text(result)
    )


def test_a_floor_keyword_without_at_says_how_to_write_the_cutoff(suite):
    """``min_mrr_10`` suggested 'mrr', which drops the cutoff the user meant."""
    suite.make(ragcheck_module('"golden.jsonl", baseline=False, min_mrr_10=0.5'))
    result = suite.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = suite.text(result)
    assert "min_mrr_10: write the cutoff with _at_: min_mrr_at_10 (for mrr@10)" in text


def test_the_calls_bound_wins_over_the_markers_thresholds(suite):
    """Call overrides > marker, whether a bound is spelled ``min_mrr`` or ``thresholds=``.

    WORSE scores mrr@10 0.708: a marker floor of 0.9 fails, the call's 0.5 passes."""
    suite.make(
        ragcheck_module(
            '"golden.jsonl", baseline=False, thresholds={"mrr@10": 0.9}',
            function="test_relaxed_by_keyword",
            body="ragcheck(retriever, min_mrr=0.5)",
        )
        + ragcheck_module(
            '"golden.jsonl", baseline=False, min_mrr=0.9',
            function="test_relaxed_by_dict",
            body='ragcheck(retriever, thresholds={"mrr@10": 0.5})',
        ).removeprefix("from pytest_ragcheck import ragcheck\n"),
        rankings=suite.WORSE,
    )
    result = suite.run()
    result.assert_outcomes(passed=2)
    suite.assert_clean(result)


def test_one_metric_bounded_twice_is_a_usage_error(suite):
    suite.make(
        ragcheck_module('"golden.jsonl", baseline=False, min_mrr=0.5, thresholds={"mrr@10": 0.9}')
    )
    result = suite.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    suite.assert_clean(result)
    assert (
        "mrr@10 is bounded twice: min_mrr=0.5 and thresholds['mrr@10']=0.9; keep one"
        in suite.text(result)
    )


HOSTILE_ID = "<b>x</b>\\path&amp;"
CODE_QUERY = "how do I call __init__ with *args?"


def test_markdown_reports_show_case_ids_and_queries_as_written(suite, monkeypatch):
    """Inside inline code nothing is unescaped: ``&lt;`` or a doubled backslash would show.
    In a query, ``__init__`` would read as a bold "init" unless its underscores are escaped."""
    summary = suite.path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    cases = [{"id": HOSTILE_ID, "query": CODE_QUERY, "expected_ids": ["a"]}]
    suite.make(
        ragcheck_module('"golden.jsonl", baseline=False, min_mrr=0.9'),
        cases=cases,
        rankings={CODE_QUERY: ["x", "y", "a"]},
    )
    result = suite.run("--ragcheck-report=report.md")
    result.assert_outcomes(failed=1)
    query = r"how do I call \_\_init\_\_ with \*args?"
    for text in ((suite.path / "report.md").read_text(), summary.read_text()):
        assert f"| `{HOSTILE_ID}` | {query} |" in text


def test_a_report_path_below_a_file_names_the_file(suite):
    suite.make(ragcheck_module('"golden.jsonl", baseline=False'))
    suite.write("out", "a file, not a folder")
    result = suite.run("--ragcheck-report=out/report.json")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    assert (
        f"could not write the report {suite.path / 'out' / 'report.json'}: "
        f"{suite.path / 'out'} is a file, not a folder"
    ) in suite.text(result)


LONG_QUERY = "https://example.com/" + "x" * 3000
LONG_ID = "doc-" + "y" * 3000


@needs_chromium
def test_long_unbroken_ids_and_queries_keep_the_page_in_the_window(suite, tmp_path):
    """A 3,000-character URL as a query and a case id as long: the case tables and the
    drill-down wrap them; the page never scrolls sideways."""
    cases = [
        {"id": LONG_ID, "query": LONG_QUERY, "expected_ids": ["a"]},
        {"id": "q2", "query": "what is beta", "expected_ids": ["b"]},
    ]
    suite.make(
        ragcheck_module('"golden.jsonl", baseline=False, min_mrr=0.9'),
        cases=cases,
        rankings={LONG_QUERY: ["x", "a"], "what is beta": ["b"]},
    )
    result = suite.run("--ragcheck-report=report.html")
    result.assert_outcomes(failed=1)
    page = (suite.path / "report.html").as_uri()
    with Browser(tmp_path / "profile", width=1024, height=900) as browser:
        browser.open(page)
        browser.eval(
            "document.querySelectorAll('details').forEach(function (d) { d.open = true; })"
        )
        assert browser.layout_problems() == {"page": [], "outside_card": [], "outside_svg": []}
        browser.open(f"{page}#case=0/{urllib.parse.quote(LONG_ID)}")
        assert browser.eval("!!document.querySelector('.drill:not([hidden])')")
        assert browser.layout_problems() == {"page": [], "outside_card": [], "outside_svg": []}


@needs_chromium
def test_a_hand_edited_link_still_renders_the_page(suite, tmp_path):
    """``#case=0/100%`` is no valid escape: the page still renders (and opens nothing)."""
    suite.make(ragcheck_module('"golden.jsonl", baseline=False'))
    suite.run("--ragcheck-report=report.html").assert_outcomes(passed=1)
    page = (suite.path / "report.html").as_uri()
    with Browser(tmp_path / "profile", width=1280, height=900) as browser:
        browser.open(f"{page}#case=0/100%")  # waits for the page to say it rendered
        assert browser.eval("document.querySelectorAll('section.test').length") == 1


@pytest.mark.parametrize(
    ("name", "content", "where"),
    [
        pytest.param(
            "golden.jsonl",
            GOOD + "\n" + '{"query": "what is \\udc00 beta", "expected_ids": ["b"]}\n',
            "golden.jsonl:2: ",
            id="jsonl",
        ),
        pytest.param(
            "golden.json",
            '[{"query": "what is beta", "expected_ids": ["b\\ud800"]}]',
            "golden.json: ",
            id="json",
        ),
    ],
)
def test_half_a_surrogate_pair_is_a_golden_set_error(suite, name, content, where):
    """JSON can spell ``\\udc00`` alone, which is no text: hashing it failed with a
    UnicodeEncodeError from inside the plugin. A whole pair (an emoji) is fine."""
    text = _golden_set_error(suite, name, content)
    assert f"{where}a string holds an unpaired surrogate escape" in text


def test_a_whole_surrogate_pair_is_text(suite):
    suite.write("golden.jsonl", '{"query": "rocket \\ud83d\\ude80", "expected_ids": ["a"]}\n')
    suite.retriever({"rocket \U0001f680": ["a"]})
    suite.test(ragcheck_module('"golden.jsonl", k=2, baseline=False, min_mrr=1'))
    suite.run().assert_outcomes(passed=1)


SURROGATE_RETRIEVER = """
def undecodable(query):
    # File names and texts read with errors="surrogateescape" (os.listdir on bytes that are
    # not UTF-8) hold half surrogate pairs.
    name = b"doc-\\xff".decode("utf-8", "surrogateescape")
    text = b"caf\\xe9".decode("utf-8", "surrogateescape")
    return [{"id": name, "text": text}, {"id": "a", "text": text}]
"""


@pytest.mark.parametrize("cases", [1, 250], ids=["small", "packed"])
def test_reports_of_hits_that_are_not_unicode(suite, cases, monkeypatch, run_mode):
    """Every report is written, and the JSON one reads back with its own schema (pytest-xdist
    carries the record over a UTF-8 channel: it arrives with the same text)."""
    from pytest_ragcheck.report.schema import Report

    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(suite.path / "step-summary.md"))
    suite.golden([{"id": f"c{n}", "query": f"q{n}", "expected_ids": ["a"]} for n in range(cases)])
    suite.retriever(extra=SURROGATE_RETRIEVER)
    suite.test(
        ragcheck_module(
            '"golden.jsonl", k=2, baseline=False, min_mrr=0.9', body="ragcheck(undecodable)"
        ).replace(
            "from pytest_ragcheck import ragcheck",
            "from conftest import undecodable\nfrom pytest_ragcheck import ragcheck",
        )
    )
    result = suite.run("--ragcheck-report=r.json,r.md,r.html", *run_mode)
    result.assert_outcomes(failed=1)
    assert "could not" not in suite.text(result)
    assert "INTERNALERROR" not in suite.text(result)
    report = Report.model_validate_json((suite.path / "r.json").read_text(encoding="utf-8"))
    hits = report.tests[0].cases[0].hits
    assert [hit.id for hit in hits] == ["doc-\\udcff", "a"]
    assert hits[0].text == "caf\\udce9"
    assert r'"doc-\\udcff"' in (suite.path / "r.html").read_text(encoding="utf-8")  # as JSON
    assert (suite.path / "r.md").is_file()
    assert (suite.path / "step-summary.md").is_file()


def test_a_report_path_from_the_ini_file_is_named_as_such(suite):
    """The user never typed ``--ragcheck-report``: the message names the ini key."""
    suite.make(ragcheck_module('"golden.jsonl", baseline=False'))
    suite.ini(ragcheck_report="reports/ragcheck.txt")
    result = suite.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = suite.text(result)
    assert "ini ragcheck_report=reports/ragcheck.txt: unknown report format ('.txt')" in text
    result = suite.run("--ragcheck-report=r.txt")
    assert "--ragcheck-report=r.txt: unknown report format ('.txt')" in suite.text(result)


def test_a_latency_only_test_shows_its_latency(suite):
    """Its one-line summary and its overview row were empty."""
    suite.make(
        ragcheck_module(
            '"golden.jsonl", baseline=False, metrics=["latency_p95_ms"], max_latency_p95_ms=5000'
        )
    )
    result = suite.run("-q", "--ragcheck-report=report.md")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["PASSED*test_rag.py::test_rag  latency_p50_ms * · latency_p95_ms *"]
    )
    overview = (suite.path / "report.md").read_text(encoding="utf-8")
    assert "| `test_rag.py::test_rag` | golden.jsonl (4 cases, k=10) | latency_p50_ms " in overview


ESCAPE_ID = "\x1b[31mred\x1b[0m"
LONG_ID = "x" * 10_000


def test_hostile_ids_in_the_failure_message_are_escaped_and_cut(suite):
    """Case ids and document ids in the failure message: a terminal escape sequence, a
    newline or a 10 KB id is shown escaped and cut, never written to the terminal as it is."""
    cases = [
        {"id": ESCAPE_ID, "query": "alpha", "expected_ids": ["a"]},
        {"id": "two\nlines", "query": "beta", "expected_ids": ["b"]},
        {"id": LONG_ID, "query": "gamma", "expected_ids": ["c"]},
    ]
    suite.golden(cases)
    good = {"alpha": ["a"], "beta": ["b"], "gamma": ["c"]}
    worse = {"alpha": ["\x1b[2Jclear", "a"], "beta": ["z\nz", "b"], "gamma": [LONG_ID, "c"]}
    suite.test(ragcheck_module('"golden.jsonl", k=2, min_mrr=0.9, significance=None'))
    suite.rebaseline(good, worse)
    result = suite.run()
    result.assert_outcomes(failed=1)
    text = suite.text(result)
    assert "\x1b" not in text
    assert "\\x1b[31mred\\x1b[0m  'alpha'" in text  # the worst cases under the floor
    assert "two\\nlines  'beta'" in text
    assert "x" * 59 + "…  'gamma'" in text
    assert LONG_ID[:61] not in text
    assert "came in: \\x1b[2Jclear at 1" in text  # the regressed cases' explanations
    assert "came in: z\\nz at 1" in text


UNEVALUATED = """
import os

import pytest
from pytest_ragcheck import ragcheck
@pytest.fixture
def broken_index():
    raise RuntimeError("index not built with key " + os.environ["RAGCHECK_TEST_API_KEY"])


@ragcheck("dup.jsonl", k=2, baseline=False)
def test_damaged(ragcheck, retriever):
    ragcheck(retriever)


@ragcheck("golden.jsonl", k=2, baseline=False)
def test_bad_keyword(ragcheck, retriever):
    ragcheck(retriever, kk=3)


@ragcheck("golden.jsonl", k=2, baseline=False)
def test_setup(ragcheck, broken_index):
    pass


@ragcheck("golden.jsonl", k=2, baseline=False)
def test_good(ragcheck, retriever):
    ragcheck(retriever)


def test_unrelated():
    assert False, "not a ragcheck test"
"""


@needs_chromium
def test_tests_that_fail_before_their_evaluation_are_in_every_report(
    suite, run_mode, monkeypatch, tmp_path
):
    """A damaged golden set, a bad keyword or a fixture that raised: the test is listed as
    failed with the reason in the terminal summary and every report, never "1 passed"."""
    from pytest_ragcheck.report.schema import Report

    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(suite.path / "step-summary.md"))
    monkeypatch.setenv("RAGCHECK_TEST_API_KEY", "sk-unevaluated-secret-1234")
    suite.write("dup.jsonl", GOOD + "\n" + GOOD + "\n")
    suite.make(UNEVALUATED)
    result = suite.run("--ragcheck-report=r.json,r.md,r.html", *run_mode)
    result.assert_outcomes(passed=1, failed=3, errors=1)
    text = suite.text(result)
    assert "ragcheck: 4 tests — 3 failed, 1 passed" in text
    assert "INTERNALERROR" not in text
    assert "  metric  value  baseline" not in text  # no empty metrics table
    reasons = {
        "test_damaged": "not evaluated: dup.jsonl:2: duplicate id 'q1' (also on line 1)",
        "test_bad_keyword": "not evaluated: ragcheck(...): unknown keyword 'kk'",
        "test_setup": "not evaluated: in setup: RuntimeError: index not built",
    }
    report = Report.model_validate_json((suite.path / "r.json").read_text(encoding="utf-8"))
    entries = {t.nodeid.split("::")[1]: t for t in report.tests}
    assert set(entries) == {*reasons, "test_good"}  # not the unrelated test
    assert report.summary.failed == 3
    assert report.summary.passed == 1
    for name, reason in reasons.items():
        assert entries[name].status == "failed"
        assert entries[name].config is None
        assert entries[name].problems[0].startswith(reason), entries[name].problems
        assert f"  ! {reason}" in text
    assert entries["test_good"].config is not None
    markdown = (suite.path / "r.md").read_text(encoding="utf-8")
    summary = (suite.path / "step-summary.md").read_text(encoding="utf-8")
    html = (suite.path / "r.html").read_text(encoding="utf-8")
    for written in (markdown, summary):
        assert "4 tests: 3 failed, 1 passed" in written
        assert "index not built with key [redacted]" in written
    for written in (markdown, summary, html, (suite.path / "r.json").read_text(encoding="utf-8")):
        assert "sk-unevaluated-secret-1234" not in written
    with Browser(tmp_path / "profile", width=1280, height=900) as browser:
        browser.open((suite.path / "r.html").as_uri())  # waits for the page to say it rendered
        assert browser.eval("document.querySelectorAll('section.test').length") == 4
        assert "index not built" in browser.eval("document.body.innerText")


@needs_chromium
def test_a_session_stopped_early_says_so_in_the_html_report(suite, tmp_path):
    """Only the tests that ran are in the report: its head says the run is incomplete."""
    suite.make(
        ragcheck_module('"golden.jsonl", baseline=False')
        + "\n\ndef test_unrelated():\n    assert False\n"
        + ragcheck_module('"golden.jsonl", baseline=False', function="test_later").split("\n", 2)[2]
    )
    result = suite.run("-x", "-p", "no:randomly", "--ragcheck-report=r.html,r.json")
    result.assert_outcomes(passed=1, failed=1)
    report = suite.read_json("r.json")
    assert [t["nodeid"] for t in report["tests"]] == ["test_rag.py::test_rag"]
    assert report["run"]["incomplete"].startswith("the session stopped early")
    with Browser(tmp_path / "profile", width=1280, height=900) as browser:
        browser.open((suite.path / "r.html").as_uri())
        shown = browser.eval("document.querySelector('.meta.incomplete').textContent")
    assert shown == (
        f"Incomplete run: {report['run']['incomplete']}; only the tests that ran are listed."
    )
