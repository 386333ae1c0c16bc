"""The session's command-line and ini options, read and validated once at start-up.

``plugin.py`` registers :data:`OPTION_SPECS`, hands the raw values to :func:`parse_options` in
``pytest_configure`` and keeps the resulting :class:`RagcheckOptions` in ``config.stash``;
the header, the reports and the baseline code receive that object and never read an option
themselves. A bad value is therefore a usage error before collection, whether or not the
session has ragcheck tests. Pure (no pytest), so every rule is unit-testable.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pytest_ragcheck.baseline_doc import (
    DEFAULT_MAX_HITS,
    DEFAULT_PRECISION,
    MAX_PRECISION,
    BaselineOptions,
)
from pytest_ragcheck.concurrency import AUTO, Concurrency
from pytest_ragcheck.config import Defaults, JudgeSettings
from pytest_ragcheck.errors import ConfigError

__all__ = [
    "FORMATS",
    "OPTION_SPECS",
    "OptionSpec",
    "RagcheckOptions",
    "ReportPathError",
    "is_worker",
    "parse_options",
    "parse_report_paths",
]

#: Report formats by file extension.
FORMATS: tuple[str, ...] = (".json", ".md", ".html")


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One setting: ini key ``ragcheck_<name>`` and, with ``flag``, ``--ragcheck-<name>``."""

    name: str
    help: str
    kind: Literal["string", "bool"] = "string"
    flag: bool = True
    #: The ini key's help, when it differs from the flag's.
    ini_help: str | None = None
    #: The flag may be given more than once; its values count as one comma-separated list.
    repeats: bool = False

    @property
    def dest(self) -> str:
        """The ini key, and the ``config.option`` attribute of the flag."""
        return f"ragcheck_{self.name}"

    @property
    def flag_name(self) -> str:
        return "--ragcheck-" + self.name.replace("_", "-")

    @property
    def label(self) -> str:
        """How messages name the setting: both spellings, or the ini key alone."""
        return f"{self.flag_name} / {self.dest}" if self.flag else f"ini {self.dest}"


OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "report",
        "write a report of every ragcheck test: PATH ending in .json, .md or .html "
        "(several: repeat the option, or separate them with commas)",
        repeats=True,
    ),
    OptionSpec("tolerance", "absolute drop allowed against the baseline (default 0.02)"),
    OptionSpec(
        "significance",
        "level of the paired test a drop beyond tolerance must pass to fail "
        "(default 0.05; 'off' judges by tolerance alone)",
    ),
    OptionSpec(
        "concurrency",
        "parallel retriever calls per test: 'auto' (default: serial for CPU-bound retrievers, "
        "16 for I/O-bound ones) or a number",
    ),
    OptionSpec("judge_model", "LLM judge model (any litellm model name)"),
    OptionSpec("judge_api_base", "base URL of an OpenAI-compatible judge server"),
    OptionSpec(
        "judge_embedding_model",
        "embedding model (any litellm model name) for answer_relevancy and answer_correctness",
    ),
    OptionSpec(
        "judge_cache",
        "verdict cache folder, or 'off' (default .ragcheck/judge under the rootdir)",
    ),
    OptionSpec(
        "judge_offline",
        "never call the LLM judge: missing verdicts fail (use with a committed cache in CI)",
        kind="bool",
        ini_help="never call the LLM judge",
    ),
    OptionSpec(
        "propose_labels",
        "write the judge's verdicts on retrieved documents that have no human label to FILE "
        "(JSONL, one line per document) for review; golden files are never edited",
    ),
    OptionSpec(
        "no_summary",
        "do not print the ragcheck metrics table at the end of the run",
        kind="bool",
        ini_help="do not print the ragcheck summary",
    ),
    OptionSpec(
        "history",
        "append one JSON line per ragcheck test to FILE (timestamp, git commit, metrics...); "
        "the HTML report draws each metric's trend from it",
    ),
    OptionSpec(
        "judge_prune",
        "after a complete, passing run, delete verdict cache entries no ragcheck test used",
        kind="bool",
        ini_help="delete unused verdict cache entries after a complete, passing run",
    ),
    OptionSpec(
        "judge_prune_dry_run",
        "list the verdict cache entries --ragcheck-judge-prune would delete, delete nothing",
        kind="bool",
        ini_help="list unused verdict cache entries, delete nothing",
    ),
    OptionSpec(
        "fail_on_improvement",
        "fail when a metric improves beyond tolerance, so the baseline is refreshed",
        kind="bool",
        flag=False,
    ),
    OptionSpec(
        "baseline_precision",
        "decimals kept in baseline snapshot files (default 4)",
        flag=False,
    ),
    OptionSpec(
        "authority", "authority table (.json/.toml) for authority@k, untrusted@k", flag=False
    ),
    OptionSpec(
        "baseline_max_hits",
        f"ranked ids a baseline stores per case for metrics without a cutoff "
        f"(default {DEFAULT_MAX_HITS})",
        flag=False,
    ),
)
_SPECS = {spec.name: spec for spec in OPTION_SPECS}


