"""``load_golden``: resolve a source, pick its reader, and cache the result per process.

A file-backed set is cached under its path (and split) with the modification time and size of
every file it was read from, so an edited file is re-read and an unchanged one is parsed once
per process however many tests use it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from pytest_ragcheck.common.collector import no_collections
from pytest_ragcheck.common.errors import GoldenSetError
from pytest_ragcheck.golden.beir import BeirFiles, beir_files, beir_files_for_qrels, load_beir
from pytest_ragcheck.golden.build import from_objects
from pytest_ragcheck.golden.files import display_path, load_json, load_jsonl
from pytest_ragcheck.golden.model import GoldenSet

__all__ = ["clear_cache", "load_golden", "source_files"]

_JSONL_SUFFIXES = (".jsonl", ".ndjson")

_Signature = tuple[tuple[str, int, int], ...]
_CACHE: dict[tuple[str, str | None], tuple[_Signature, GoldenSet]] = {}
_CACHE_LOCK = threading.Lock()


def clear_cache() -> None:
    """Forget every loaded golden set (the next load reads the files again)."""
    with _CACHE_LOCK:
        _CACHE.clear()


def _resolve(source: str | os.PathLike[str], base_dirs: Sequence[Path]) -> Path:
    raw = Path(source).expanduser()
    if raw.is_absolute():
        candidates = [raw]
    else:
        bases = list(base_dirs) or [Path.cwd()]
        # The test's folder is often the rootdir: try (and list) each place once.
        candidates = list(dict.fromkeys(Path(base) / raw for base in bases))
    for candidate in candidates:
        if candidate.exists():
            return candidate.resolve()
    looked = ", ".join(str(c) for c in candidates)
    raise GoldenSetError(f"golden set {str(source)!r} not found; looked in: {looked}")


def _signature(paths: Iterable[Path]) -> _Signature:
    out = []
    for path in paths:
        stat = path.stat()
        out.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(out)


def _load_path(path: Path, split: str | None) -> GoldenSet:
    display = display_path(path)
    suffix = path.suffix.lower()
    beir: BeirFiles | None = None
    if split is not None and not path.is_dir():
        raise GoldenSetError(
            f"split={split!r} applies only to a BEIR-style folder, but {display} is a file"
        )
    if path.is_dir():
        beir = beir_files(path, split, display)
    elif suffix == ".tsv":
        beir = beir_files_for_qrels(path, display)
    elif suffix not in (*_JSONL_SUFFIXES, ".json"):
        raise GoldenSetError(
            f"unsupported golden set {display}: use a .jsonl or .json file, or a BEIR-style "
            "folder (queries.jsonl + qrels.tsv)"
        )
    key = (str(path), split)
    with _CACHE_LOCK:
        signature = _signature(beir.paths if beir is not None else [path])
        cached = _CACHE.get(key)
        if cached is not None and cached[0] == signature:
            return cached[1]
        with no_collections():
            if beir is not None:
                loaded = load_beir(beir, display)
            elif suffix == ".json":  # JSON files refuse half a surrogate pair as they are read
                loaded = load_json(path, display).checked_as_read()
            else:
                loaded = load_jsonl(path, display).checked_as_read()
        _CACHE[key] = (signature, loaded)
        return loaded


def load_golden(
    source: object,
    *,
    base_dirs: Sequence[Path] = (),
    split: str | None = None,
) -> GoldenSet:
    """Load a golden set from a path, a list of cases/dicts, or ``{"cases": [...]}``.

    A relative path is tried against each of ``base_dirs`` in order (the current directory
    when empty). ``split`` picks ``qrels/<split>.tsv`` in a BEIR folder (default: ``qrels.tsv``,
    else ``test``, else the only split). Files are cached per process and re-read when their
    modification time or size changes.
    """
    if isinstance(source, GoldenSet):
        return source
    if split is not None and not isinstance(source, str | os.PathLike):
        raise GoldenSetError(f"split={split!r} applies only to a BEIR-style folder")
    if isinstance(source, str | os.PathLike):
        if isinstance(source, str) and not source.strip():
            raise GoldenSetError("cases= is an empty path")
        return _load_path(_resolve(source, base_dirs), split)
    if isinstance(source, Mapping):
        if set(source) != {"cases"}:
            raise GoldenSetError(
                'an in-memory golden set must be a list of cases or {"cases": [...]}'
            )
        source = source["cases"]
    if isinstance(source, Iterable) and not isinstance(source, bytes | Mapping):
        with no_collections():  # as a file's cases are read: each case is kept
            return from_objects(source)
    raise GoldenSetError(
        "cases= must be a path (.jsonl, .json or a BEIR folder) or a list of cases/dicts, "
        f"got {type(source).__name__}"
    )


def source_files(
    source: object, *, base_dirs: Sequence[Path] = (), split: str | None = None
) -> tuple[Path, ...]:
    """The files (and BEIR folder) a path ``source`` is read from, found as :func:`load_golden`
    finds them; none for in-memory cases or a source that does not load. The plugin never
    writes a report over one of them."""
    if not isinstance(source, str | os.PathLike):
        return ()
    try:
        path = _resolve(source, base_dirs)
        if path.is_dir():
            return (path, *beir_files(path, split, str(path)).paths)
        if path.suffix.lower() == ".tsv":
            return beir_files_for_qrels(path, str(path)).paths
    except GoldenSetError:
        return ()
    return (path,)
