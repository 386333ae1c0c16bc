"""The session's command-line and ini options, read and validated once at start-up.

The plugin registers :data:`~pytest_ragcheck.plugin.specs.OPTION_SPECS`, hands the raw values to :func:`parse_options` in
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

from pytest_ragcheck.baseline.options import (
    DEFAULT_MAX_HITS,
    DEFAULT_PRECISION,
    MAX_PRECISION,
    BaselineOptions,
)
from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.common.validate import AUTO, Concurrency
from pytest_ragcheck.evaluation.settings import Defaults, JudgeSettings
from pytest_ragcheck.plugin.specs import OPTION_SPECS
from pytest_ragcheck.report.paths import parse_report_paths

__all__ = [
    "RagcheckOptions",
    "parse_options",
]

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
    #: ``--ragcheck-no-judge``: a test asking for judge metrics with no judge model
    #: configured fails (``"fail"``, the default) or is skipped (``"skip"``: a laptop without
    #: a key runs the rest of the suite).
    no_judge: Literal["fail", "skip"] = "fail"
    #: ``--ragcheck-judge-prune`` / ``--ragcheck-judge-prune-dry-run``: ``"prune"``,
    #: ``"dry-run"`` (list only; wins when both are given) or ``None``.
    judge_prune: Literal["prune", "dry-run"] | None = None
    #: Tolerance, concurrency and judge settings every test starts from.
    defaults: Defaults = field(default_factory=Defaults)
    baseline: BaselineOptions = field(default_factory=BaselineOptions)


def parse_options(
    *,
    cli: Mapping[str, object],
    ini: Mapping[str, object],
    invocation_dir: Path,
    rootdir: Path,
) -> RagcheckOptions:
    """Validate the raw values into :class:`RagcheckOptions` (raises :class:`ConfigError`).
    ``cli`` and ``ini`` map option names (``"tolerance"``) to what pytest read; a missing
    name, ``None`` or ``""`` means "not set". The command line wins over the ini file."""
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
        no_judge=_no_judge(raw),
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
            refusal_patterns=_refusal_patterns(ini.get("refusal_patterns")),
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


def _no_judge(raw: _Raw) -> Literal["fail", "skip"]:
    """``fail`` (default) or ``skip``, in any case."""
    text = raw.text("no_judge")
    if text is None or text.lower() == "fail":
        return "fail"
    if text.lower() == "skip":
        return "skip"
    raise ConfigError(
        f"{_SPECS['no_judge'].label} must be 'fail' or 'skip', got {raw.value('no_judge')!r}"
    )


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
    try:  # a negative level is refused as 0 is, by the one message below
        value = raw.number("significance", integer=False, lo=0)
    except ConfigError:
        value = None
    if value is None or not 0.0 < value < 1.0:
        raise ConfigError(
            f"{_SPECS['significance'].label} must be a level strictly between 0 and 1 "
            f"(e.g. 0.05) or 'off', got {raw.value('significance')!r}"
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


def _refusal_patterns(lines: object) -> tuple[str, ...] | None:
    """ini ``ragcheck_refusal_patterns``, checked (the answers stage loads only when it is set)."""
    if not lines:
        return None
    from pytest_ragcheck.answers.refusal import ini_refusal_patterns

    return ini_refusal_patterns(lines)
