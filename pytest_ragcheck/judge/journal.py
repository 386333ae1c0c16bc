"""Which verdict cache entries this process read or wrote (for the cache summary and prune).

:class:`~pytest_ragcheck.judge.cache.VerdictCache` notes every hit and every new entry here,
by cache folder; the plugin clears the journal when a session starts and, under pytest-xdist,
each worker hands its journal to the controller when it finishes. Stdlib only: the plugin
reads it at session start and end without loading the judge's heavier modules.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cache

__all__ = ["clear", "merge", "note", "snapshot"]

Kind = str  # "hit" or "new"

#: cache folder (real path) -> kind -> entry names relative to the folder (posix).
_ENTRIES: dict[str, dict[Kind, set[str]]] = {}


def note(root: str, name: str, kind: Kind) -> None:
    """Record that entry ``name`` under ``root`` was served (``"hit"``) or written (``"new"``)."""
    _ENTRIES.setdefault(_real(root), {}).setdefault(kind, set()).add(name)


@cache
def _real(root: str) -> str:
    return os.path.realpath(root)


def clear() -> None:
    _ENTRIES.clear()


def snapshot() -> dict[str, dict[str, list[str]]]:
    """The journal as JSON data (what an xdist worker sends to the controller)."""
    return {
        root: {kind: sorted(names) for kind, names in kinds.items()}
        for root, kinds in _ENTRIES.items()
    }


def merge(data: Mapping[str, Mapping[str, list[str]]]) -> None:
    """Add a worker's :func:`snapshot` to this process's journal."""
    for root, kinds in data.items():
        for kind, names in kinds.items():
            _ENTRIES.setdefault(root, {}).setdefault(kind, set()).update(names)
