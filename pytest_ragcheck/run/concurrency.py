"""How many retriever calls run at once: a number the user set, or ``"auto"``.

``"auto"`` (the default) measures the first calls of a sync retriever, one at a time: the
process's CPU time against the wall time of each call. One that keeps the CPU busy
(in-process BM25, a local embedding model, numpy) gains nothing from threads under the GIL or
with multithreaded BLAS, and each call only gets slower, so it runs serially and its
latencies are those of single calls; one that waits (a network, a database) runs on up to
:data:`AUTO_WORKERS` threads (or coroutines in flight, for an async retriever: measured the
same way, since many frameworks' async methods run the sync code in an executor).

Process CPU time rather than the calling thread's: native libraries compute on threads of
their own. On a machine busy with other processes a CPU-bound call gets only part of a core,
so the share is divided by what a busy thread can get now: measured where Linux tells how long
the thread running the measured calls waited for a CPU during them (:class:`Contention`), else
cores / load average (at most 1), which lags by a minute behind a machine loaded all at once;
waiting calls use a few percent whatever the load.

:class:`RunOptions` holds what every call of a run shares, concurrency and timeout checked
(it lives here rather than in :mod:`pytest_ragcheck.run.runner`, which re-exports it, to keep
that module small).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_ragcheck.common.validate import AUTO, MAX_TIMEOUT, Concurrency

__all__ = [
    "AUTO",
    "AUTO_WORKERS",
    "CPU_BOUND_SHARE",
    "PROBE_CALLS",
    "Concurrency",
    "ConcurrencyChoice",
    "Contention",
    "RunOptions",
    "choose",
    "cpu_available",
]

#: Workers (threads, or coroutines in flight) for I/O-bound retrievers under ``"auto"``.
AUTO_WORKERS = 16
#: Calls measured, one at a time, before ``"auto"`` decides (the first is a warm-up).
PROBE_CALLS = 3
#: Share of the call time spent on the CPU (of what is available) from which a sync
#: retriever runs serially.
CPU_BOUND_SHARE = 0.5
#: Calls shorter than this (ms) run serially under ``"auto"``: threads cannot save more than
#: they cost, and CPU shares of such short calls are mostly measurement noise.
FAST_CALL_MS = 1.0


@dataclass(frozen=True, slots=True)
class ConcurrencyChoice:
    """How many calls ran at once, and why (``reason`` is empty when the user set it)."""

    workers: int
    auto: bool
    reason: str = ""

    def describe(self) -> str:
        """``concurrency auto → 1 (CPU-bound: ...)``, as the summary shows it."""
        if not self.auto:
            return f"concurrency {self.workers}"
        return f"concurrency auto → {self.workers} ({self.reason})"


def cpu_available() -> float:
    """The share of a core a busy thread can expect now: 1.0 unless the machine is loaded."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # not on every platform
        return 1.0
    cores = os.cpu_count() or 1
    return min(1.0, cores / load) if load > 0 else 1.0


def _thread_times() -> tuple[float, float] | None:
    """This thread's time on a CPU and runnable but waiting for one (ms), from Linux's
    ``schedstat``; ``None`` where the system does not say."""
    try:
        with open("/proc/thread-self/schedstat", "rb") as file:
            on_cpu, waiting = file.read().split()[:2]
        return int(on_cpu) / 1e6, int(waiting) / 1e6
    except (OSError, ValueError):
        return None


class Contention:
    """How much of a core the threads running ``"auto"``'s measured calls got while they
    wanted one: what a busy thread can get now, seen rather than estimated."""

    #: Less time runnable than this (ms; waiting calls) says too little: the load average.
    MIN_RUNNABLE_MS = 5.0

    def __init__(self) -> None:
        self.on_cpu = self.waiting = 0.0
        self.known = True

    def start(self) -> tuple[float, float] | None:
        """Call before a measured call, in its thread; hand the value to :meth:`add`."""
        return _thread_times()

    def add(self, before: tuple[float, float] | None) -> None:
        """Count the call since ``before`` (its thread's times), in the same thread."""
        after = _thread_times()
        if before is None or after is None:
            self.known = False
            return
        self.on_cpu += after[0] - before[0]
        self.waiting += after[1] - before[1]

    def available(self) -> float:
        """The share of a core a runnable thread got (1.0 when it never waited), or
        :func:`cpu_available` when unknown."""
        runnable = self.on_cpu + self.waiting
        if not self.known or runnable < self.MIN_RUNNABLE_MS:
            return cpu_available()
        return min(1.0, self.on_cpu / runnable)


def choose(calls: Sequence[tuple[float, float]], *, available: float = 1.0) -> ConcurrencyChoice:
    """The choice for a sync retriever from measured ``(wall ms, process CPU ms)`` calls;
    ``available``: the share of a core a busy thread got while they ran
    (:meth:`Contention.available`)."""
    measured = list(calls[1:] if len(calls) > 1 else calls)  # the first call warms caches up
    if not measured:
        return ConcurrencyChoice(AUTO_WORKERS, True, "no successful call to measure")
    wall = sum(w for w, _ in measured)
    share = sum(c for _, c in measured) / wall if wall > 0 else 1.0
    busy = f", {available:.0%} of a core free" if available < 1.0 else ""
    per_call = f"{wall / len(measured):.1f} ms per call, {min(share, 1.0):.0%} of it on the CPU"
    if wall / len(measured) < FAST_CALL_MS:
        return ConcurrencyChoice(1, True, f"fast: {wall / len(measured):.2f} ms per call")
    if share >= CPU_BOUND_SHARE * available:
        return ConcurrencyChoice(1, True, f"CPU-bound: {per_call}{busy}")
    return ConcurrencyChoice(AUTO_WORKERS, True, f"I/O-bound: {per_call}{busy}")


@dataclass(frozen=True, slots=True, kw_only=True)
class RunOptions:
    """How every case is run, checked once and handed down whole to each call.

    ``k`` is the depth asked of the retriever: passed to retrievers that accept ``k``/``top_k``
    (never when ``None``); hits are not cut at ``k``. ``concurrency`` is a number of workers or
    ``"auto"``. ``timeout`` is per case, in seconds (``None``: no limit). ``id_key`` is the
    metadata key that holds a hit's id; ``sources`` the keys of its source (read only when
    a metric needs it).
    """

    k: int | None
    concurrency: Concurrency
    timeout: float | None
    id_key: str | None = None
    sources: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        concurrency = self.concurrency
        if concurrency != AUTO and (
            isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1
        ):
            raise ValueError(f"concurrency must be an integer >= 1 or 'auto', got {concurrency!r}")
        timeout = self.timeout
        if timeout is not None and not 0 < timeout <= MAX_TIMEOUT:
            raise ValueError(
                f"timeout must be a positive number of seconds up to {MAX_TIMEOUT:.0f} or None "
                f"(no limit), got {timeout!r}"
            )
