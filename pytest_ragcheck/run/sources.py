"""Where a hit says it came from: its URL, source or domain (SPEC §12's authority metrics).

Read from the hit itself or its metadata, the same containers as its id (a dict's keys and
its ``metadata``/``meta``; a LangChain ``Document``'s ``metadata["source"]``, a LlamaIndex
node's ``metadata["url"]`` or ``["file_path"]``, a Haystack ``Document``'s ``meta["url"]``),
without configuration; ``source_key=`` names another key. Only read when a metric needs it.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["SOURCE_KEYS", "find_source", "source_keys"]

#: The keys read for a hit's source, in order, when ``source_key=`` is not given.
SOURCE_KEYS: tuple[str, ...] = ("url", "source", "domain", "file_path")
_META_ATTRS = ("metadata", "meta")


def source_keys(source_key: str | None) -> tuple[str, ...]:
    """The keys to read: ``source_key`` alone when given, else :data:`SOURCE_KEYS`."""
    return (source_key,) if source_key else SOURCE_KEYS


def _text(value: object) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _get(container: object, key: str) -> object:
    if isinstance(container, Mapping):
        return container.get(key)
    return getattr(container, key, None)


def find_source(container: object, keys: tuple[str, ...]) -> str | None:
    """The first of ``keys`` holding a non-blank string, in the hit, then in its metadata."""
    metas = [m for attr in _META_ATTRS if isinstance(m := _get(container, attr), Mapping)]
    for key in keys:
        found = _text(_get(container, key))
        if found is not None:
            return found
        for meta in metas:
            found = _text(meta.get(key))
            if found is not None:
                return found
    return None
