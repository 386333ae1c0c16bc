"""The per-call record: JSON-safe, small enough for xdist, junit properties."""

from __future__ import annotations

import json

import pytest
from report_data import make_result, regressed_record

from pytest_ragcheck.common.escapes import json_safe
from pytest_ragcheck.evaluation.keywords import build_settings
from pytest_ragcheck.evaluation.result import HitRecord
from pytest_ragcheck.gate.verdict import check_floors
from pytest_ragcheck.report.cases import case_entry, unpacked_text
from pytest_ragcheck.report.record import (
    MAX_HITS,
    SHOWN_CASES,
    TEXT_LIMIT,
    build_record,
    clip,
    junit_properties,
    safe_url,
)


def _record_for(result, **marker):
    settings = build_settings({"cases": "golden.jsonl", **marker})
    verdict = check_floors(result, settings, header="golden.jsonl")
    return build_record(
        nodeid="t.py::test", result=result, verdict=verdict, settings=settings, baseline=None
    )


def test_long_texts_are_clipped_and_hits_capped():
    result = make_result(names=("mrr@10",), values={"mrr@10": [1.0, 0.5]}, text_len=5000)
    case = result.cases[0]
    case.hits.extend(
        HitRecord(rank=r, id=f"extra{r}", text="x" * 5000, score=None, grade=0)
        for r in range(6, 6 + 2 * MAX_HITS)
    )
    case.traceback = "frame\n" * 5000
    case.judge = {"llm_relevancy@10": [{"rank": 1, "verdict": "no", "reason": "r" * 5000}]}
    record = _record_for(result)
    stored = record["result"]["cases"][0]
    assert len(stored["hits"]) == MAX_HITS
    assert stored["hits_dropped"] == len(case.hits) - MAX_HITS
    assert all(len(h["text"]) <= TEXT_LIMIT for h in stored["hits"])
    assert stored["hits"][0]["text"].endswith("…")
    assert len(stored["traceback"]) <= 2000
    assert stored["traceback"].startswith("…")
    assert len(stored["judge"]["llm_relevancy@10"][0]["reason"]) == TEXT_LIMIT
    # Far smaller than the result it was made from (what xdist would otherwise carry).
    assert len(json.dumps(record)) * 20 < len(json.dumps(result.to_dict()))


def test_record_is_strict_json_even_with_nan():
    result = make_result(names=("mrr@10",), values={"mrr@10": [1.0, float("nan")]})
    record = _record_for(result)
    text = json.dumps(record, allow_nan=False)  # raises on NaN/inf
    again = json.loads(text)
    assert again["result"]["cases"][1]["values"]["mrr@10"] is None
    assert again["result"]["metrics"]["mrr@10"] is None  # the mean of a NaN is not finite


def test_record_names_kinds_and_settings():
    record = regressed_record()
    kinds = record["result"]["kinds"]
    assert kinds["mrr@10"] == "rank"
    assert kinds["llm_relevancy@10"] == "judge"
    assert kinds["latency_p95_ms"] == "latency"
    assert record["settings"]["judge"]["model"] == "gpt-4o-mini"
    assert record["header"].startswith("golden/faq.jsonl (12 cases")


def test_api_base_credentials_never_reach_the_record():
    result = make_result(names=("llm_relevancy@10",), values={"llm_relevancy@10": [1.0, 0.5]})
    url = "https://user:secret@llm.internal:8443/v1?key=abc"
    record = _record_for(result, metrics=["llm_relevancy"], judge_model="m", judge_api_base=url)
    assert record["settings"]["judge"]["api_base"] == "https://llm.internal:8443/v1"
    assert "secret" not in json.dumps(record)
    assert "abc" not in json.dumps(record["settings"])


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://user:pw@host:8443/v1?key=abc#x", "https://host:8443/v1"),
        ("http://localhost:8000/v1", "http://localhost:8000/v1"),
        ("llm.internal/v1?api_key=zzz", "llm.internal/v1"),
        ("user:pw@llm.internal/v1", "llm.internal/v1"),
        (None, None),
        ("", None),
    ],
)
def test_safe_url(url, expected):
    assert safe_url(url) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (float("inf"), None),
        ((1, 2.5), [1, 2.5]),
        ({"a": {1, 2} - {1}}, {"a": [2]}),
        (object, "<class 'object'>"),
    ],
)
def test_json_safe(value, expected):
    assert json_safe(value) == expected


