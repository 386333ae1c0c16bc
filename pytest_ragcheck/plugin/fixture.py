"""The ``ragcheck`` fixture's object: run a golden set, gate it, record it for the reports."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_ragcheck.common.display import counted, printable
from pytest_ragcheck.common.errors import ConfigError, RagcheckError
from pytest_ragcheck.evaluation.keywords import build_settings
from pytest_ragcheck.plugin.items import (
    ITEM_COMPARISONS,
    ITEM_RECORDS,
    USED,
    marker_kwargs,
    ragcheck_options,
)
from pytest_ragcheck.plugin.outputs import outputs

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pytest_ragcheck.evaluation.result import Result
    from pytest_ragcheck.evaluation.settings import Settings
    from pytest_ragcheck.explore.systems import Comparison
    from pytest_ragcheck.golden import GoldenSet

__all__ = ["RagcheckFixture"]


class RagcheckFixture:
    """The ``ragcheck`` fixture: ``ragcheck(retriever, **overrides) -> Result``.

    Runs the golden set of the test's ``@ragcheck`` marker through ``retriever``, checks the
    thresholds and the stored baseline, records the metrics and fails the test (one message,
    no plugin traceback) when quality dropped.
    """

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self._request = request

    def settings(self, **overrides: Any) -> Settings:
        """The effective settings for this test (call overrides > marker > CLI > ini > default)."""
        item = self._request.node
        item.stash[USED] = True
        return build_settings(
            marker_kwargs(item) or {},
            overrides,
            defaults=ragcheck_options(self._request.config).defaults,
        )

    def __call__(self, retriever: Any, **overrides: Any) -> Result:
        __tracebackhide__ = True
        from pytest_ragcheck.common.collector import fewer_collections

        try:
            with fewer_collections():  # loading, baseline and record allocate in bulk too
                return self._run(retriever, overrides)
        except RagcheckError as exc:
            message = str(exc)
        from pytest_ragcheck.common.redact import redact

        # Outside the except block: pytest would otherwise print the message twice, joined
        # by "During handling of the above exception, another exception occurred".
        pytest.fail(printable(redact(message)), pytrace=False)

    def compare(self, retrievers: Mapping[str, Any], **overrides: Any) -> Comparison:
        """Evaluate named retrievers on the test's golden set and compare them with the first.

        ``cmp = ragcheck.compare({"bm25": a, "hybrid": b})``: the table goes to the summary
        and the reports; nothing is gated (no floors, no baseline): assert with
        ``cmp.better("hybrid", "bm25", "ndcg@10")``. ``significance`` is the test's.
        """
        __tracebackhide__ = True
        from pytest_ragcheck.common.redact import redact, redact_data
        from pytest_ragcheck.evaluation.pipeline import evaluate_golden
        from pytest_ragcheck.explore.systems import check_errors, check_systems, compare_results
        from pytest_ragcheck.plugin.reporting import make_progress

        try:
            systems = check_systems(retrievers)
            settings = self._with_table(self.settings(**overrides))
            self._skip_without_judge(settings)
            golden = self._golden(settings, call="ragcheck.compare(systems, cases=...)")
            item = self._request.node
            progress = make_progress(self._request.config, item.nodeid)
            results = {
                name: evaluate_golden(r, golden, settings, progress=progress)
                for name, r in systems.items()
            }
            if settings.on_error == "fail":
                check_errors(results)
        except RagcheckError as exc:
            message = str(exc)
        else:
            comparison = compare_results(results, significance=settings.significance)
            data = redact_data({"nodeid": item.nodeid, **comparison.to_dict()})
            item.stash.setdefault(ITEM_COMPARISONS, []).append(data)
            return comparison
        pytest.fail(printable(redact(message)), pytrace=False)

    def _skip_without_judge(self, settings: Settings) -> None:
        """``--ragcheck-no-judge=skip``: a test asking for judge metrics is skipped, before
        its retriever runs, when no judge is configured, naming exactly what to set."""
        if ragcheck_options(self._request.config).no_judge != "skip":
            return
        judged = [s for s in settings.metrics if s.metric.prompt is not None]
        missing = []
        if judged and not settings.judge.model:
            missing.append(
                "--ragcheck-judge-model=MODEL (or ini ragcheck_judge_model, or judge_model= in "
                "the marker), any model name litellm accepts, e.g. openai/gpt-4o-mini, with its "
                "provider's API key in the environment (e.g. OPENAI_API_KEY)"
            )
        if (
            any("embeddings" in s.metric.needs for s in judged)
            and not settings.judge.embedding_model
        ):
            missing.append(
                "--ragcheck-judge-embedding-model=MODEL (or ini ragcheck_judge_embedding_model, "
                "or judge_embedding_model= in the marker), e.g. openai/text-embedding-3-small"
            )
        if missing:
            names = ", ".join(s.name for s in judged)
            pytest.skip(
                f"no LLM judge configured for {names} (--ragcheck-no-judge=skip); to run this "
                f"test set {' and '.join(missing)}"
            )

    def _golden(
        self, settings: Settings, call: str = "ragcheck(retriever, cases=...)"
    ) -> GoldenSet:
        """The golden set the settings name, relative paths found next to the test first."""
        from pytest_ragcheck.golden import load_golden

        if settings.cases is None:
            raise ConfigError(
                f"no golden cases: add @ragcheck(cases='golden.jsonl') to the test or call {call}"
            )
        return load_golden(settings.cases, base_dirs=self._base_dirs(), split=settings.split)

    def _base_dirs(self) -> list[Path]:
        """Where relative paths of the marker are looked up: the test's folder, the rootdir."""
        item = self._request.node
        return [Path(str(item.path)).parent, Path(self._request.config.rootpath)]

    def _with_table(self, settings: Settings) -> Settings:
        """The settings with the authority table read, when an authority metric needs it."""
        if not settings.needs_sources:
            return settings
        from pytest_ragcheck.evaluation.facet_settings import with_table

        return settings.replace(facets=with_table(settings.facets, self._base_dirs()))

    def _run(self, retriever: Any, overrides: Mapping[str, Any]) -> Result:
        from pytest_ragcheck.common.redact import redact, redact_data
        from pytest_ragcheck.evaluation.pipeline import evaluate_golden
        from pytest_ragcheck.gate.verdict import check_floors, failure_message
        from pytest_ragcheck.plugin.reporting import make_progress
        from pytest_ragcheck.report.paths import JSON_FORMATS, report_format
        from pytest_ragcheck.report.record import build_record, junit_properties

        request = self._request
        item = request.node
        settings = self._with_table(self.settings(**overrides))
        self._skip_without_judge(settings)
        clock = time.perf_counter()
        golden = self._golden(settings)
        timings = {"load_s": time.perf_counter() - clock}
        progress = make_progress(request.config, item.nodeid)
        result = evaluate_golden(retriever, golden, settings, progress=progress)
        timings.update(result.info.get("timings") or {})
        clock = time.perf_counter()
        header = f"{golden.source} ({counted(len(result.cases), 'case')}, k={settings.k})"
        verdict = check_floors(result, settings, header=header, nodeid=item.nodeid)
        baseline_info: dict[str, Any] | None = None
        if settings.baseline:
            from pytest_ragcheck.plugin.snapshots import check_baseline

            baseline_info = check_baseline(
                request=request,
                result=result,
                settings=settings,
                verdict=verdict,
                options=ragcheck_options(request.config).baseline,
            ).to_dict()
        timings["compare_s"] = time.perf_counter() - clock
        clock = time.perf_counter()
        options = ragcheck_options(request.config)
        record = build_record(
            nodeid=item.nodeid,
            result=result,
            verdict=verdict,
            settings=settings,
            baseline=baseline_info,
            pack_all=any(report_format(p) in JSON_FORMATS for p in options.report_paths),
        )
        if options.propose_labels is not None:
            from pytest_ragcheck.judge.proposals import label_proposals

            record["proposals"] = label_proposals(golden, result, settings)
        record = redact_data(record)  # no API key leaves the process (reports, junit, xdist)
        record["timings"] = {**timings, "record_s": time.perf_counter() - clock}
        if outputs(options):  # no report is written over a file this test read
            from pytest_ragcheck.golden import source_files

            found = source_files(settings.cases, base_dirs=self._base_dirs(), split=settings.split)
            record["inputs"] = [str(path) for path in found]
        item.stash.setdefault(ITEM_RECORDS, []).append(record)
        item.user_properties.extend(junit_properties(record))
        if verdict.failed:
            pytest.fail(printable(redact(failure_message(verdict, result))), pytrace=False)
        return result
