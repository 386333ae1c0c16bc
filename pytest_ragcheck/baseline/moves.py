"""Baselines moved out of syrupy's ``__snapshots__/`` into ``__ragcheck__/``.

pytest-ragcheck 0.1 kept the baselines in syrupy's own snapshot folder, which a session
without this plugin (``-p no:ragcheck``, or syrupy alone) scans for unused snapshots and empties
under ``--snapshot-update``. They are still read there; ``--snapshot-update`` copies each one into
``__ragcheck__/`` as its test runs (``baseline.py``), and at the end of a complete session
the old file, now with a copy, is removed here. An incomplete session removes nothing: the
old file stays until a complete one, and the new copy is the one read meanwhile.

Stdlib only; the guard (``guard.py``) calls :func:`retire_legacy` where syrupy cleans up.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable
from pathlib import Path

from pytest_ragcheck.baseline.options import BASELINE_DIRNAME

__all__ = ["retire_legacy"]

#: A baseline's file name: ``<test>[ragcheck].json``, ``<test>[ragcheck-2].json``, or a long
#: name cut and ending with ``~`` and 12 hex digits of a hash of the whole name.
_OURS = re.compile(r"\[ragcheck(?:-\d+)?\]\.json$|~[0-9a-f]{12}\.json$")
_DIGEST = re.compile(r"~[0-9a-f]{12}\.json$")


def retire_legacy(folders: Iterable[Path], rootpath: Path, *, reason: str) -> list[str]:
    """Remove the baselines in the legacy ``folders`` that have their copy in
    ``__ragcheck__/`` (when the session completed: ``reason`` is empty); the messages for
    the terminal summary."""
    moved: list[Path] = []
    failed: list[tuple[Path, OSError]] = []
    pending = 0
    for folder in folders:
        for path in sorted(folder.glob("*/*.json")):
            if not _OURS.search(path.name) or not _has_copy(path, folder):
                continue
            if reason:
                pending += 1
                continue
            try:
                path.unlink()
            except OSError as exc:
                failed.append((path, exc))
                continue
            moved.append(path)
            _remove_if_empty(path.parent)
        _remove_if_empty(folder)
    messages = []
    if moved:
        messages.append(
            f"moved {len(moved)} baseline file(s) from {_where(moved, rootpath)} to "
            f"{BASELINE_DIRNAME}/ beside them (commit the new files and the removals together)"
        )
    if failed:
        first, error = failed[0]
        messages.append(
            f"could not remove {len(failed)} old baseline file(s) already copied to "
            f"{BASELINE_DIRNAME}/ ({_shown(first, rootpath)}: {error.strerror or error}); "
            "delete them yourself: the copies are the ones read"
        )
    if pending:
        messages.append(
            f"{pending} baseline file(s) have their copy in {BASELINE_DIRNAME}/ (the one now "
            f"read); the old files are removed by a complete --snapshot-update, not this "
            f"session, because {reason}"
        )
    return messages


def _has_copy(path: Path, folder: Path) -> bool:
    """Whether ``__ragcheck__/`` beside ``folder`` holds this baseline's copy. A cut name
    is matched by its hash: names are cut shorter there (room for a temporary file's name)."""
    module = folder.parent / BASELINE_DIRNAME / path.parent.name
    if (module / path.name).is_file():
        return True
    cut = _DIGEST.search(path.name)
    return cut is not None and any(module.glob(f"*{cut.group()}"))


def _remove_if_empty(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not empty (the user's own snapshots), or not ours
        folder.rmdir()


def _where(paths: list[Path], rootpath: Path) -> str:
    folders = sorted({_shown(p.parent.parent, rootpath) for p in paths})
    shown = ", ".join(f"{f}/" for f in folders[:3])
    return shown + (f" and {len(folders) - 3} more" if len(folders) > 3 else "")


def _shown(path: Path, rootpath: Path) -> str:
    try:
        return path.relative_to(rootpath).as_posix()
    except ValueError:
        return str(path)
