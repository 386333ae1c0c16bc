"""pandas DataFrames of comparisons, for notebooks (``Comparison.to_pandas()``).

Built from the comparison's plain data (:meth:`Comparison.to_dict` and its results), so this
module needs no comparison type; pandas loads only here and in :mod:`pytest_ragcheck.common.frames`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pytest_ragcheck.common.frames import CASE_COLUMNS, data_frame, pandas_module

if TYPE_CHECKING:
    import pandas

    from pytest_ragcheck.evaluation.result import Result

__all__ = ["COMPARISON_COLUMNS", "comparison_frame"]

#: The fields of :class:`pytest_ragcheck.explore.systems.SystemRow`, one column each.
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


def comparison_frame(
    data: Mapping[str, Any], results: Mapping[str, Result], *, per_case: bool
) -> pandas.DataFrame:
    """One row per (system, metric) from ``data`` (``Comparison.to_dict()``), or with
    ``per_case`` one row per (system, case) from ``results``."""
    if not per_case:
        records = [row for metric in data["metrics"] for row in metric["rows"]]
        # the columns named even when no metric could be compared (latency only)
        return data_frame(records, COMPARISON_COLUMNS, without="cmp.to_dict()")
    without = "cmp.results[system].to_dict()"
    pd = pandas_module(without=without)
    frames = []
    for system, result in results.items():
        rows, names = result.case_rows()
        frame = data_frame(rows, [*CASE_COLUMNS, *names], without=without)
        frame.insert(0, "system", system)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)
