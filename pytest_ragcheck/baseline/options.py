"""The session's baseline settings (ini keys) and their defaults.

Plain data, cheap to import: the plugin reads these options when a session starts, before it
knows whether any test stores a baseline.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "BASELINE_DIRNAME",
    "DEFAULT_MAX_HITS",
    "DEFAULT_PRECISION",
    "MAX_HITS_INI",
    "MAX_PRECISION",
    "PRECISION_INI",
    "BaselineOptions",
]

#: The folder beside each test module that holds its baselines: one of their own, not syrupy's
#: ``__snapshots__``, which a session without this plugin (``-p no:ragcheck``, or syrupy alone)
#: scans and would empty under ``--snapshot-update``.
BASELINE_DIRNAME = "__ragcheck__"
#: ini key for the decimals kept in the file.
PRECISION_INI = "ragcheck_baseline_precision"
#: Decimals kept in the file (ini ``ragcheck_baseline_precision``).
DEFAULT_PRECISION = 4
MAX_PRECISION = 12
#: ini key, and default, for how many ranked ids a case stores when a metric has no cutoff.
MAX_HITS_INI = "ragcheck_baseline_max_hits"
DEFAULT_MAX_HITS = 100


@dataclass(frozen=True, slots=True)
class BaselineOptions:
    """Session-wide baseline settings (ini keys), read once at start-up."""

    #: Decimals kept in the file (ini ``ragcheck_baseline_precision``).
    precision: int = DEFAULT_PRECISION
    #: Fail when a metric improves beyond tolerance (ini ``ragcheck_fail_on_improvement``).
    fail_on_improvement: bool = False
    #: Ranked ids stored per case when a metric has no cutoff (``@all``, ``r_precision``).
    max_hits: int = DEFAULT_MAX_HITS
