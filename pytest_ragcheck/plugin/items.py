"""What the plugin keeps per item and per session, and how a test's marker reads.

Shared by the hooks (``plugin/__init__.py``) and the fixture (``fixture.py``); stdlib and pytest
only: the plugin's import loads it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from pytest_ragcheck.common.errors import ConfigError

if TYPE_CHECKING:
    from pytest_ragcheck.plugin.options import RagcheckOptions
    from pytest_ragcheck.plugin.outputs import Inputs

__all__ = [
    "COLLECTED_MODULES",
    "INPUTS",
    "ITEM_COMPARISONS",
    "ITEM_RECORDS",
    "MARKER",
    "OPTIONS",
    "SESSION_RECORDS",
    "USED",
    "is_worker",
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
OPTIONS: pytest.StashKey[RagcheckOptions] = pytest.StashKey()
#: What the session reads or keeps, as far as known (no output may be written over it).
INPUTS: pytest.StashKey[Inputs] = pytest.StashKey()


#: Set once a test used its fixture (a call, a comparison, or its settings): its marker was
#: acted on (``plugin`` warns about a passing marked test that never did).
USED = pytest.StashKey[bool]()


def is_worker(config: object) -> bool:
    """True on a pytest-xdist worker (whose controller prints and writes the reports)."""
    return hasattr(config, "workerinput")


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
