"""Input files are read only when they are regular files: a FIFO or a device never ends."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from pytest_ragcheck.common.input_files import NotRegularFileError, read_regular_bytes


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "golden.jsonl"
    path.write_bytes(b'{"id": "q1"}\r\n\xef\xbb\xbf')
    assert read_regular_bytes(path) == b'{"id": "q1"}\r\n\xef\xbb\xbf'
    link = tmp_path / "link.jsonl"
    link.symlink_to(path)
    assert read_regular_bytes(link) == path.read_bytes()  # a link to a file is that file


def test_a_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="not a regular file: it is a folder"):
        read_regular_bytes(tmp_path)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX FIFOs and devices")
def test_a_fifo_and_a_device_are_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "baseline.json"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFileError) as info:  # no writer: a plain open would wait
        read_regular_bytes(fifo)
    assert str(info.value) == "not a regular file: it is a FIFO (named pipe)"
    assert info.value.filename == str(fifo)
    with pytest.raises(NotRegularFileError, match="it is a character device"):
        read_regular_bytes("/dev/zero")


def test_a_missing_file_is_the_usual_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_regular_bytes(tmp_path / "missing.json")
