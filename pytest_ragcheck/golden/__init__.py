"""Golden sets: the ``GoldenCase`` model, the file loaders and the content hash.

A golden set is read from a ``.jsonl`` file (one case per line), a ``.json`` file (a list or
``{"cases": [...]}``), a BEIR-style folder (``queries.jsonl`` + ``qrels.tsv`` or
``qrels/<split>.tsv``) or an in-memory list of cases/dicts. Every problem becomes a
:class:`~pytest_ragcheck.errors.GoldenSetError` whose message names the file, the line and the
field, so users never see a raw pydantic dump. Loading is lazy and cached per process, keyed by
the file's path, modification time and size.

Modules: ``model`` (``GoldenCase``, ``GoldenSet``, what the evaluation reads of every case),
``hashing`` (the content hashes), ``build`` (raw dicts to cases, readable validation problems),
``plain`` (the usual case checked without pydantic), ``files`` (``.jsonl``/``.json``), ``beir``
(BEIR folders and qrels), ``load`` (``load_golden`` and its cache). Importing this package imports pydantic; the
plugin imports it only when a golden set is loaded.
"""

from __future__ import annotations

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