@dataclass(frozen=True, slots=True)
class RagcheckOptions:
    """Every ragcheck option of the session, validated (the marker may override ``defaults``)."""

    #: ``--ragcheck-report`` files, absolute: command-line paths resolved against the folder
    #: pytest was started in, ini paths against the rootdir.
    report_paths: tuple[Path, ...] = ()
    #: ``--ragcheck-no-summary``: no metrics table at the end of the run.
    no_summary: bool = False
    #: ``--ragcheck-propose-labels``: where the label proposals go (absolute), if anywhere.
    propose_labels: Path | None = None
    #: ``--ragcheck-history``: the JSON-lines file each run appends to (absolute), if any.
    history: Path | None = None
    #: ``--ragcheck-judge-prune`` / ``--ragcheck-judge-prune-dry-run``: ``"prune"``,
    #: ``"dry-run"`` (list only; wins when both are given) or ``None``.
    judge_prune: Literal["prune", "dry-run"] | None = None
    #: Tolerance, concurrency and judge settings every test starts from.
    defaults: Defaults = field(default_factory=Defaults)
    baseline: BaselineOptions = field(default_factory=BaselineOptions)


class ReportPathError(ConfigError, ValueError):
    """A ``--ragcheck-report`` value that names no known format."""


def is_worker(config: object) -> bool:
    """True on a pytest-xdist worker (whose controller prints and writes the reports)."""
    return hasattr(config, "workerinput")


def parse_report_paths(raw: str, *, base: Path, option: str = "--ragcheck-report") -> list[Path]:
    """Comma-separated report paths, resolved against ``base``; checks the extensions.

    ``option`` names where the value came from in a message (``ini ragcheck_report``).
    """
    paths: list[Path] = []
    for part in str(raw).split(","):
        text = part.strip()
        if not text:
            continue
        path = Path(os.path.expanduser(text))
        suffix = path.suffix.lower()
        if suffix not in FORMATS:
            shown = f"'{suffix}'" if suffix else "no extension"
            raise ReportPathError(
                f"{option}={text}: unknown report format ({shown}); "
                f"use a path ending in {', '.join(FORMATS[:-1])} or {FORMATS[-1]} "
                "(several paths may be separated by commas)"
            )
        paths.append(path if path.is_absolute() else base / path)
    return paths


def parse_options(
    *,
    cli: Mapping[str, object],
    ini: Mapping[str, object],
    invocation_dir: Path,
    rootdir: Path,
) -> RagcheckOptions:
    """Validate the raw values into :class:`RagcheckOptions` (raises :class:`ConfigError`).

    ``cli`` and ``ini`` map option names (``"tolerance"``) to what pytest read; a missing
    name, ``None`` or ``""`` means "not set". The command line wins over the ini file.
    """
    raw = _Raw(cli, ini)
    report_cli = cli.get("report")
    report = report_cli or ini.get("report")
    report_base = invocation_dir if report_cli else rootdir
    judge = JudgeSettings(
        model=raw.text("judge_model"),
        api_base=raw.text("judge_api_base"),
        embedding_model=raw.text("judge_embedding_model"),
        cache_dir=_cache_dir(raw, invocation_dir=invocation_dir, rootdir=rootdir),
        offline=raw.flag("judge_offline"),
    )
    fallback = Defaults()
    tolerance = raw.number("tolerance", integer=False, lo=0)
    concurrency = _concurrency(raw)
    max_hits = raw.number("baseline_max_hits", integer=True, lo=1)
    reports = tuple(
        parse_report_paths(
            str(report),
            base=report_base,
            option="--ragcheck-report" if report_cli else "ini ragcheck_report",
        )
        if report
        else ()
    )
    files = {
        name: _writable_file(raw, name, invocation_dir=invocation_dir, rootdir=rootdir)
        for name in ("propose_labels", "history")
    }
    _distinct_outputs([("--ragcheck-report", p) for p in reports], files)
    return RagcheckOptions(
        report_paths=reports,
        no_summary=raw.flag("no_summary"),
        propose_labels=files["propose_labels"],
        history=files["history"],
        judge_prune="dry-run"
        if raw.flag("judge_prune_dry_run")
        else "prune"
        if raw.flag("judge_prune")
        else None,
        defaults=Defaults(
            tolerance=fallback.tolerance if tolerance is None else float(tolerance),
            concurrency=fallback.concurrency if concurrency is None else concurrency,
            significance=_significance(raw, fallback.significance),
            judge=judge,
            authority=raw.text("authority"),  # looked up as cases= is: test folder, rootdir
        ),
        baseline=BaselineOptions(
            precision=_precision(raw.value("baseline_precision")),
            fail_on_improvement=raw.flag("fail_on_improvement"),
            max_hits=DEFAULT_MAX_HITS if max_hits is None else int(max_hits),
        ),
    )


