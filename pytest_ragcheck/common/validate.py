"""Checks for the values of marker keywords: one message style for every keyword.

Pure and small: ``evaluation.keywords.build_settings`` validates every keyword through these, so a bad
value names the keyword, what it must be and what it got.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pytest_ragcheck.common.errors import ConfigError, did_you_mean

__all__ = [
    "AUTO",
    "MAX_TIMEOUT",
    "Concurrency",
    "choice",
    "concurrency_value",
    "integer",
    "mapping",
    "number",
    "str_list",
    "timeout_seconds",
]


#: ``concurrency="auto"``: measure the first calls, then choose (:mod:`pytest_ragcheck.run.concurrency`).
AUTO: Literal["auto"] = "auto"
Concurrency = int | Literal["auto"]
#: The longest timeout a worker thread can wait for (``threading.TIMEOUT_MAX``).
MAX_TIMEOUT: float = threading.TIMEOUT_MAX


def number(name: str, value: object, *, lo: float | None = None, hi: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{name} must be a number, got {type(value).__name__}: {value!r}")
    try:
        number = float(value)
    except OverflowError:  # an int too large for a float (repr(value) may fail too)
        raise ConfigError(f"{name} must be a finite number, got an integer too large") from None
    if math.isnan(number) or math.isinf(number):
        raise ConfigError(f"{name} must be a finite number, got {value!r}")
    if lo is not None and number < lo:
        raise ConfigError(f"{name} must be >= {_bound(lo)}, got {value!r}")
    if hi is not None and number > hi:
        raise ConfigError(f"{name} must be <= {_bound(hi)}, got {value!r}")
    return number


def _bound(value: float) -> str:
    """A bound as a message states it: short, but exact (``9223372036``, not ``9.22337e+09``,
    which would read as refusing values it accepts)."""
    short = f"{value:g}"
    if float(short) == value:
        return short
    return f"{value:.0f}" if value.is_integer() else repr(value)


def integer(name: str, value: object, *, lo: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(
            f"{name} must be an integer >= {lo}, got {type(value).__name__}: {value!r}"
        )
    if value < lo:
        raise ConfigError(f"{name} must be an integer >= {lo}, got {value!r}")
    return value


def concurrency_value(value: object) -> Concurrency:
    """``"auto"`` or a number of workers (an explicit number always wins)."""
    if isinstance(value, str) and value.strip().lower() == AUTO:
        return AUTO
    if isinstance(value, str):
        raise ConfigError(
            f"concurrency must be 'auto' or an integer >= 1, got {value!r}"
            + did_you_mean(value.strip().lower(), [AUTO])
        )
    return integer("concurrency", value, lo=1)


def choice(name: str, value: object, choices: Sequence[str]) -> str:
    if value not in choices:
        raise ConfigError(
            f"{name} must be one of {', '.join(repr(c) for c in choices)}, got {value!r}"
            + (did_you_mean(value, choices) if isinstance(value, str) else "")
        )
    return str(value)


def timeout_seconds(name: str, value: object) -> float:
    """Seconds, > 0 and no more than a thread can wait (a larger number overflows)."""
    seconds = number(name, value)
    if seconds <= 0.0:  # 0 would time every call out at once
        raise ConfigError(f"{name} must be > 0 seconds (or None for no timeout), got {value!r}")
    if seconds > MAX_TIMEOUT:
        raise ConfigError(
            f"{name} must be at most {MAX_TIMEOUT:.0f} seconds, got {value!r}; "
            "use None for no timeout"
        )
    return seconds


def str_list(name: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, Sequence | set | frozenset) or not all(
        isinstance(v, str) for v in value
    ):
        raise ConfigError(f"{name} must be a string or a list of strings, got {value!r}")
    return tuple(value)


def mapping(name: str, value: object, what: str, *, hint: str = "") -> Mapping[Any, Any]:
    """A dict keyword (``None`` is an empty one); anything else, falsy ``0`` or ``[]`` too, is
    an error: ``or {}`` would have ignored it unsaid. ``what``: e.g. "metric name -> bound"."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{name} must be a dict of {what}, got {value!r}{hint}")
    return value
