"""The baseline file: canonical text, round trip, and a clear error for every kind of bad file."""

from __future__ import annotations

import json
import re

import pytest
from baseline_data import GOLDEN_HASH, make_result

from pytest_ragcheck.baseline.document import (
    FORMAT,
    SCHEMA_VERSION,
    BaselineDoc,
    NewerBaselineError,
)
from pytest_ragcheck.common.errors import BaselineError

VALUES = {
    "b-case": {"mrr@10": 0.5, "recall@10": 2 / 3},
    "a-case": {"mrr@10": 1.0, "recall@10": 1 / 3},
    "c-case": {"mrr@10": 0.0, "recall@10": 0.0},
}


def doc_text(**changes: object) -> str:
    """A valid file's JSON with some fields replaced (``None`` removes a field)."""
    data = json.loads(BaselineDoc.from_result(make_result(VALUES)).to_json())
    for key, value in changes.items():
        if value is None:
            data.pop(key)
        else:
            data[key] = value
    return json.dumps(data)


def test_document_holds_what_the_contract_lists() -> None:
    result = make_result(VALUES, skipped=["d-case"])
    data = json.loads(BaselineDoc.from_result(result).to_json())
    assert data["format"] == FORMAT
    assert data["schema_version"] == SCHEMA_VERSION
    assert data["k"] == 10
    assert data["metrics"] == ["mrr@10", "recall@10"]
    assert data["n_cases"] == 4  # the skipped case counts, but has no values
    assert data["golden_hash"] == GOLDEN_HASH
    assert data["precision"] == 4
    assert data["aggregates"] == {"mrr@10": 0.5, "recall@10": 0.3333}
    assert data["cases"]["b-case"] == {
        "hash": "",  # a hand-made result has no golden set to hash
        "hits": [],
        "values": {"mrr@10": 0.5, "recall@10": 0.6667},
    }
    assert set(data["cases"]) == {"a-case", "b-case", "c-case"}


def test_latency_and_timings_are_never_stored() -> None:
    text = BaselineDoc.from_result(make_result(VALUES, latency=True)).to_json()
    assert "latency" not in text
    assert "1.5" not in text  # the cases' latency_ms


def test_text_is_canonical() -> None:
    text = BaselineDoc.from_result(make_result(VALUES)).to_json()
    shuffled = {k: dict(reversed(list(v.items()))) for k, v in reversed(list(VALUES.items()))}
    assert BaselineDoc.from_result(make_result(shuffled)).to_json() == text
    keys = re.findall(r'^  "([a-z_]+)":', text, flags=re.MULTILINE)
    assert keys == sorted(keys)
    assert text.endswith("}\n")
    # One line per case, so a pull-request diff shows which cases moved.
    assert (
        '    "a-case": {"hash": "", "hits": [], "values": {"mrr@10": 1.0, "recall@10": 0.3333}},'
        in text.splitlines()
    )


def test_round_trip() -> None:
    result = make_result(VALUES)
    doc = BaselineDoc.from_result(result)
    again = BaselineDoc.from_json(doc.to_json(), source="x.json")
    assert again == doc
    assert again.to_json() == doc.to_json()


def test_precision_is_configurable_and_negative_zero_is_normalised() -> None:
    values = {"q1": {"mrr@10": 1 / 3}, "q2": {"mrr@10": -0.0}}
    doc = BaselineDoc.from_result(make_result(values), precision=2)
    data = json.loads(doc.to_json())
    assert data["cases"]["q1"]["values"]["mrr@10"] == 0.33
    assert data["precision"] == 2
    assert "-0.0" not in doc.to_json()
    with pytest.raises(BaselineError, match="integer 0-12"):
        BaselineDoc.from_result(make_result(values), precision=13)


def test_whole_ranking_k_is_null() -> None:
    doc = BaselineDoc.from_result(make_result({"q1": {"mrr@all": 1.0}}, k=None))
    assert json.loads(doc.to_json())["k"] is None
    assert BaselineDoc.from_json(doc.to_json()).k is None


