"""The syrupy extension for baselines: one canonical JSON file per test, and its name.

Names: ``__ragcheck__/<test file>/<test name>[ragcheck].json`` beside the test module (syrupy's
single-file layout and named index, in a folder of its own: a session without this plugin scans
syrupy's ``__snapshots__`` for unused snapshots, and would delete baselines kept there).
Characters a file name cannot hold are percent-encoded rather than dropped, so names stay
unique, and :meth:`RagcheckSnapshotExtension.matches_test_location` relates them to their test
for syrupy's unused-snapshot logic (``-k``, skipped tests).

Baselines an earlier version kept in ``__snapshots__/`` are still read (:func:`legacy_location`)
and copied here by the next ``--snapshot-update`` (:func:`copy_baseline`); the guard removes
the old file once a complete session has the new one.

Works with syrupy 5.5 through 7.x: only the extension API common to both is relied on.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import unicodedata
import warnings
from pathlib import Path
from typing import Any

from syrupy.extensions.base import SnapshotCollectionStorage
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from pytest_ragcheck.baseline.decision import UnreadableText
from pytest_ragcheck.baseline.document import BaselineDoc
from pytest_ragcheck.baseline.options import BASELINE_DIRNAME
from pytest_ragcheck.common.input_files import file_kind, read_regular_bytes
from pytest_ragcheck.plugin.items import COLLECTED_MODULES

__all__ = [
    "INDEX_NAME",
    "RagcheckSnapshotExtension",
    "copy_baseline",
    "forget_reads",
    "legacy_location",
    "read_from",
    "safe_file_stem",
    "snapshot_index",
]

#: syrupy snapshot index used for baselines (see :func:`snapshot_index`).
INDEX_NAME = "ragcheck"


def snapshot_index(call: int) -> str:
    """syrupy's named index: ``test_x[ragcheck].json``, then ``test_x[ragcheck-2].json``.

    The name keeps the file apart from a JSON snapshot the test itself may store, and syrupy
    relates ``<test name>[...]`` files to their test (for ``-k`` and skipped tests).
    """
    return INDEX_NAME if call == 1 else f"{INDEX_NAME}-{call}"


class RagcheckSnapshotExtension(SingleFileSnapshotExtension):
    """syrupy extension: one canonical JSON file per test, written by ``BaselineDoc.to_json``."""

    _write_mode = WriteMode.TEXT
    file_extension = "json"
    #: Read by syrupy when it prunes a per-module folder emptied by its clean-up.
    snapshot_dirname = BASELINE_DIRNAME

    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        """``__ragcheck__/<test module>`` beside the module (never ``--snapshot-dirname``:
        that names the folder syrupy's own snapshots share with every session)."""
        site = Path(test_location.filepath).parent
        return str(site / BASELINE_DIRNAME / test_location.basename)

    @classmethod
    def get_location(cls, *, test_location: Any, index: Any) -> str:
        """The baseline's file: its own (:meth:`own_location`), or where an earlier version
        kept it, while it is read from there (see :func:`read_from`): syrupy then counts that
        file as used, and a compare run is the same as before the move."""
        location = cls.own_location(test_location=test_location, index=index)
        return _READ_FROM.get(location, location)

    @classmethod
    def own_location(cls, *, test_location: Any, index: Any) -> str:
        """``__ragcheck__/<test module>/<name>.json``."""
        return str(super().get_location(test_location=test_location, index=index))

    def discover_snapshots(self, *, test_location: Any, **kwargs: Any) -> Any:
        """syrupy's discovery, without the baselines of test modules that exist but were not
        collected (``--ignore``, ``collect_ignore``): their tests were not asked about, so their
        baselines are not unused. syrupy 7 knows this only for its own ``__snapshots__``."""
        if hasattr(SingleFileSnapshotExtension, "discovery_dirname"):  # syrupy 7: all of it
            found = super().discover_snapshots(test_location=test_location, **kwargs)
        else:  # syrupy < 7 scans the test module's own folder only: a removed module's stays
            found = self._discover_all(test_location, kwargs.get("ignore_extensions"))
        config = getattr(getattr(test_location, "item", None), "config", None)
        collected = config.stash.get(COLLECTED_MODULES, None) if config is not None else None
        if collected is None:
            return found
        kept = type(found)()
        for collection in found:
            location = Path(collection.location)
            module = location.parent.parent.parent / f"{location.parent.name}.py"
            if os.path.normcase(module) in collected or not module.is_file():
                kept.add(collection)
        return kept

    def _discover_all(self, test_location: Any, ignore: list[str] | None) -> Any:
        """Every baseline in ``__ragcheck__/`` beside the test module (as syrupy 7 scans)."""
        from syrupy.data import SnapshotCollections
        from syrupy.utils import walk_snapshot_dir

        root = Path(self.dirname(test_location=test_location)).parent
        found = SnapshotCollections()
        for filepath in walk_snapshot_dir(root, ignore_extensions=ignore):
            if Path(filepath).parent.parent == root and self.is_snapshot_location(
                location=filepath
            ):
                found.add(self.read_snapshot_collection(snapshot_location=filepath))
        return found

    def serialize(self, data: Any, **_: Any) -> str:
        if isinstance(data, BaselineDoc):
            return data.to_json()
        if isinstance(data, str):
            return str(data)
        raise TypeError(
            f"{type(self).__name__} stores pytest-ragcheck baselines only, got {type(data).__name__}"
        )

    def read_snapshot_data_from_location(
        self, *, snapshot_location: str, snapshot_name: str, session_id: str
    ) -> str | None:
        """The file's text, never an exception: undecodable bytes become U+FFFD.

        syrupy would otherwise fail inside its own assertion on a damaged file, and then
        ``--snapshot-update`` could not replace it.
        """
        path = Path(snapshot_location)
        try:
            found = path.stat()
            if not stat.S_ISREG(found.st_mode):  # a FIFO would hold the session until killed
                return UnreadableText(f"not a regular file: it is {file_kind(found.st_mode)}")
            key = (str(path), found.st_size, found.st_mtime_ns)
            if key in _LAST_READ:
                return _LAST_READ.pop(key)
            raw = read_regular_bytes(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return UnreadableText(f"{type(exc).__name__}: {exc.strerror or exc}")
        # A byte-order mark (an editor on Windows) is no content, like a CRLF checkout's \r;
        # one of UTF-16's says how to read the file (Windows PowerShell's ``>`` writes it).
        utf16 = raw[:2] in (b"\xff\xfe", b"\xfe\xff")
        text = (raw if utf16 else raw.removeprefix(b"\xef\xbb\xbf")).decode(
            "utf-16" if utf16 else "utf-8", errors="replace"
        )
        # The same newline handling as a text-mode read (a checkout may have CRLF endings).
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        _LAST_READ.clear()
        _LAST_READ[key] = text
        return text

    # --- names -----------------------------------------------------------------------------
    # syrupy drops the characters a file name cannot hold, so ``test[docs/faq.jsonl]`` and
    # ``test[docsfaq.jsonl]`` would share a file, and syrupy could no longer relate the file to
    # its test (a warning, and no protection for skipped tests under --snapshot-update).
    # Percent-encoding them instead keeps names unique, stable and file-system safe; the
    # matching below relates them to their test again.

    @classmethod
    def get_snapshot_name(cls, *, test_location: Any, index: Any = 0) -> str:
        return safe_file_stem(
            SnapshotCollectionStorage.get_snapshot_name(test_location=test_location, index=index),
            limit=cls._stem_limit(),
        )

    @classmethod
    def _stem_limit(cls) -> int:
        """UTF-8 bytes a stem may have: the name plus the temporary file's additions fit in
        the longest file name most file systems accept."""
        return _NAME_MAX - _TEMP_ROOM - len(f".{cls.file_extension}")

    @classmethod
    def matches_test_location(cls, *, test_location: Any, snapshot_location: str) -> bool:
        """Whether ``snapshot_location`` is one of ``test_location``'s baselines (syrupy 7)."""
        parent = getattr(super(), "matches_test_location", None)
        if parent is not None and parent(
            test_location=test_location, snapshot_location=snapshot_location
        ):
            return True
        loc = Path(snapshot_location)
        suffix = f".{cls.file_extension}"
        if loc.parent.name != test_location.basename or not loc.name.endswith(suffix):
            return False
        on_site = getattr(test_location, "matches_snapshot_site", None)
        if on_site is not None and not on_site(snapshot_location):
            return False
        stem = loc.name[: -len(suffix)]
        own = safe_file_stem(str(test_location.snapshot_name), limit=10**9)
        limit = cls._stem_limit()
        if len(own.encode()) + len(INDEX_NAME) + 2 > limit:  # a long name, cut and hashed
            return _CUT.search(stem) is not None and stem.startswith(
                _head(own, limit - _DIGEST - 1, in_bytes=True)
            )
        return stem.startswith(f"{own}[{INDEX_NAME}")

    @classmethod
    def write_snapshot_collection(cls, *, snapshot_collection: Any, **kwargs: Any) -> None:
        """Write the baseline atomically: syrupy opens the file for writing (emptying it) and
        then writes, so Ctrl-C or a kill in between left a baseline of 0 bytes, or cut short.
        A temporary file beside it, renamed over it, leaves the old baseline or the new one."""
        data = next(iter(snapshot_collection)).data
        if not isinstance(data, str):  # syrupy says what it expected
            super().write_snapshot_collection(snapshot_collection=snapshot_collection, **kwargs)
            return
        from pytest_ragcheck.report.files import write_file

        write_file(Path(snapshot_collection.location), data)

    @classmethod
    def write_snapshot(cls, **kwargs: Any) -> None:
        # syrupy < 7 relates files to tests with its own sanitising only, and warns about the
        # percent-encoded names above; the names are ours and related by the method above.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r"\s*Can not relate snapshot location")
            super().write_snapshot(**kwargs)


#: The file read last (location, size, modification time -> text): a check reads its file,
#: and syrupy reads it again when the check asserts it unchanged; that second read (of 60 MB
#: for 200,000 cases) is served from here. :func:`forget_reads` lets it go after the check.
_LAST_READ: dict[tuple[str, int, int], str] = {}
#: Baselines read where an earlier version kept them: own location -> the file read instead.
_READ_FROM: dict[str, str] = {}


def forget_reads() -> None:
    """Let go of the text of the file read last (see ``_LAST_READ``)."""
    _LAST_READ.clear()


def read_from(location: str, legacy: Path | None) -> None:
    """Read (and assert) the baseline of ``location`` at ``legacy`` instead, or, with None,
    at ``location`` again (a run without ``--snapshot-update`` moves nothing)."""
    if legacy is None:
        _READ_FROM.pop(location, None)
    else:
        _READ_FROM[location] = str(legacy)


def legacy_location(test_location: Any, index: str) -> Path:
    """Where pytest-ragcheck 0.1 kept this baseline: syrupy's snapshot folder
    (``__snapshots__``, or ``--snapshot-dirname``), with names cut at 250 characters."""
    site = Path(test_location.filepath).parent / str(SnapshotCollectionStorage.snapshot_dirname)
    name = SnapshotCollectionStorage.get_snapshot_name(test_location=test_location, index=index)
    stem = safe_file_stem(name, limit=_NAME_MAX - len(".json"), in_bytes=False)
    return site / str(test_location.basename) / f"{stem}.json"


def copy_baseline(source: Path, target: Path) -> None:
    """Copy a baseline byte for byte, atomically (a temporary file renamed into place);
    only a regular file is read (``NotRegularFileError`` otherwise)."""
    data = read_regular_bytes(source)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.urandom(4).hex()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


#: Longest file name, in bytes, most file systems accept (ext4, APFS, NTFS).
_NAME_MAX = 255
#: What a temporary file beside a baseline adds to its name (``.<name>.<8 hex>.tmp``, as
#: ``report.files.write_file`` and :func:`copy_baseline` write it).
_TEMP_ROOM = len(".") + len(".01234567.tmp")
#: Hex digits of the hash that keeps a cut name unique.
_DIGEST = 12
#: How a cut name ends: ``~`` and the hash.
_CUT = re.compile(rf"~[0-9a-f]{{{_DIGEST}}}$")
#: Characters Windows (or a shell) cannot have in a file name, plus ``%`` for reversibility.
_UNSAFE_CHARS = frozenset('\\/?*:|"<>%')


def safe_file_stem(name: str, *, limit: int, in_bytes: bool = True) -> str:
    """``name`` as a file-system-safe stem: unsafe characters percent-encoded, long names cut
    to ``limit`` UTF-8 bytes (characters when not ``in_bytes``: how names were cut before).

    Deterministic, and different names give different stems (the encoding is reversible; a
    cut name ends with ``~`` and a hash of the full name).
    """
    encoded = "".join(
        f"%{ord(c):02X}" if c in _UNSAFE_CHARS or unicodedata.category(c).startswith("C") else c
        for c in name
    )
    if len(encoded.encode() if in_bytes else encoded) <= limit:
        return encoded
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:_DIGEST]
    return f"{_head(encoded, limit - _DIGEST - 1, in_bytes=in_bytes)}~{digest}"


def _head(text: str, size: int, *, in_bytes: bool) -> str:
    """The start of ``text`` that fits in ``size`` bytes (or characters), whole characters."""
    if not in_bytes:
        return text[:size]
    return text.encode()[:size].decode("utf-8", errors="ignore")