@dataclass(frozen=True, slots=True)
class _Raw:
    """Raw values of both sources, with the command line's precedence."""

    cli: Mapping[str, object]
    ini: Mapping[str, object]

    def from_cli(self, name: str) -> bool:
        return self.cli.get(name) is not None

    def value(self, name: str) -> object:
        value = self.cli.get(name)
        return self.ini.get(name) if value is None else value

    def text(self, name: str) -> str | None:
        value = self.value(name)
        if value is None:
            return None
        return str(value).strip() or None

    def flag(self, name: str) -> bool:
        return bool(self.cli.get(name)) or bool(self.ini.get(name))

    def number(self, name: str, *, integer: bool, lo: int) -> float | None:
        raw = self.value(name)
        if raw is None or str(raw).strip() == "":
            return None
        label = _SPECS[name].label
        try:
            value = float(str(raw).strip())
        except ValueError:
            raise ConfigError(f"{label}: expected a number, got {raw!r}") from None
        if not math.isfinite(value) or value < lo or (integer and not value.is_integer()):
            kind = "an integer" if integer else "a number"
            raise ConfigError(f"{label} must be {kind} >= {lo}, got {raw!r}")
        return value


def _concurrency(raw: _Raw) -> Concurrency | None:
    """``auto`` or a whole number >= 1; ``None`` when not set."""
    text = raw.text("concurrency")
    if text is None:
        return None
    if text.lower() == AUTO:
        return AUTO
    try:
        value = raw.number("concurrency", integer=True, lo=1)
    except ConfigError:
        raise ConfigError(
            f"{_SPECS['concurrency'].label} must be 'auto' or an integer >= 1, got {text!r}"
        ) from None
    return None if value is None else int(value)


def _cache_dir(raw: _Raw, *, invocation_dir: Path, rootdir: Path) -> Path | None:
    """The verdict cache folder: ``None`` for ``off``; relative paths anchored like reports."""
    value = raw.text("judge_cache")
    if value is None:
        return rootdir / ".ragcheck" / "judge"
    if value.lower() == "off":
        return None
    anchor = invocation_dir if raw.from_cli("judge_cache") else rootdir
    return (anchor / os.path.expanduser(value)).resolve()


def _significance(raw: _Raw, default: float | None) -> float | None:
    """``--ragcheck-significance``: a level strictly between 0 and 1, or ``off``/``none``."""
    text = raw.text("significance")
    if text is None:
        return default
    if text.lower() in ("off", "none"):
        return None
    value = raw.number("significance", integer=False, lo=0)
    if value is None or not 0.0 < value < 1.0:
        raise ConfigError(
            f"{_SPECS['significance'].label} must be a level between 0 and 1 (e.g. 0.05) or "
            f"'off', got {raw.value('significance')!r}"
        )
    return value


def _writable_file(raw: _Raw, name: str, *, invocation_dir: Path, rootdir: Path) -> Path | None:
    """A file option (label proposals, history), anchored like reports; a path that cannot
    be written fails."""
    value = raw.text(name)
    if value is None:
        return None
    anchor = invocation_dir if raw.from_cli(name) else rootdir
    path = anchor / os.path.expanduser(value)
    label = _SPECS[name].label
    if path.is_dir():
        raise ConfigError(f"{label}={value}: {path} is a folder; give a file path (.jsonl)")
    folder = next(p for p in path.parents if p.exists())  # the root always exists
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        what = "is not a folder" if not folder.is_dir() else "is not writable"
        raise ConfigError(f"{label}={value}: cannot write {path}: {folder} {what}")
    return path


def _distinct_outputs(reports: list[tuple[str, Path]], files: dict[str, Path | None]) -> None:
    """Two outputs in one file: the one written last would replace the other unsaid."""
    seen: dict[Path, str] = {}
    named = [(_SPECS[n].label, p) for n, p in files.items() if p is not None]
    for label, path in [*reports, *named]:
        other = seen.setdefault(path.resolve(), label)
        if other != label:
            raise ConfigError(f"{other} and {label} name the same file {path}; give each its own")


def _precision(raw: object) -> int:
    if raw is None or str(raw).strip() == "":
        return DEFAULT_PRECISION
    try:
        value = int(str(raw).strip())
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_PRECISION:
        raise ConfigError(
            f"ini ragcheck_baseline_precision must be an integer 0-{MAX_PRECISION} (decimals "
            f"kept in baseline files), got {raw!r}"
        )
    return value
