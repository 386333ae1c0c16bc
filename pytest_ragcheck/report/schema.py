"""The published schema of the JSON report (``--ragcheck-report=report.json``), version 4.

Read a report with::

    from pytest_ragcheck.report.schema import Report

    report = Report.model_validate_json(Path("report.json").read_text())
    for test in report.tests:
        for metric in test.metrics:
            print(test.nodeid, metric.name, metric.value, metric.baseline, metric.status)

The models are strict (unknown fields are an error), so ``schema_version`` is bumped whenever
a field is added, removed or changes meaning; ``Report.model_json_schema()`` gives the JSON
Schema. Values are rounded nowhere: they are the floats the run computed (``null`` for a
non-finite value).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CaseChange",
    "CaseEntry",
    "CiInfo",
    "ComparisonEntry",
    "ComparisonMetric",
    "ComparisonRow",
    "Entry",
    "EntryConfig",
    "HistoryRun",
    "HistoryTest",
    "HistoryTrend",
    "HitEntry",
    "JudgeConfig",
    "JudgeStats",
    "MetricEntry",
    "Report",
    "RunInfo",
    "Summary",
    "Threshold",
]

#: The vocabulary of :mod:`pytest_ragcheck.report.labels` (a test checks they agree).
EntryStatus = Literal[
    "regressed", "below_floor", "above_ceiling", "failed", "improved", "new", "passed", "skipped"
]
MetricStatus = Literal["regressed", "below_floor", "above_ceiling", "improved", "new", "pass"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CiInfo(_Strict):
    """Set when the run happened on GitHub Actions."""

    provider: Literal["github-actions"]
    repository: str | None
    sha: str | None
    ref: str | None
    run_url: str | None
    job: str | None


class RunInfo(_Strict):
    created_at: str = Field(description="UTC time the report was written, ISO 8601")
    generator: str = Field(description="'pytest-ragcheck <version>'")
    pytest_version: str
    python_version: str
    platform: str
    rootdir: str
    ci: CiInfo | None
    incomplete: str | None = Field(
        default=None,
        description="why the session did not run every selected test (interrupted, stopped "
        "early by -x or --maxfail, collection errors): the report lists only the tests that "
        "ran; null for a complete session and in reports of older versions",
    )


class Summary(_Strict):
    """Number of test entries per status (``tests`` = all of them)."""

    tests: int
    regressed: int
    below_floor: int
    above_ceiling: int
    failed: int
    improved: int
    new: int
    passed: int
    skipped: int


class Threshold(_Strict):
    bound: float
    kind: Literal["min", "max"]


class JudgeConfig(_Strict):
    model: str | None
    api_base: str | None = Field(description="without credentials or query string")
    samples: int
    max_calls: int | None
    cache: str | None = Field(description="verdict cache folder, null when disabled")
    offline: bool


class EntryConfig(_Strict):
    """The effective settings of the call (marker > fixture overrides > CLI > ini)."""

    k: int | None
    metrics: list[str]
    tolerance: float
    tolerances: dict[str, float]
    significance: float | None
    per_tag: bool = False
    min_tag_cases: int = 10
    baseline: bool
    thresholds: dict[str, Threshold]
    tags: list[str] | None
    concurrency: int | Literal["auto"]
    timeout: float | None
    on_error: str
    empty: str
    judge: JudgeConfig | None = Field(description="set when judge metrics were asked for")


class MetricEntry(_Strict):
    """One aggregate metric and everything it was compared with."""

    name: str = Field(description="canonical name with its cutoff, e.g. 'mrr@10'")
    kind: Literal["rank", "judge", "latency", "answer"]
    value: float | None
    higher_is_better: bool
    baseline: float | None = Field(description="the stored baseline value, if compared")
    delta: float | None = Field(description="current - baseline")
    allowed: float | None = Field(description="the drop allowed against the baseline")
    bound: float | None = Field(description="absolute threshold (min_... or max_...)")
    bound_kind: Literal["min", "max"] | None
    p_value: float | None = Field(
        description="one-sided paired test p-value (in the direction of the change)"
    )
    holm_over: int | None = Field(
        default=None, description="the number of tags p_value was Holm-corrected over"
    )
    basis: Literal["", "test", "tolerance", "setting"] = Field(
        default="",
        description="what a change beyond tolerance was judged on: 'test' (the paired test), "
        "'tolerance' (too few changed cases to test), 'setting' (significance=None); '' "
        "within tolerance",
    )
    ci: list[float] | None = Field(description="95% confidence interval of the delta")
    status: MetricStatus
    note: str
    compared: float | None = Field(
        default=None,
        description="this run's value on the cases shared with the baseline, when the golden "
        "set changed since it was recorded (what 'baseline' is compared with)",
    )
    current: float | None = Field(
        default=None,
        description="the value compared with 'baseline' ('delta' = current - baseline): "
        "'compared' when set, else 'value'; what every output shows beside the baseline",
    )
    compared_cases: int | None = Field(
        default=None, description="with 'compared': the number of shared cases it is over"
    )
    all_cases: int | None = Field(
        default=None, description="with 'compared': the number of cases 'value' is over"
    )
    detectable: float | None = Field(
        default=None,
        description="smallest drop a paired test on the shared cases detects with 80% power",
    )


class HitEntry(_Strict):
    rank: int = Field(description="1-based position in the retriever's (deduplicated) list")
    id: str
    text: str | None = Field(description="the chunk text, cut to 240 characters")
    score: float | None
    grade: int = Field(description="graded relevance from the golden set (0 = not relevant)")
    spans: list[int] = Field(description="expected_texts spans this hit found first")
    relevant: bool


class CaseEntry(_Strict):
    id: str
    query: str
    tags: list[str]
    status: Literal["ok", "error", "skipped"]
    n_relevant: int
    values: dict[str, float | None] = Field(description="metric -> this case's value")
    baseline_values: dict[str, float] | None = Field(
        description="metric -> this case's baseline value, when the baseline stores them"
    )
    latency_ms: float | None
    error: str | None
    traceback: str | None = Field(description="the end of the retriever's traceback")
    duplicates: int = Field(description="repeated ids dropped from the retriever's list")
    mode: Literal["ids", "texts"]
    hits: list[HitEntry]
    hits_dropped: int = Field(description="hits beyond the first 100, not stored")
    judge: dict[str, list[dict[str, Any]]] = Field(
        description="judge metric -> one entry per judged chunk or claim (verdict, grade or "
        "score, reason)"
    )
    judge_errors: list[str]
    answer: str | None = Field(default=None, description="the pipeline's answer, if any")
    answerable: bool = Field(
        default=True, description="false for a case the collection cannot answer"
    )
    refusal: str | None = Field(
        default=None,
        description="why the answer counts as a refusal (empty, the pattern it matches, the "
        "judge's grade), when a metric of the test counts refusals",
    )
    facets: dict[str, Any] | None = Field(
        default=None,
        description="diversity and authority facts: 'subtopics' (subtopic -> relevant documents "
        "and the first rank covering it) and 'sources' (per hit of the top k: rank, id, source, "
        "the pattern that weighed it, weight); null when no such metric was asked",
    )


class CaseChange(_Strict):
    """A case that got worse against the baseline (the worst few of the metric that fell most)."""

    id: str
    query: str
    metric: str
    before: float | None
    after: float | None
    explain: list[str] = Field(
        default_factory=list,
        description="how the ranking changed: 'd12 rank 1 → 14', 'came in: d99 at 1'",
    )
    baseline_hits: list[str] = Field(
        default_factory=list, description="the baseline's ranked ids for this case"
    )


class JudgeStats(_Strict):
    model_config = ConfigDict(extra="allow", frozen=True)

    calls: int | None = None
    cached: int | None = None
    missing: int | None = None
    failure: str | None = None


class Entry(_Strict):
    """One ``ragcheck(retriever)`` call of one test."""

    nodeid: str
    call: int = Field(description="0 for the first ragcheck call of the test, then 1, 2, ...")
    outcome: Literal["passed", "failed", "skipped"]
    status: EntryStatus
    header: str = Field(description="e.g. 'golden/faq.jsonl (50 cases, k=10)'")
    source: str
    golden_hash: str
    k: int | None
    n_cases: int
    n_errors: int
    n_skipped: int
    config: EntryConfig | None = Field(
        description="the effective settings; null for a test that failed before its "
        "evaluation (a damaged golden set, a bad keyword, a fixture that raised), whose "
        "problems say why"
    )
    aggregates: dict[str, float | None] = Field(description="metric -> mean over cases")
    metrics: list[MetricEntry]
    baseline: dict[str, Any] | None = Field(
        description="what the baseline comparison reported, as stored (null when baseline=False)"
    )
    problems: list[str] = Field(description="paragraphs that failed the test on their own")
    notes: list[str]
    case_changes: list[CaseChange]
    per_tag: dict[str, dict[str, float | None]] | None = Field(
        default=None,
        description="per_tag=True: tag -> metric -> this run's mean over the tag's cases",
    )
    judge: JudgeStats | None
    timings: dict[str, float] | None = Field(
        default=None,
        description="seconds spent per stage of the call: load_s (golden set), retrieve_s, "
        "evaluate_s (all the evaluation does but retrieval, the golden set's checks and hash "
        "included; metrics_s of it: the metric engine), compare_s (floors and baseline), "
        "record_s (the report record); absent in reports of older versions",
    )
    cases: list[CaseEntry]


class ComparisonRow(_Strict):
    """One system on one metric, against the reference system (the first)."""

    system: str
    metric: str
    value: float | None
    delta: float | None = Field(description="mean per-case difference system - reference")
    p_value: float | None = Field(
        description="one-sided paired sign-flip test in the direction of delta (the gate's)"
    )
    p_holm: float | None = Field(description="p_value Holm-corrected across the systems")
    wins: int
    ties: int
    losses: int
    n: int = Field(description="cases both systems scored")
    marker: Literal["win", "loss", ""]


class ComparisonMetric(_Strict):
    name: str
    higher_is_better: bool
    rows: list[ComparisonRow]


class ComparisonEntry(_Strict):
    """One ``ragcheck.compare({...})`` call: systems side by side on the test's golden set."""

    nodeid: str
    systems: list[str]
    reference: str
    source: str
    golden_hash: str
    k: int | None
    n_cases: int
    significance: float | None
    test: str = Field(default="", description="the test behind p and the markers, in words")
    metrics: list[ComparisonMetric]


class HistoryRun(_Strict):
    timestamp: str | None
    commit: str | None
    branch: str | None
    metrics: dict[str, float]


class HistoryTest(_Strict):
    nodeid: str
    call: int
    metrics: list[str]
    baseline: dict[str, float] | None
    runs: list[HistoryRun] = Field(description="oldest first, this run last (at most 60)")


class HistoryTrend(_Strict):
    """``--ragcheck-history``: each test's recorded runs, for the trend charts."""

    file: str
    lines: int
    tests: list[HistoryTest]


class Report(_Strict):
    """A ``--ragcheck-report=*.json`` file."""

    schema_version: Literal[4]
    run: RunInfo
    summary: Summary
    tests: list[Entry] = Field(description="in node-id order")
    comparisons: list[ComparisonEntry] | None = Field(
        default=None, description="ragcheck.compare(...) tables, in node-id order (absent: none)"
    )
    history: HistoryTrend | None = Field(
        default=None, description="with --ragcheck-history: the trend of each test"
    )
