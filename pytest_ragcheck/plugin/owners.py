"""Which test owns a baseline file name, decided once at collection.

Two tests whose baseline file names differ only in case (``test_Search``, ``test_search``)
share one file on macOS and Windows, and in a git checkout there: each would overwrite the
other's baseline. The first test in collection order owns the name and any later one is told.
Deciding at collection, before any plugin reorders or deselects the tests, gives the same
answer in every process (each pytest-xdist worker collects every test) and in every run,
whichever worker runs which test and in whatever order.

Stdlib and pytest at import; syrupy and the extension are imported only when the session
has a test that stores a baseline.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from pytest_ragcheck.plugin.items import COLLECTED_MODULES, marker_kwargs

if TYPE_CHECKING:
    from collections.abc import Generator

__all__ = ["BaselineOwners", "claim"]

#: Baseline file (case-folded) -> the test that owns it: the first location of each test
#: that stores a baseline, from collection; any other location as a test of this process
#: first uses it.
_OWNERS = pytest.StashKey[dict[str, str]]()
#: On each test decided at collection: the test owning its baseline name (None: itself).
#: Kept on the item, not by node id: on pytest 8, pytest-xdist's ``--dist loadgroup``
#: renames a worker's tests ``name@group`` after collection.
_OWNER = pytest.StashKey[str | None]()


class BaselineOwners:
    """Session plugin: decides at collection which test owns each baseline file name."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_collectstart(self, collector: pytest.Collector) -> None:
        # What syrupy's discovery of our folder needs (``RagcheckSnapshotExtension``): which
        # test modules were collected, so that one left out keeps its baselines.
        if isinstance(collector, pytest.Module):
            modules = self.config.stash.setdefault(COLLECTED_MODULES, set())
            modules.add(os.path.normcase(collector.path))

    # A wrapper run first: it sees the tests as collected, before any plugin reorders
    # (pytest-randomly) or deselects (``-k``) them.
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_collection_modifyitems(
        self, items: list[pytest.Item]
    ) -> Generator[None, None, None]:
        decide(self.config, items)
        return (yield)


def decide(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give each test that stores a baseline the owner of its name: itself, or the first
    test collected whose name differs from its own only in case.

    About 60 µs a test that asks for the fixture (syrupy's own ``get_location``, so the
    names are the ones its assertions use); nothing under ``--collect-only``, where no test
    checks a baseline.
    """
    # syrupy's session, on the config from its own pytest_sessionstart (its fixture reads
    # the same attribute): absent when syrupy is not loaded.
    if getattr(config, "_syrupy", None) is None or config.option.collectonly:
        return  # syrupy is off, or no test runs: no test stores a baseline
    stores = [item for item in items if _stores_baseline(item)]
    if not stores:
        return
    from syrupy.location import PyTestLocation

    from pytest_ragcheck.plugin.snapshot_files import RagcheckSnapshotExtension, snapshot_index

    owners = config.stash.setdefault(_OWNERS, {})
    index = snapshot_index(1)
    for item in stores:
        try:  # the same location syrupy's assertion gives the test when it runs
            location = RagcheckSnapshotExtension.own_location(
                test_location=PyTestLocation(item), index=index
            )
        except Exception:  # not a plain test function: decided when it runs, as before
            continue
        owner = owners.setdefault(str(location).casefold(), item.nodeid)
        item.stash[_OWNER] = None if owner == item.nodeid else owner


def claim(config: pytest.Config, location: str, item: pytest.Item) -> str | None:
    """The other test that owns ``location``, or None when the running test does.

    A test decided at collection gets that decision, in every process. Any other (one that
    asks for the fixture only when it runs) claims the name when it first uses it here.
    """
    if _OWNER in item.stash:
        return item.stash[_OWNER]
    owners = config.stash.setdefault(_OWNERS, {})
    owner = owners.setdefault(location.casefold(), item.nodeid)
    return None if owner == item.nodeid else owner


def _stores_baseline(item: pytest.Item) -> bool:
    """A test asking for the ``ragcheck`` fixture whose marker does not say ``baseline=False``."""
    if "ragcheck" not in getattr(item, "fixturenames", ()):
        return False
    try:
        kwargs = marker_kwargs(item) or {}
    except Exception:  # a malformed marker is reported on its own
        return True
    return kwargs.get("baseline", True) is not False
