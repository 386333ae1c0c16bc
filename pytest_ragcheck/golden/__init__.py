"""Golden sets: the ``GoldenCase`` model, the file loaders and the content hash.

A golden set is read from a ``.jsonl`` file (one case per line), a ``.json`` file (a list or
``{"cases": [...]}``), a BEIR-style folder (``queries.jsonl`` + ``qrels.tsv`` or
``qrels/<split>.tsv``) or an in-memory list of cases/dicts. Every problem becomes a
:class:`~pytest_ragcheck.common.errors.GoldenSetError` whose message names the file, the line and the
field, so users never see a raw pydantic dump. Loading is lazy and cached per process, keyed by
the file's path, modification time and size.

Modules: ``model`` (``GoldenCase``, ``GoldenSet``), ``grades`` (what the evaluation reads of
every case), ``hashing`` (the content hashes), ``build`` (raw dicts to cases, readable
validation problems), ``plain`` (the usual case checked without pydantic), ``columns`` (an
in-memory list of plain id/query/expected_ids dicts kept as columns), ``files``
(``.jsonl``/``.json``), ``beir`` (BEIR folders and qrels), ``load`` (``load_golden`` and its
cache), ``ids`` (what an id is), ``spans`` (text-span matching). Importing this package is cheap: pydantic loads with the model,
when one of the names below is first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_ragcheck.golden.load import clear_cache, load_golden, source_files
    from pytest_ragcheck.golden.model import GoldenCase, GoldenSet, derive_case_id

__all__ = [
    "GoldenCase",
    "GoldenSet",
    "clear_cache",
    "derive_case_id",
    "load_golden",
    "source_files",
]

_LAZY = {
    "GoldenCase": "model",
    "GoldenSet": "model",
    "derive_case_id": "model",
    "clear_cache": "load",
    "load_golden": "load",
    "source_files": "load",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    loaded = importlib.import_module(f"{__name__}.{module}")
    for other, home in _LAZY.items():  # a module's names bound together: one cache, one clear
        if home == module:
            globals()[other] = getattr(loaded, other)
    return globals()[name]
