"""One judge call per cache key across processes: a lock file beside the entry.

pytest-xdist workers share the verdict cache; two tests on different workers that judge the
same (query, chunk) pairs would both miss the cache and both pay for every verdict. Before a
call, a run creates ``.<key>.lock`` next to the entry (``O_CREAT | O_EXCL``: exactly one
process succeeds), reads the cache again (another process may have written the entry since),
calls the judge, writes the entry and removes the lock. A run that finds the lock taken waits
for it to go and reads the entry; when the holder got no verdict (its budget ran out, the
endpoint failed), the waiter tries itself.

A lock names its holder (host and process id): on the same host (POSIX), the lock of a
process that is gone (killed) is removed at once. Otherwise a holder touches its locks every
:data:`BEAT` seconds, and a lock untouched for :data:`STALE` seconds was left by a process
that died (on another machine sharing the folder, a power cut) and is removed. Breaking a stale
lock is not atomic: two waiters that both see it stale may both call once for that key (a
verdict paid twice, never a damaged entry: entries are written atomically). Stdlib only and
the same on every OS (no ``fcntl`` / ``msvcrt``). A folder where no lock can be created (read
only) leaves the call unlocked: its entry cannot be written either.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
import time

__all__ = ["BEAT", "STALE", "KeyLocks", "lock_name"]

#: Seconds between two touches of the locks a run holds.
BEAT = 5.0
#: A lock untouched this long belongs to a process that is gone.
STALE = 30.0
#: Longest wait between two looks at a lock another process holds.
_MAX_POLL = 0.5


_HOST = socket.gethostname().replace(" ", "_")


def _holder_gone(name: str) -> bool:
    """Whether the lock ``name`` was created on this host by a process that no longer runs
    (POSIX only: on Windows ``os.kill`` would end the process)."""
    if os.name != "posix":
        return False
    try:
        with open(name, encoding="ascii") as fh:
            host, pid, _ = fh.read().split(" ")
        if host != _HOST:
            return False
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (OSError, ValueError):  # unreadable, half written, another user's process
        return False
    return False


def lock_name(entry: str) -> str:
    """The lock file of the cache entry ``entry`` (``<folder>/.<key>.lock``, hidden, never
    mistaken for an entry)."""
    folder, name = os.path.split(entry)
    return os.path.join(folder, f".{name.removesuffix('.json')}.lock")


class KeyLocks:
    """The lock files one run holds, and waiting for those of other processes."""

    def __init__(self, *, stale: float = STALE) -> None:
        self.stale = stale
        #: lock file -> the token written in it (only our own lock is ever removed)
        self.held: dict[str, str] = {}

    def acquire(self, entry: str) -> bool:
        """Take the lock of ``entry``; ``False`` when another process holds it."""
        name = lock_name(entry)
        token = f"{_HOST} {os.getpid()} {secrets.token_hex(8)}"
        for _ in range(2):  # a second try after removing a stale lock
            try:
                os.makedirs(os.path.dirname(name), exist_ok=True)
                fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                if not self._break_if_stale(name):
                    return False
                continue
            except OSError:  # a read-only folder: no lock, and no entry written either
                return True
            with os.fdopen(fd, "w", encoding="ascii") as fh:
                fh.write(token)
            self.held[name] = token
            return True
        return False

    def release(self, entry: str) -> None:
        """Remove the lock of ``entry`` if it is still the one this run created."""
        name = lock_name(entry)
        token = self.held.pop(name, None)
        if token is None:
            return
        with contextlib.suppress(OSError):
            with open(name, encoding="ascii") as fh:
                mine = fh.read() == token
            if mine:
                os.unlink(name)

    def refresh(self) -> None:
        """Touch every lock held, so that other processes do not take it for a dead one's."""
        for name in list(self.held):
            with contextlib.suppress(OSError):
                os.utime(name)

    async def keep_fresh(self) -> None:
        """:meth:`refresh` every :data:`BEAT` seconds until cancelled."""
        while True:
            await asyncio.sleep(BEAT)
            self.refresh()

    async def wait(self, entry: str) -> None:
        """Return once the lock of ``entry`` is gone (released, or stale and removed)."""
        name = lock_name(entry)
        delay = 0.02
        while os.path.lexists(name) and not self._break_if_stale(name):
            await asyncio.sleep(delay)
            delay = min(delay * 2, _MAX_POLL)

    def _break_if_stale(self, name: str) -> bool:
        """Remove ``name`` if its process is gone or no process has touched it for
        :attr:`stale` seconds; ``True`` when it is gone."""
        try:
            age = time.time() - os.stat(name).st_mtime
            if age < self.stale and not _holder_gone(name):
                return False
            os.unlink(name)
        except FileNotFoundError:
            return True
        except OSError:  # cannot even look at it: waiting could last forever
            return True
        return True
