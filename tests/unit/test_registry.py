"""The metric registry: every declaration is complete, and everything derived from it agrees."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_ragcheck import metrics
from pytest_ragcheck.answers import judged
from pytest_ragcheck.answers.lexical import LEXICAL
from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.judge import scoring
from pytest_ragcheck.judge.prompts import PROMPTS
from pytest_ragcheck.metrics import names
from pytest_ragcheck.metrics.authority import AuthorityColumns
from pytest_ragcheck.metrics.diversity import DiversityColumns
from pytest_ragcheck.metrics.engine import _Columns
from pytest_ragcheck.metrics.registry import METRICS, Metric, find_metric, metrics_of_kind

DOCS = Path(__file__).resolve().parents[2] / "docs" / "metrics.md"
TABLE = re.compile(r"<!-- metrics-table:[^\n]*-->\n(.*?)<!-- /metrics-table -->", re.DOTALL)

RANK = tuple(m for m in metrics_of_kind("rank") if "relevance" in m.needs)
#: Rank metrics over subtopic judgments (ndeval's) and over the hits' sources.
DIVERSITY = tuple(m for m in metrics_of_kind("rank") if "subtopics" in m.needs)
AUTHORITY = tuple(m for m in metrics_of_kind("rank") if "sources" in m.needs)
#: Judge metrics that ask the judge about chunks, about the answer, and the statistics over
#: their verdicts (no prompt).
JUDGE = tuple(
    m for m in metrics_of_kind("judge") if m.prompt is not None and "answer" not in m.needs
)
JUDGED_ANSWER = tuple(m for m in metrics_of_kind("judge") if "answer" in m.needs)
LEXICAL_ANSWER = tuple(m for m in metrics_of_kind("answer") if "refusal" not in m.needs)
#: rejection_rate and false_rejection_rate: answer metrics over refusals (SPEC §13).
REFUSAL = tuple(m for m in metrics_of_kind("answer") if "refusal" in m.needs)
STATISTICS = tuple(m for m in metrics_of_kind("judge") if m.prompt is None)
LATENCY = metrics_of_kind("latency")


def _row(metric: Metric) -> str:
    better = "higher" if metric.higher_is_better else "lower"
    cutoff = "yes" if metric.cutoff else "no"
    needs = ", ".join(sorted(metric.needs)) or "-"
    return (
        f"| `{metric.name}` | {metric.kind} | {better} | {cutoff} | {needs} | "
        f"{metric.description} |"
    )


def test_the_docs_table_lists_exactly_the_registered_metrics():
    found = TABLE.search(DOCS.read_text(encoding="utf-8"))
    assert found is not None, "docs/metrics.md lost its metrics-table markers"
    expected = "\n".join(
        [
            "| metric | kind | better | @k | needs | description |",
            "|---|---|---|---|---|---|",
            *(_row(m) for m in METRICS.values()),
        ]
    )
    assert found.group(1).strip() == expected, "regenerate the table:\n" + expected


def test_every_metric_is_one_complete_declaration():
    assert len(METRICS) == len(RANK) + len(DIVERSITY) + len(AUTHORITY) + len(JUDGE) + len(
        STATISTICS
    ) + len(LATENCY) + len(JUDGED_ANSWER) + len(LEXICAL_ANSWER) + len(REFUSAL)
    for metric in METRICS.values():
        assert METRICS[metric.name] is metric
        assert metric.description
        assert "\n" not in metric.description
        assert re.fullmatch(r"[a-z][a-z0-9_]*", metric.name), metric.name
    for metric in RANK:
        assert metric.needs == {"relevance"}
        assert (metric.prompt, metric.formula, metric.quantile) == (None, None, None)
    for metric in (*DIVERSITY, *AUTHORITY):
        assert len(metric.needs) == 1
        assert (metric.prompt, metric.formula, metric.quantile) == (None, None, None)
        assert metric.snapshot
        assert metric.floor_hint
    for metric in JUDGE:
        assert "texts" in metric.needs
        assert (metric.reference, metric.engine, metric.quantile) == (None, None, None)
    for metric in LEXICAL_ANSWER:
        assert metric.needs == {"answer", "reference_answer"}
        assert not metric.cutoff
        assert LEXICAL[metric.name] is getattr(
            sys.modules["pytest_ragcheck.answers.lexical"], metric.name
        )
    for metric in JUDGED_ANSWER:
        assert callable(getattr(judged, metric.formula or ""))
        assert metric.cutoff == ("texts" in metric.needs)  # faithfulness reads the top k
    assert {m.name for m in REFUSAL} == {"rejection_rate", "false_rejection_rate"}
    for metric in REFUSAL:
        assert metric.needs == {"answer", "refusal"}
        assert not metric.cutoff
        # only rejection_rate scores the unanswerable cases, and higher is better there
        assert metric.higher_is_better == (metric.scores_cases == "unanswerable")
    assert callable(getattr(judged, METRICS["rejection_rate"].formula or ""))
    # everything else scores answerable cases only, but the CRAG pair scores all of them
    assert {m.name for m in METRICS.values() if m.scores_cases == "all"} == {
        "truthfulness",
        "hallucination_rate",
    }
    assert {m.name for m in METRICS.values() if m.lowest != 0.0} == {"truthfulness"}
    for metric in STATISTICS:
        assert "texts" in metric.needs
        assert (metric.reference, metric.engine, metric.formula, metric.quantile) == (None,) * 4
        assert (metric.cutoff, metric.snapshot) == (False, False)
        assert metric.floor_hint.startswith("the judge, not the retriever, is the problem")
    for metric in LATENCY:
        assert metric.quantile is not None
        assert 0.0 < metric.quantile <= 1.0
        assert (metric.higher_is_better, metric.cutoff, metric.needs) == (False, False, set())
        assert not metric.snapshot  # a baseline never stores timings
    # baselines store what describes the retriever: not the labels' coverage (judged)
    assert {m.name for m in METRICS.values() if not m.snapshot} == {
        "judged",
        *(m.name for m in STATISTICS),
        *(m.name for m in LATENCY),
    }


@pytest.mark.parametrize("metric", RANK, ids=lambda m: m.name)
def test_rank_metrics_resolve_to_a_pure_function_and_an_engine_column(metric):
    function = metrics.metric_function(metric.name)
    assert function is getattr(metrics, metric.reference)
    assert function.__name__ in metrics.__all__
    assert callable(getattr(_Columns, metric.engine))


@pytest.mark.parametrize("metric", DIVERSITY + AUTHORITY, ids=lambda m: m.name)
def test_facet_metrics_resolve_to_a_pure_function_and_a_column(metric):
    function = getattr(metrics, metric.reference)
    assert function.__name__ == metric.name
    assert metric.name in metrics.__all__
    columns = DiversityColumns if metric in DIVERSITY else AuthorityColumns
    assert callable(getattr(columns, metric.engine))


def test_facet_metric_lists():
    assert names.DIVERSITY_METRICS == (
        "alpha_ndcg",
        "err_ia",
        "nerr_ia",
        "p_ia",
        "subtopic_recall",
        "map_ia",
        "nrbp",
        "nnrbp",
    )
    assert names.AUTHORITY_METRICS == ("authority", "untrusted")
    assert [m.name for m in DIVERSITY if not m.cutoff] == ["map_ia", "nrbp", "nnrbp"]
    assert not METRICS["untrusted"].higher_is_better


@pytest.mark.parametrize("metric", JUDGE + JUDGED_ANSWER, ids=lambda m: m.name)
def test_judge_metrics_resolve_to_a_prompt_and_a_formula(metric):
    prompt = PROMPTS[metric.prompt]
    module = judged if metric in JUDGED_ANSWER else scoring
    assert callable(getattr(module, metric.formula))
    # the prompt renders the reference answer exactly when the metric declares it needs one
    assert ("{reference}" in prompt.template) == ("reference_answer" in metric.needs)


def test_non_rank_metrics_have_no_pure_function():
    with pytest.raises(ValueError, match="not a rank metric"):
        metrics.metric_function("llm_relevancy")


def test_name_lists_and_specs_derive_from_the_registry():
    assert tuple(m.name for m in RANK) == names.RANK_METRICS
    assert tuple(m.name for m in metrics_of_kind("judge")) == names.JUDGE_METRICS
    assert tuple(m.name for m in (*LEXICAL_ANSWER, *REFUSAL)) == names.ANSWER_METRICS
    assert tuple(m.name for m in LATENCY) == names.LATENCY_METRICS
    assert names.all_metric_names() == tuple(METRICS)
    assert names.DEFAULT_METRICS == ("hit_rate", "mrr", "precision", "recall", "map", "ndcg")
    for metric in METRICS.values():
        spec = names.parse_metric(metric.name, 5)
        assert spec.metric is metric
        assert spec.kind == metric.kind
        assert spec.higher_is_better == metric.higher_is_better
        assert spec.name == (f"{metric.name}@5" if metric.cutoff else metric.name)
    assert set(metrics.latency_percentiles([1.0, 2.0])) == {m.name for m in LATENCY}


def test_find_metric_takes_base_and_canonical_names():
    assert find_metric("mrr@10") is METRICS["mrr"]
    assert find_metric("latency_p95_ms") is METRICS["latency_p95_ms"]
    assert find_metric("nope@3") is None


def test_unknown_names_are_rejected_with_a_suggestion():
    with pytest.raises(ConfigError, match="did you mean 'ndcg_exp'"):
        names.parse_metric("ndcg_ex", 10)
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        names.MetricSpec("nope", 3)


def test_the_registry_and_names_import_no_numpy():
    code = "import sys, pytest_ragcheck.metrics.names, pytest_ragcheck.metrics.registry; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
