"""The JSON-safe record of one ragcheck call: what reports and pytest-xdist carry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_ragcheck.config import Settings
    from pytest_ragcheck.policy import Verdict
    from pytest_ragcheck.result import Result


def build_record(
    *,
    nodeid: str,
    result: Result,
    verdict: Verdict,
    settings: Settings,
    baseline: dict[str, Any] | None,
) -> dict[str, Any]:
    return {
        "nodeid": nodeid,
        "settings": {
            "k": settings.k,
            "metrics": list(settings.metric_names),
            "tolerance": settings.tolerance,
            "tolerances": dict(settings.tolerances),
            "significance": settings.significance,
            "baseline": settings.baseline,
            "thresholds": {t.name: {"bound": t.bound, "kind": t.kind} for t in settings.thresholds},
        },
        "result": result.to_dict(),
        "verdict": {
            "failed": verdict.failed,
            "checks": [c.to_dict() for c in verdict.checks.values()],
            "problems": list(verdict.problems),
            "notes": list(verdict.notes),
            "case_changes": [
                {
                    "id": c.id,
                    "query": c.query,
                    "metric": c.metric,
                    "before": c.before,
                    "after": c.after,
                }
                for c in verdict.case_changes
            ],
        },
        "baseline": baseline,
    }