def test_clip():
    assert clip("abc", 3) == "abc"
    assert clip("abcd", 3) == "ab…"
    assert clip(None) is None


def test_junit_properties_with_and_without_baseline():
    record = regressed_record()
    props = dict(junit_properties(record))
    assert props["ragcheck.mrr@10.status"] == "regressed"
    assert props["ragcheck.mrr@10.delta"] == pytest.approx(
        props["ragcheck.mrr@10"] - props["ragcheck.mrr@10.baseline"], abs=2e-6
    )
    assert props["ragcheck.mrr@10.delta"] < -0.02
    assert props["ragcheck.mrr@10.allowed"] == 0.02
    assert props["ragcheck.recall@10.status"] == "pass"
    # Latency is never compared with a baseline: its value only.
    assert "ragcheck.latency_p95_ms" in props
    assert "ragcheck.latency_p95_ms.baseline" not in props

    plain = _record_for(make_result(names=("mrr@10",), values={"mrr@10": [1.0, 0.5]}))
    names = [name for name, _ in junit_properties(plain)]
    assert names == ["ragcheck.mrr@10", "ragcheck.latency_p50_ms", "ragcheck.latency_p95_ms"]


def _large_record(*, pack_all: bool = True, secret_in_query: str = ""):
    n = SHOWN_CASES + 50
    values = [1.0 / (1 + i % 7) for i in range(n)]
    result = make_result(names=("mrr@10",), values={"mrr@10": values}, errors={3: "boom"})
    if secret_in_query:
        result.cases[-1].query += secret_in_query
    settings = build_settings({"cases": "golden.jsonl"})
    verdict = check_floors(result, settings, header="golden.jsonl")
    record = build_record(
        nodeid="t.py::test",
        result=result,
        verdict=verdict,
        settings=settings,
        baseline=None,
        pack_all=pack_all,
    )
    return result, record


def test_a_large_record_carries_the_cases_that_matter_and_every_case_packed():
    result, record = _large_record()
    shown = record["result"]["cases"]
    assert record["result"]["cases_shown"] == len(shown) == SHOWN_CASES
    ids = [c["id"] for c in shown]
    assert ids == sorted(ids, key=[c.id for c in result.cases].index)  # in case order
    assert "q04" in ids  # the case with an error
    lowest = min(c.values["mrr@10"] for c in result.cases if c.status == "ok")
    # every case at the lowest value is shown
    assert {c.id for c in result.cases if c.values["mrr@10"] == lowest} <= set(ids)
    assert sum(record["result"]["distribution"]["mrr@10"]["counts"]) == len(result.cases)
    # Every entry, as the JSON report writes it: exactly the entries of the small form.
    text = "".join(unpacked_text(record["result"]["cases_packed"]))
    assert json.loads(text) == [case_entry(c, None) for c in result.cases]
    # Far smaller than the entries themselves (what xdist carries to the controller).
    assert len(record["result"]["cases_packed"]) * 5 < len(text)


def test_without_a_json_report_the_other_cases_are_not_packed():
    _, record = _large_record(pack_all=False)
    assert "cases_packed" not in record["result"]
    assert len(record["result"]["cases"]) == SHOWN_CASES


def test_packed_cases_are_redacted(monkeypatch):
    secret = "sk-live-0123456789abcdefghij"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    _, record = _large_record(secret_in_query=f" key={secret}")
    text = "".join(unpacked_text(record["result"]["cases_packed"]))
    assert secret not in text
    assert "key=" in text


def test_a_small_record_is_unchanged_by_the_cap():
    result = make_result(names=("mrr@10",), values={"mrr@10": [1.0, 0.5]})
    record = _record_for(result)
    assert set(record["result"]) >= {"cases"}
    assert not {"cases_shown", "distribution", "cases_packed"} & set(record["result"])
    assert record["result"]["cases"] == [case_entry(c, None) for c in result.cases]
