"""pandas DataFrames from plain rows, for ``to_pandas()`` in notebooks.

pandas is an optional extra (``pip install ".[pandas]"``) imported only here, and this module
only by ``to_pandas()``: the plugin and the rest of the package never load it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pytest_ragcheck.common.errors import RagcheckError

if TYPE_CHECKING:
    import pandas

__all__ = ["CASE_COLUMNS", "data_frame", "pandas_module"]

#: Columns of a per-case frame before the metric columns, in this order.
CASE_COLUMNS = ("id", "query", "tags", "status", "latency_ms", "error")


def pandas_module(*, without: str) -> Any:
    """pandas, or an error naming the ``to_dict()`` that gives the same data without it."""
    try:
        import pandas
    except ImportError:
        raise RagcheckError(
            'to_pandas() needs pandas: pip install "pytest-ragcheck[pandas]" (or pip install '
            f"pandas); {without} gives the same data without it"
        ) from None
    return pandas


def data_frame(
    rows: Sequence[dict[str, Any]], columns: Sequence[str], *, without: str
) -> pandas.DataFrame:
    """A frame of ``rows`` with ``columns`` in this order (named even when there is no row)."""
    frame: pandas.DataFrame = pandas_module(without=without).DataFrame(
        list(rows), columns=list(columns)
    )
    return frame
