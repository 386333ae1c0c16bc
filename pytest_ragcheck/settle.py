"""Freezing what a large run keeps, as it comes, when the caller froze the heap before it.

A run of 200,000 cases keeps millions of hits until the end of the evaluation, and each
collection walks the young ones once and the older ones again and again: about a second and
a half per run, mostly spent finding nothing. Inside a caller that froze the objects alive
before the run (``gc.freeze``, as :func:`pytest_ragcheck.evaluation.fewer_collections` does)
and thaws them after it, the collector's own callbacks settle what the run keeps:

- after a collection, its survivors are frozen (older collections never walk them again);
- when the last collection found no garbage (the retriever makes no reference cycles), the
  next ones freeze the young objects before they start, so they walk nothing; one in
  :data:`_SAMPLE` still runs in full, and any garbage it finds turns this off again.

So cycles a retriever makes are still collected during the run; what a skipped collection
would have found is kept until the caller's thaw. Outside such a caller nothing changes.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from typing import Any

__all__ = ["settling"]

#: One collection in this many runs in full while earlier ones found no garbage.
_SAMPLE = 8


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
    """Inside: what the run keeps is frozen as it comes (when the heap was frozen before)."""
    if not gc.isenabled() or gc.get_freeze_count() == 0:
        yield
        return
    settler = _Settler()
    gc.callbacks.append(settler)
    try:
        yield
    finally:
        gc.callbacks.remove(settler)
