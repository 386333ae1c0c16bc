"""The cyclic garbage collector during a run: paused, run less often, and told what stays.

A large run allocates millions of small objects (cases, hits, per-case values) that live to
its end and hold no reference cycles; every collection walks all of them again. Inside
:func:`fewer_collections` (the fixture's run, ``evaluate``) objects that will live to the end
are frozen (``gc.freeze``: no collection walks them) until the outermost block ends.

During retrieval (:func:`settling`) the collector's own callbacks settle what the run keeps,
as it comes: after a collection its survivors are frozen (older collections never walk them
again); when the last collection found no garbage (the retriever makes no reference cycles),
the next ones freeze the young objects before they start, so they walk nothing. One in
:data:`_SAMPLE` still runs in full, and any garbage it finds turns this off again: cycles a
retriever makes are still collected during the run, and what a skipped collection would have
found is kept until the outermost block's thaw. Outside :func:`fewer_collections` nothing
changes.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from typing import Any

__all__ = ["fewer_collections", "no_collections", "settle", "settling"]

#: Allocations between young-generation collections inside :func:`fewer_collections`
#: (the default is 700; the older generations follow the same factors as usual).
_GC_FIRST = 100_000
#: One entry per :func:`fewer_collections` block open (frozen objects are thawed by the last).
_DEPTH: list[None] = []
#: During :func:`settling`, one collection in this many runs in full while earlier ones
#: found no garbage.
_SAMPLE = 8


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the cyclic garbage collector about a hundred times less often inside, and let it
    skip the objects that were already there.

    At the default thresholds the collector took ~40 % of the evaluation of 50,000 cases.
    Cycles are still collected, only in bigger batches. The objects alive on entry (the golden
    set, say) are frozen until the outermost block ends; :func:`settle` does the same for
    what a stage built to keep (the hits once retrieved, the case results).
    """
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], _GC_FIRST), *before[1:])
    gc.freeze()
    _DEPTH.append(None)
    try:
        yield
    finally:
        _DEPTH.pop()
        if not _DEPTH:
            gc.unfreeze()
        gc.set_threshold(*before)


def settle() -> None:
    """Objects alive now live on to the end of the run: collections need not walk them.

    Only inside :func:`fewer_collections` (whose end thaws them); a no-op elsewhere.
    """
    if _DEPTH:
        gc.freeze()


@contextlib.contextmanager
def no_collections() -> Iterator[None]:
    """Pause the collector while a file is parsed, a set is hashed or case results are built.

    Each allocates a few objects per case and keeps them, so every collection would walk the
    growing set again (half the load time of 200,000 cases). They hold no reference cycles,
    so nothing is left for the collector to find; inside a run they are settled before the
    collector resumes (the collection the paused allocations are due would walk them all).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        settle()
        if was_enabled:
            gc.enable()


class _Settler:
    """The collector callback of one :func:`settling` block."""

    def __init__(self) -> None:
        self.collections = 0
        self.skip = False  # the last full collection found nothing
        self.skipped = False  # the running collection was emptied before it started

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.collections += 1
            self.skipped = self.skip and self.collections % _SAMPLE != 0
            if self.skipped:
                gc.freeze()
        elif not self.skipped:
            self.skip = info["collected"] == 0
            gc.freeze()


@contextlib.contextmanager
def settling() -> Iterator[None]:
    """Inside: what the run keeps is frozen as it comes (inside :func:`fewer_collections`)."""
    if not gc.isenabled() or not _DEPTH:
        yield
        return
    settler = _Settler()
    gc.callbacks.append(settler)
    try:
        yield
    finally:
        gc.callbacks.remove(settler)
