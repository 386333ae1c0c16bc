"""What the plugin keeps per item and per session, and how a test's marker reads.

Shared by the hooks (``plugin.py``) and the fixture (``fixture.py``); stdlib and pytest only.
"""

from __future__ import annotations

from typing import Any

import pytest

from pytest_ragcheck.errors import ConfigError
from pytest_ragcheck.options import RagcheckOptions

__all__ = [
    "COLLECTED_MODULES",
    "ITEM_COMPARISONS",
    "ITEM_RECORDS",
    "MARKER",
    "OPTIONS",
    "SESSION_RECORDS",
    "marker_kwargs",
    "ragcheck_options",
]

MARKER = "ragcheck"
#: Records of the ragcheck calls made by one test item (JSON-safe dicts).
ITEM_RECORDS = pytest.StashKey[list[dict[str, Any]]]()
#: Every record of the session, gathered on the controller (or the only process).
SESSION_RECORDS = pytest.StashKey[list[dict[str, Any]]]()
#: ``ragcheck.compare(...)`` tables of one test item (JSON data, travels like the records).
ITEM_COMPARISONS = pytest.StashKey[list[dict[str, Any]]]()

#: The test modules this process collected (``os.path.normcase`` of their paths): a module
#: that exists but was left out (``--ignore``) still owns its baselines.
COLLECTED_MODULES = pytest.StashKey[set[str]]()

#: The session's options, read and validated once in ``pytest_configure``.
OPTIONS = pytest.StashKey[RagcheckOptions]()


def ragcheck_options(config: pytest.Config) -> RagcheckOptions:
    """The session's validated ragcheck options (command line > ini > default)."""
    return config.stash[OPTIONS]


def marker_kwargs(item: pytest.Item) -> dict[str, Any] | None:
    """Keywords of every ``ragcheck`` marker on the item, the closest marker winning."""
    marks = list(item.iter_markers(MARKER))
    if not marks:
        return None
    merged: dict[str, Any] = {}
    for mark in reversed(marks):  # farthest first, so the closest overrides
        if len(mark.args) > 1:
            raise ConfigError(
                f"@ragcheck takes at most one positional argument (the cases), got {mark.args!r}"
            )
        if mark.args:
            given = mark.kwargs.get("cases", mark.args[0])
            if given is not mark.args[0] and given != mark.args[0]:
                # Both spellings in one marker: taking either silently hides a typo.
                raise ConfigError(
                    f"@ragcheck got the cases twice, {mark.args[0]!r} positionally and "
                    f"{given!r} as cases=: give them once"
                )
            merged["cases"] = mark.args[0]
        merged.update(mark.kwargs)
    return merged
