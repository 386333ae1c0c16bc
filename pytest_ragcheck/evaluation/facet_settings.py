"""The settings of the diversity and source-authority metrics (SPEC §12), validated once.

Marker keywords ``diversity_alpha`` / ``diversity_beta`` (ndeval's novelty parameters),
``authority`` (a table: a path to a JSON or TOML object, or a dict; ini
``ragcheck_authority``), ``trusted_min`` and ``source_key``. Kept apart from
:mod:`pytest_ragcheck.evaluation.settings` so that the one place that merges every keyword stays small.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.common.validate import number

__all__ = [
    "DEFAULT_TRUSTED_MIN",
    "FACET_KEYWORDS",
    "FacetSettings",
    "facet_settings",
    "with_table",
]

#: A source weighing less than this counts as untrusted (``untrusted@k``).
DEFAULT_TRUSTED_MIN = 0.5
DEFAULT_NOVELTY = 0.5
FACET_KEYWORDS: tuple[str, ...] = (
    "diversity_alpha",
    "diversity_beta",
    "authority",
    "trusted_min",
    "source_key",
)


@dataclass(frozen=True, slots=True)
class FacetSettings:
    """What the diversity and authority metrics need besides the cases and the hits."""

    #: ndeval's ``alpha``: how much a second document on an already covered subtopic loses.
    alpha: float = DEFAULT_NOVELTY
    #: ndeval's ``beta``: NRBP's patience.
    beta: float = DEFAULT_NOVELTY
    #: The authority table: a path (resolved as ``cases=`` is), or the table itself
    #: (``pytest_ragcheck.metrics.authority.AuthorityTable``, built from a dict at once).
    authority: Any = None
    trusted_min: float = DEFAULT_TRUSTED_MIN
    #: The hit (or metadata) key that holds a hit's source, when not url/source/domain.
    source_key: str | None = None


def facet_settings(kw: Mapping[str, Any], *, authority: str | None = None) -> FacetSettings:
    """The facet keywords of ``kw`` (``authority``: the ini default table path)."""
    alpha = number("diversity_alpha", kw.get("diversity_alpha", DEFAULT_NOVELTY), lo=0.0, hi=1.0)
    beta = number("diversity_beta", kw.get("diversity_beta", DEFAULT_NOVELTY), lo=0.0, hi=1.0)
    trusted_min = number("trusted_min", kw.get("trusted_min", DEFAULT_TRUSTED_MIN), lo=0.0, hi=1.0)
    source_key = kw.get("source_key")
    if source_key is not None and (not isinstance(source_key, str) or not source_key.strip()):
        raise ConfigError(
            "source_key must name the hit's (or its metadata's) key that holds its URL or "
            f"source, e.g. 'link', got {source_key!r}"
        )
    table = kw.get("authority", authority)
    if isinstance(table, os.PathLike):
        table = os.fspath(table)
    if isinstance(table, Mapping):
        from pytest_ragcheck.metrics.authority_table import authority_table

        table = authority_table(table, "authority")
    elif table is not None and not (isinstance(table, str) and table.strip()):
        raise ConfigError(
            "authority must be a path to a JSON or TOML object {pattern: weight}, or a dict, "
            f"got {type(table).__name__}: {table!r}"
        )
    return FacetSettings(alpha, beta, table, trusted_min, source_key)


def with_table(facets: FacetSettings, base_dirs: Sequence[Path]) -> FacetSettings:
    """``facets`` with its authority table read, a relative path looked up in ``base_dirs``
    (the test file's folder, then the rootdir; the current folder for ``evaluate()``)."""
    from pytest_ragcheck.metrics.authority_table import AuthorityTable, load_authority

    if facets.authority is None or isinstance(facets.authority, AuthorityTable):
        return facets
    return replace(facets, authority=load_authority(facets.authority, list(base_dirs)))
