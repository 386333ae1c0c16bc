"""Freezing what a large run keeps, as it comes, when the caller froze the heap before it.

A run of 200,000 cases keeps millions of hits until the end of the evaluation, and each
collection of the older generations walks them all again: half a second per collection,
a second or more per run. Inside a caller that froze the objects alive before the run
(``gc.freeze``, as :func:`pytest_ragcheck.evaluation.fewer_collections` does) and thaws them
after it, what survives each young collection is frozen as well. The young collections still
run, so the garbage cycles a retriever makes are still found; only objects that outlive one
are kept to the caller's thaw. Outside such a caller nothing changes.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from typing import Any

__all__ = ["settling"]


def _freeze_survivors(phase: str, info: dict[str, Any]) -> None:
    if phase == "stop" and info["generation"] == 0:
        gc.freeze()


@contextlib.contextmanager
def settling() -> Iterator[None]:
    """Inside: the survivors of each young collection are frozen (when the heap was)."""
    if not gc.isenabled() or gc.get_freeze_count() == 0 or _freeze_survivors in gc.callbacks:
        yield
        return
    gc.callbacks.append(_freeze_survivors)
    try:
        yield
    finally:
        gc.callbacks.remove(_freeze_survivors)