def test_nan_in_a_result_is_refused() -> None:
    with pytest.raises(BaselineError, match=r"mrr@10 is nan for case 'q2'"):
        BaselineDoc.from_result(
            make_result({"q1": {"mrr@10": 1.0}, "q2": {"mrr@10": float("nan")}})
        )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            doc_text()[:-40], r"not valid JSON \(line 1, column \d+: .*truncated", id="truncated"
        ),
        pytest.param("", "not valid JSON", id="empty"),
        pytest.param("[1, 2]", "expected a JSON object, got list", id="list"),
        pytest.param(doc_text(format=None), "not a pytest-ragcheck baseline", id="no-format"),
        pytest.param(doc_text(format="other"), "not a pytest-ragcheck baseline", id="other-format"),
        pytest.param(doc_text(schema_version="1"), "bad schema_version '1'", id="schema-string"),
        pytest.param(doc_text(schema_version=0), "bad schema_version 0", id="schema-zero"),
        pytest.param(doc_text(extra=1), "unknown field\\(s\\) 'extra'", id="unknown-field"),
        pytest.param(
            doc_text(golden_hash=None), "missing field\\(s\\) 'golden_hash'", id="missing-field"
        ),
        pytest.param(doc_text(k=0), "bad k 0", id="k-zero"),
        pytest.param(doc_text(k=True), "bad k True", id="k-bool"),
        pytest.param(doc_text(metrics=[]), "bad metrics", id="no-metrics"),
        pytest.param(
            doc_text(metrics=["mrr@10", "mrr@10", "recall@10"]),
            "lists a name twice",
            id="dup-metric",
        ),
        pytest.param(doc_text(n_cases=-1), "bad n_cases -1", id="n-negative"),
        pytest.param(
            doc_text(n_cases=2), "values for 3 cases but n_cases is 2", id="too-many-cases"
        ),
        pytest.param(doc_text(precision=99), "bad precision 99", id="precision"),
        pytest.param(doc_text(golden_hash=5), "bad golden_hash 5", id="hash-type"),
        pytest.param(
            doc_text(aggregates={"mrr@10": 0.5}),
            "aggregates has no value for 'recall@10' \\(listed in metrics\\)",
            id="metric-missing-from-aggregates",
        ),
        pytest.param(
            doc_text(metrics=["mrr@10", "ndcg@10", "recall@10"]),
            "aggregates has no value for 'ndcg@10'",
            id="listed-metric-missing",
        ),
        pytest.param(
            doc_text(cases={"a-case": {"hash": "", "hits": [], "values": {}}}),
            "cases\\['a-case'\\] has no value for 'mrr@10', 'recall@10'",
            id="every-metric-missing-from-case",
        ),
        pytest.param(
            doc_text(
                cases={
                    "a-case": {
                        "hash": "",
                        "hits": [],
                        "values": {"mrr@10": 1.0, "recall@10": 1.0, "f1@10": 1.0},
                    }
                }
            ),
            "cases\\['a-case'\\] has values for 'f1@10', which metrics does not list",
            id="extra-metric-in-case",
        ),
        pytest.param(
            doc_text(aggregates={"mrr@10": "high", "recall@10": 0.3}),
            "aggregates\\['mrr@10'\\] is 'high', expected a number",
            id="string-value",
        ),
        pytest.param(
            doc_text(aggregates={"mrr@10": True, "recall@10": 0.3}),
            "aggregates\\['mrr@10'\\] is True, expected a number",
            id="bool-value",
        ),
        pytest.param(
            doc_text().replace('"mrr@10": 0.5', '"mrr@10": NaN', 1),
            "non-finite number \\(NaN is not allowed\\)",
            id="nan",
        ),
        pytest.param(
            doc_text().replace('"mrr@10": 0.5', '"mrr@10": -Infinity', 1),
            "non-finite number \\(-Infinity is not allowed\\)",
            id="inf",
        ),
        pytest.param(
            doc_text(aggregates={"mrr@10": 1e999, "recall@10": 0.3}),
            "non-finite number|finite values only",
            id="overflow",
        ),
        pytest.param(doc_text(cases=[1]), "bad cases \\(expected an object", id="cases-list"),
    ],
)
def test_bad_file_is_a_clear_error_naming_the_file(text: str, message: str) -> None:
    with pytest.raises(BaselineError, match=message) as info:
        BaselineDoc.from_json(text, source="__ragcheck__/test_x/test_a[ragcheck].json")
    assert str(info.value).startswith("__ragcheck__/test_x/test_a[ragcheck].json: ")
    assert not isinstance(info.value, NewerBaselineError)


def test_newer_schema_says_upgrade() -> None:
    with pytest.raises(NewerBaselineError, match="upgrade pytest-ragcheck") as info:
        BaselineDoc.from_json(
            doc_text(schema_version=SCHEMA_VERSION + 1, future={"x": 1}), source="f.json"
        )
    assert f"schema_version {SCHEMA_VERSION + 1}" in str(info.value)
    assert str(info.value).startswith("f.json: written by a newer pytest-ragcheck")


def test_stored_ranking_depth_follows_the_stored_metrics_only() -> None:
    from pytest_ragcheck.baseline.document import hits_depth
    from pytest_ragcheck.evaluation.result import Result
    from pytest_ragcheck.metrics.names import parse_metric

    def depth(*names: str) -> int:
        specs = tuple(parse_metric(n, 10) for n in names)
        return hits_depth(Result(metrics={}, cases=[], k=10, specs=specs), max_hits=50)

    assert depth("mrr", "recall@20") == 20
    # Metrics never stored (latency, the judge's agreement statistics) ask for no ranking.
    assert depth("mrr", "judge_kappa", "latency_p95_ms") == 10
    # A stored metric without a cutoff reads the whole ranking, capped.
    assert depth("mrr", "r_precision") == 50
    assert depth("map@all") == 50
