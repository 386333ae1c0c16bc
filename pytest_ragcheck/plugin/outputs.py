"""Where the plugin may write: never over a file the session reads or keeps.

``--ragcheck-report``, ``--ragcheck-propose-labels`` and ``--ragcheck-history`` name files the
plugin replaces (or appends to) at the end of the run. Pointed by mistake at a golden set, a
committed baseline, a judge cache entry or a source file, they would destroy what the project
keeps, so such a path is refused, naming the option, the path and what the path is. What a
path says about itself (a baseline folder or name, the cache folder, a Python file, the ini
file) is checked when the options are read; the golden sets the markers name and the collected
files at collection; the golden files the tests actually read once more before anything is
written. Pure: no pytest.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.plugin.options import RagcheckOptions
from pytest_ragcheck.plugin.specs import OPTION_SPECS

__all__ = [
    "BASELINE_FOLDERS",
    "Inputs",
    "OutputClashError",
    "check_outputs",
    "golden_path",
    "input_kind",
    "outputs",
    "refuse_outputs",
]

#: Folders that hold baselines: syrupy's default and a folder of ragcheck's own.
BASELINE_FOLDERS = ("__snapshots__", "__ragcheck__")
#: Python source: never an output, whatever the session collected.
_SOURCE_SUFFIXES = (".py", ".pyi", ".pyw")
_LABELS = {spec.name: spec.label for spec in OPTION_SPECS}
#: What each output is called in a message.
_NOUNS = {"report": "the report", "propose_labels": "the label proposals", "history": "the history"}


class OutputClashError(ConfigError):
    """An output path that names one of the session's inputs (a usage error)."""


@dataclass(frozen=True, slots=True)
class Inputs:
    """What the session reads or keeps, as far as it is known at the time of a check."""

    #: Golden-set files and BEIR folders (a folder covers every file in it).
    golden: tuple[Path, ...] = ()
    #: Files the session collected tests from, its configuration file.
    sources: tuple[Path, ...] = ()
    #: The verdict cache folder (``None``: the cache is off).
    cache_dir: Path | None = None
    #: Folder names that hold baselines (syrupy's ``--snapshot-dirname`` added when given).
    baseline_folders: tuple[str, ...] = BASELINE_FOLDERS

    def adding(self, *, golden: Iterable[Path] = (), sources: Iterable[Path] = ()) -> Inputs:
        """These inputs and more (duplicates dropped)."""
        return replace(
            self,
            golden=tuple(dict.fromkeys((*self.golden, *golden))),
            sources=tuple(dict.fromkeys((*self.sources, *sources))),
        )


def golden_path(source: object, base_dirs: Sequence[Path]) -> Path | None:
    """The file or folder a marker's ``cases=`` names, found as ``load_golden`` finds it
    (absolute, else next to the test, then under the rootdir); ``None`` for in-memory cases
    or a path that does not exist (loading it will say so)."""
    if not isinstance(source, str | os.PathLike) or not str(source).strip():
        return None
    raw = Path(source).expanduser()
    for candidate in [raw] if raw.is_absolute() else [base / raw for base in base_dirs]:
        if candidate.exists():
            return candidate
    return None


def outputs(options: RagcheckOptions) -> list[tuple[str, Path]]:
    """``(option name, path)`` of every file the options ask the plugin to write."""
    found = [("report", path) for path in options.report_paths]
    found += [(name, p) for name, p in (("propose_labels", options.propose_labels),) if p]
    found += [("history", options.history)] if options.history is not None else []
    return found


def _forms(path: Path) -> set[Path]:
    """The spellings of ``path`` that name the same file: as written (made absolute, ``..``
    folded) and with its symbolic links followed."""
    forms = {Path(os.path.abspath(path))}
    with contextlib.suppress(OSError, RuntimeError):  # a symlink loop: as written only
        forms.add(path.resolve())
    return forms


def _same_file(a: Path, b: Path) -> bool:
    """Two existing paths to one file (a hard link; another case on a case-blind disk)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _golden_kind(forms: set[Path], path: Path, golden: Iterable[Path]) -> str:
    for source in golden:
        for form in _forms(source):
            if form in forms or _same_file(path, source):
                return "a golden set of this session's tests"
            if any(f.is_relative_to(form) for f in forms) and Path(form).is_dir():
                return f"a file of the golden set folder {source}"
    return ""


def input_kind(path: Path, inputs: Inputs) -> str:
    """What ``path`` is among the session's inputs, as a message says it ('' when nothing)."""
    forms = _forms(path)
    kind = _golden_kind(forms, path, inputs.golden)
    if kind:
        return kind
    if inputs.cache_dir is not None:
        cache = _forms(inputs.cache_dir)
        if forms & cache:
            return "the judge's verdict cache folder"
        if any(f.is_relative_to(c) for f in forms for c in cache):
            return f"a file in the judge's verdict cache folder {inputs.cache_dir}"
    folders = {name.casefold() for name in inputs.baseline_folders}
    for form in forms:
        found = [part for part in form.parts if part.casefold() in folders]
        if found:
            return f"a file in a baseline folder ({found[-1]}/, where baselines are kept)"
        name = form.name.casefold()
        if "[ragcheck" in name and name.endswith(".json"):
            return "named like a baseline file (test_x[ragcheck].json)"
    for source in inputs.sources:
        if any(form in forms for form in _forms(source)) or _same_file(path, source):
            return f"a test or configuration file of this session ({source.name})"
    if any(form.suffix.lower() in _SOURCE_SUFFIXES for form in forms):
        return "a Python source file"
    return ""


def _message(name: str, path: Path, kind: str) -> str:
    noun = _NOUNS.get(name, "the output")
    return (
        f"{_LABELS.get(name, name)}: will not write {noun} to {path}: that is {kind}; "
        "give the option a path of its own"
    )


def _clashes(options: RagcheckOptions, inputs: Inputs) -> list[tuple[str, Path, str]]:
    found = []
    for name, path in outputs(options):
        kind = input_kind(path, inputs)
        if kind:
            found.append((name, path, _message(name, path, kind)))
    return found


def check_outputs(options: RagcheckOptions, inputs: Inputs) -> None:
    """Raise :class:`OutputClashError` naming every output that is one of ``inputs``."""
    found = _clashes(options, inputs)
    if found:
        raise OutputClashError("\n".join(message for _, _, message in found))


def refuse_outputs(options: RagcheckOptions, inputs: Inputs) -> tuple[RagcheckOptions, list[str]]:
    """``options`` without the outputs that are one of ``inputs``, and why each was dropped
    (the last check, before writing: the golden files the tests read are known by then)."""
    found = _clashes(options, inputs)
    if not found:
        return options, []
    refused = {(name, path) for name, path, _ in found}
    kept = replace(
        options,
        report_paths=tuple(p for p in options.report_paths if ("report", p) not in refused),
        propose_labels=None
        if ("propose_labels", options.propose_labels) in refused
        else options.propose_labels,
        history=None if ("history", options.history) in refused else options.history,
    )
    return kept, [message for _, _, message in found]
