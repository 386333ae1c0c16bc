"""pandas DataFrames of results and comparisons, for notebooks.

pandas is an optional extra (``pip install ".[pandas]"``) imported only here, and this module
only by ``to_pandas()``: the plugin and the rest of the package never load it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_ragcheck.errors import RagcheckError

if TYPE_CHECKING:
    import pandas

    from pytest_ragcheck.result import Result
    from pytest_ragcheck.versus import Comparison

__all__ = ["case_rows", "comparison_frame", "result_frame"]

#: Columns before the metric columns, in this order.
CASE_COLUMNS = ("id", "query", "tags", "status", "latency_ms", "error")
#: The fields of :class:`pytest_ragcheck.versus.SystemRow`, one column each.
COMPARISON_COLUMNS = (
    "system",
    "metric",
    "value",
    "delta",
    "p_value",
    "p_holm",
    "wins",
    "ties",
    "losses",
    "n",
    "marker",
)


def _pandas(without: str) -> Any:
    """pandas, or an error naming the ``to_dict()`` that gives the same data without it."""
    try:
        import pandas
    except ImportError:
        raise RagcheckError(
            'to_pandas() needs pandas: pip install "pytest-ragcheck[pandas]" (or pip install '
            f"pandas); {without} gives the same data without it"
        ) from None
    return pandas


def case_rows(result: Result) -> tuple[list[dict[str, Any]], list[str]]:
    """One dict per case (id, query, tags, status, latency, error, metric values) and the
    metric column names: every metric with per-case values, in the run's order."""
    names = [s.name for s in result.specs if any(s.name in c.values for c in result.cases)]
    rows = [
        {
            "id": c.id,
            "query": c.query,
            "tags": list(c.tags),
            "status": c.status,
            "latency_ms": c.latency_ms,
            "error": c.error,
            **{n: c.values.get(n, float("nan")) for n in names},
        }
        for c in result.cases
    ]
    return rows, names


def result_frame(result: Result) -> pandas.DataFrame:
    """One row per case; metric columns hold NaN where a case has no value (skipped, error)."""
    pd = _pandas("result.to_dict()")
    rows, names = case_rows(result)
    return pd.DataFrame(rows, columns=[*CASE_COLUMNS, *names])


def comparison_frame(comparison: Comparison, *, per_case: bool) -> pandas.DataFrame:
    pd = _pandas("cmp.results[system].to_dict()" if per_case else "cmp.to_dict()")
    if not per_case:
        data = comparison.to_dict()
        records = [row for metric in data["metrics"] for row in metric["rows"]]
        # the columns named even when no metric could be compared (latency only)
        return pd.DataFrame(records, columns=list(COMPARISON_COLUMNS))
    frames = []
    for system, result in comparison.results.items():
        rows, names = case_rows(result)
        frame = pd.DataFrame(rows, columns=[*CASE_COLUMNS, *names])
        frame.insert(0, "system", system)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)
