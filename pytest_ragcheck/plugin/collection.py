"""What is checked once the tests are collected, before any runs: the ``@ragcheck`` keywords
and the outputs of the session (a typo is a usage error, not 40 failing tests, and a report path
that names a golden set is refused before it is overwritten)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_ragcheck.common.errors import ConfigError, RagcheckError
from pytest_ragcheck.plugin.items import INPUTS, MARKER, marker_kwargs, ragcheck_options

__all__ = ["collection_problems"]


def collection_problems(config: pytest.Config, items: list[pytest.Item]) -> list[str]:
    """One message per distinct problem of ``items``: marker keywords, then outputs."""
    return _marker_problems(config, items) + _output_problems(config, items)


def _marker_problems(config: pytest.Config, items: list[pytest.Item]) -> list[str]:
    """One message per distinct problem in the ``@ragcheck`` keywords (or options) of ``items``."""
    marked = [item for item in items if item.get_closest_marker(MARKER) is not None]
    if not marked:
        return []
    from pytest_ragcheck.evaluation.keywords import build_settings

    defaults = ragcheck_options(config).defaults
    where: dict[str, list[str]] = {}
    for item in marked:
        try:
            build_settings(marker_kwargs(item) or {}, defaults=defaults)
        except RagcheckError as exc:
            where.setdefault(str(exc), []).append(item.nodeid)
    return [
        f"{nodeids[0]}"
        + (f" (and {len(nodeids) - 1} more test(s))" if nodeids[1:] else "")
        + f": {message}"
        for message, nodeids in where.items()
    ]


def _output_problems(config: pytest.Config, items: list[pytest.Item]) -> list[str]:
    """The outputs that would be written over a golden set of the markers or a collected file."""
    from pytest_ragcheck.plugin.outputs import check_outputs, golden_path, outputs

    if not outputs(ragcheck_options(config)):
        return []
    golden: dict[Path, None] = {}
    seen: set[tuple[str, Path]] = set()  # 10,000 tests on one golden set: looked up once
    for item in items:
        try:
            cases = (marker_kwargs(item) or {}).get("cases")
        except ConfigError:
            continue  # a marker problem, reported as such
        if not isinstance(cases, str | os.PathLike) or (str(cases), item.path.parent) in seen:
            continue
        seen.add((str(cases), item.path.parent))
        found = golden_path(cases, (item.path.parent, config.rootpath))
        if found is not None:
            golden[found] = None
    inputs = config.stash[INPUTS].adding(golden=golden, sources={i.path: None for i in items})
    config.stash[INPUTS] = inputs
    try:
        check_outputs(ragcheck_options(config), inputs)
    except ConfigError as exc:
        return [str(exc)]
    return []
