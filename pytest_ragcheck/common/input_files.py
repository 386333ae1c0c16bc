"""Reading input files (golden sets, baselines): regular files only.

Opening a FIFO for reading waits for a writer, which never comes, and a device such as
``/dev/zero`` never ends: either would hold the session until it is killed. A path that is not
a regular file is refused before anything is read, with what it is. The file is opened without
waiting (``O_NONBLOCK``) and checked on the open descriptor, so a file swapped between a check
and the read cannot slip through.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

__all__ = ["NotRegularFileError", "file_kind", "open_regular", "read_regular_bytes"]

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegularFileError(OSError):
    """The path exists but is no regular file; ``strerror`` says what it is."""

    def __init__(self, path: str | os.PathLike[str], kind: str) -> None:
        super().__init__(f"not a regular file: it is {kind}")
        self.strerror = f"not a regular file: it is {kind}"
        self.filename = os.fspath(path)

    def __str__(self) -> str:
        return str(self.strerror)


def file_kind(mode: int) -> str:
    """What a non-regular file is, for messages ("a FIFO (named pipe)")."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for reading in binary mode; :class:`NotRegularFileError` when it is
    anything but a regular file (symbolic links are followed), any other ``OSError`` as
    ``open`` raises it."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFileError(path, file_kind(mode))
        return open(fd, "rb", closefd=True)  # reads of a regular file never wait
    except BaseException:
        os.close(fd)
        raise


def read_regular_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a regular file (see :func:`open_regular`)."""
    with open_regular(Path(path)) as handle:
        return handle.read()
