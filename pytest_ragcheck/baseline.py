"""Baselines stored with syrupy: one JSON file per test under ``__snapshots__/``.

syrupy owns the file's life-cycle (where it lives, ``--snapshot-update``, unused-snapshot
cleanup, pytest-xdist); pytest-ragcheck owns what is in it (``baseline_doc``) and when a change
matters (``policy.compare_with_baseline``). Every call makes exactly one syrupy assertion, and
the data it asserts decides what syrupy does:

* the stored text itself (:class:`StoredText`): the snapshot "matches", syrupy keeps the file
  untouched and counts it as used, even under ``--snapshot-update``;
* the new canonical text: syrupy writes it under ``--snapshot-update`` (strict equality, so
  drifts within tolerance and improvements are re-recorded too) and reports a failed snapshot
  otherwise.

Crash safety: syrupy deletes a stored snapshot that no assertion touched during
``--snapshot-update``. When a ragcheck test errors before its baseline check ran,
:func:`keep_baselines` (called by the plugin from ``pytest_runtest_makereport``) asserts the
stored text, so the file counts as used and is kept, byte for byte.

Names: ``__snapshots__/<test file>/<test name>[ragcheck].json`` (syrupy's layout and named
index); characters a file name cannot hold are percent-encoded rather than dropped, so names
stay unique, and :meth:`RagcheckSnapshotExtension.matches_test_location` relates them to their
test for syrupy's unused-snapshot logic (``-k``, skipped tests).

Works with syrupy 5.5 through 7.x: only the extension API common to both is relied on.
"""

from __future__ import annotations

import hashlib
import os
import unicodedata
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from syrupy.extensions.base import SnapshotCollectionStorage
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from pytest_ragcheck.baseline_doc import (
    DEFAULT_PRECISION,
    MAX_PRECISION,
    BaselineDoc,
    NewerBaselineError,
)
from pytest_ragcheck.errors import BaselineError
from pytest_ragcheck.policy import compare_with_baseline

if TYPE_CHECKING:
    from pytest_ragcheck.config import Settings
    from pytest_ragcheck.policy import Verdict
    from pytest_ragcheck.result import Result

__all__ = [
    "PRECISION_INI",
    "RagcheckSnapshotExtension",
    "StoredText",
    "check_baseline",
    "keep_baselines",
    "safe_file_stem",
]

#: ini key for the decimals kept in baseline files.
PRECISION_INI = "ragcheck_baseline_precision"
#: The syrupy assertion of the running test, shared by its ragcheck calls.
_ASSERTION = pytest.StashKey[Any]()
#: Number of baseline checks the running test has made so far.
_CALLS = pytest.StashKey[int]()
#: Baseline file -> the test that used it. Names are unique by construction; this guards
#: against the one-in-2**48 clash of two cut (over-long) names.
_OWNERS = pytest.StashKey[dict[str, str]]()
#: syrupy snapshot index used for baselines (see ``_index``).
INDEX_NAME = "ragcheck"
#: Upper bound on stored baselines one test may own (loop guard for ``keep_baselines``).
_MAX_PER_TEST = 100


class StoredText(str):
    """Text read back from a baseline file, asserted unchanged to keep the file as it is."""

    __slots__ = ()


class RagcheckSnapshotExtension(SingleFileSnapshotExtension):
    """syrupy extension: one canonical JSON file per test, written by ``BaselineDoc.to_json``."""

    _write_mode = WriteMode.TEXT
    file_extension = "json"

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
        try:
            raw = Path(snapshot_location).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"<unreadable: {exc}>"
        text = raw.decode("utf-8", errors="replace")
        # The same newline handling as a text-mode read (a checkout may have CRLF endings).
        return text.replace("\r\n", "\n").replace("\r", "\n")

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
        return _NAME_MAX - len(f".{cls.file_extension}")

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
        if len(own) + len(INDEX_NAME) + 2 > limit:  # a long name, cut and hashed
            return len(stem) == limit and stem.startswith(own[: limit - _DIGEST - 1])
        return stem.startswith(f"{own}[{INDEX_NAME}")

    @classmethod
    def write_snapshot(cls, **kwargs: Any) -> None:
        # syrupy < 7 relates files to tests with its own sanitising only, and warns about the
        # percent-encoded names above; the names are ours and related by the method above.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r"\s*Can not relate snapshot location")
            super().write_snapshot(**kwargs)


#: Longest file name most file systems accept.
_NAME_MAX = 255
#: Hex digits of the hash that keeps a cut name unique.
_DIGEST = 12
#: Characters Windows (or a shell) cannot have in a file name, plus ``%`` for reversibility.
_UNSAFE_CHARS = frozenset('\\/?*:|"<>%')


def safe_file_stem(name: str, *, limit: int) -> str:
    """``name`` as a file-system-safe stem: unsafe characters percent-encoded, long names cut.

    Deterministic, and different names give different stems (the encoding is reversible; a
    cut name ends with ``~`` and a hash of the full name).
    """
    encoded = "".join(
        f"%{ord(c):02X}" if c in _UNSAFE_CHARS or unicodedata.category(c).startswith("C") else c
        for c in name
    )
    if len(encoded) <= limit:
        return encoded
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:_DIGEST]
    return f"{encoded[: limit - _DIGEST - 1]}~{digest}"


def _display_path(location: str, rootpath: Path) -> str:
    try:
        return Path(os.path.relpath(location, rootpath)).as_posix()
    except ValueError:  # another drive on Windows
        return location


def _precision(config: pytest.Config) -> int:
    try:
        raw = config.getini(PRECISION_INI)
    except ValueError:  # not registered (an old plugin module): use the default
        return DEFAULT_PRECISION
    if raw in (None, ""):
        return DEFAULT_PRECISION
    try:
        value = int(str(raw).strip())
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_PRECISION:
        raise BaselineError(
            f"ini {PRECISION_INI} must be an integer 0-{MAX_PRECISION} (decimals kept in "
            f"baseline files), got {raw!r}"
        )
    return value


def _fail_on_improvement(config: pytest.Config) -> bool:
    try:
        return bool(config.getini("ragcheck_fail_on_improvement"))
    except ValueError:
        return False


def _assertion_from_fixture(request: pytest.FixtureRequest) -> Any:
    try:
        snapshot = request.getfixturevalue("snapshot")
    except pytest.FixtureLookupError:
        raise BaselineError(
            "baselines are stored with syrupy, but its `snapshot` fixture is not available "
            "(is syrupy installed, and not disabled with `-p no:syrupy`?); "
            "pass baseline=False to run without a baseline"
        ) from None
    return snapshot.use_extension(RagcheckSnapshotExtension)


def _assertion(request: pytest.FixtureRequest) -> Any:
    item = request.node
    assertion = item.stash.get(_ASSERTION, None)
    if assertion is None:
        assertion = _assertion_from_fixture(request)
        item.stash[_ASSERTION] = assertion
    return assertion


def _index(call: int) -> str:
    """syrupy's named index: ``test_x[ragcheck].json``, then ``test_x[ragcheck-2].json``.

    The name keeps the file apart from a JSON snapshot the test itself may store, and syrupy
    relates ``<test name>[...]`` files to their test (for ``-k`` and skipped tests).
    """
    return INDEX_NAME if call == 1 else f"{INDEX_NAME}-{call}"


def _location(assertion: Any, index: str) -> str:
    return str(assertion.extension.get_location(test_location=assertion.test_location, index=index))


def _read(assertion: Any, location: str, index: str) -> str | None:
    text: str | None = assertion.extension.read_snapshot_data_from_location(
        snapshot_location=location,
        snapshot_name=assertion.extension.get_snapshot_name(
            test_location=assertion.test_location, index=index
        ),
        session_id="",
    )
    return text


def _assert(assertion: Any, index: str, data: object) -> Exception | None:
    """Make the one syrupy assertion of this call; return syrupy's exception, if any."""
    assertion(name=index) == data  # noqa: B015  (SnapshotAssertion.__eq__ records and writes)
    executions = getattr(assertion, "executions", None) or {}
    last = executions.get(assertion.num_executions - 1) if executions else None
    exception = getattr(last, "exception", None)
    return exception if isinstance(exception, Exception) else None


def _claim(config: pytest.Config, location: str, nodeid: str) -> str | None:
    """The other test already using ``location`` in this process, if any."""
    owners = config.stash.setdefault(_OWNERS, {})
    owner = owners.setdefault(location, nodeid)
    return None if owner == nodeid else owner


def check_baseline(
    *, request: pytest.FixtureRequest, result: Result, settings: Settings, verdict: Verdict
) -> dict[str, Any] | None:
    """Compare ``result`` with the test's stored baseline, or record it (``--snapshot-update``).

    Updates ``verdict`` (checks, problems, case changes, notes) and returns a JSON-safe dict for
    the reports: ``status`` is one of ``created``, ``updated``, ``compared``, ``missing``,
    ``not_comparable``, ``corrupt``, ``kept`` (the evaluation failed, so the stored baseline
    was neither compared nor replaced) or ``disabled``; ``path`` is the file (relative to the
    rootdir); ``values`` the aggregates the file holds after this run; ``previous`` the ones it
    held before (when updated); ``cases`` the per-case baseline values compared against;
    ``regressed``/``improved`` metric names; ``reasons`` (not comparable) or ``problem``
    (unreadable file) say what is wrong.
    """
    if not settings.baseline:
        return {"status": "disabled", "path": None, "values": {}}
    config = request.config
    precision = _precision(config)
    assertion = _assertion(request)
    item = request.node
    call = item.stash.get(_CALLS, 0) + 1
    item.stash[_CALLS] = call
    index = _index(call)
    location = _location(assertion, index)
    path = _display_path(location, Path(config.rootpath))
    update = bool(getattr(assertion, "update_snapshots", False))
    new_only = bool(getattr(assertion, "update_new_snapshots_only", False))
    stored_text = _read(assertion, location, index)
    info: dict[str, Any] = {
        "status": "compared",
        "path": path,
        "values": {},
        "precision": precision,
    }

    def syrupy(data: object) -> None:
        error = _assert(assertion, index, data)
        if error is not None:
            verdict.problems.append(
                f"syrupy could not read or write the baseline {path}: "
                f"{type(error).__name__}: {error}"
            )

    def keep(status: str) -> dict[str, Any]:
        if stored_text is not None:
            syrupy(StoredText(stored_text))
        info["status"] = status
        return info

    other = _claim(config, location, item.nodeid)
    if other is not None:
        verdict.problems.append(
            f"{other} and this test map to the same baseline file {path}; give them "
            "distinct, shorter parametrize ids (pytest.param(..., id='...'))"
        )
        info["status"] = "kept"
        return info
    if verdict.problems:
        # The evaluation failed (retriever or judge errors): its numbers are no baseline.
        verdict.notes.append(
            f"baseline {path} was not compared"
            + (" or re-recorded" if update else "")
            + " because the evaluation failed"
        )
        return keep("kept")
    try:
        current = BaselineDoc.from_result(result, precision=precision)
    except BaselineError as exc:
        verdict.problems.append(str(exc))
        return keep("kept")

    if stored_text is None:
        if update or new_only:
            info["status"] = "created"
            info["values"] = dict(current.aggregates)
            verdict.notes.append(f"baseline created: {path}")
            syrupy(current)
        else:
            info["status"] = "missing"
            verdict.problems.append(
                f"No baseline stored for this test yet ({path}): run `pytest --snapshot-update` "
                "to record it, then commit the __snapshots__/ folder."
            )
            syrupy(current)  # not written: syrupy reports the snapshot as missing
        return info

    try:
        stored = BaselineDoc.from_json(stored_text, source=path)
    except NewerBaselineError as exc:
        info["problem"] = str(exc)
        verdict.problems.append(
            f"Baseline cannot be read: {exc} (or delete the file and re-run with "
            "--snapshot-update to record it with this version)."
        )
        return keep("corrupt")
    except BaselineError as exc:
        info["problem"] = str(exc)
        if update:
            info["status"] = "updated"
            info["values"] = dict(current.aggregates)
            verdict.notes.append(f"replaced an unreadable baseline ({exc})")
            syrupy(current)
            return info
        info["status"] = "corrupt"
        verdict.problems.append(
            f"Baseline cannot be read: {exc}.\nFix the file, or re-run with --snapshot-update "
            "to record a new baseline (and review the diff before committing)."
        )
        syrupy(current)  # not written: syrupy reports the snapshot as failed
        return info

    comparison = compare_with_baseline(
        result,
        stored,
        settings,
        update=update,
        fail_on_improvement=_fail_on_improvement(config),
        checks=verdict.checks,
        source=path,
    )
    comparison.apply(verdict)
    info["values"] = dict(stored.aggregates)
    if comparison.comparable:
        # Per-case baseline values for the reports (case id -> metric -> value).
        info["cases"] = {case_id: dict(values) for case_id, values in stored.cases.items()}
    info["regressed"] = comparison.regressed
    info["improved"] = comparison.improved
    if comparison.reasons:
        info["reasons"] = list(comparison.reasons)
    if update:
        if current.to_json() == stored_text:
            syrupy(StoredText(stored_text))
        else:
            info["status"] = "updated"
            info["previous"] = dict(stored.aggregates)
            info["values"] = dict(current.aggregates)
            syrupy(current)
        return info
    if not comparison.comparable:
        info["status"] = "not_comparable"
        syrupy(current)  # not written: syrupy reports the snapshot as failed
    elif comparison.regressed or comparison.problems:
        syrupy(current)  # not written: syrupy reports the snapshot as failed
    else:
        # Within tolerance: the stored file stays as it is (byte for byte).
        syrupy(StoredText(stored_text))
    return info


def _assertion_for_item(item: pytest.Item) -> Any:
    """A syrupy assertion for ``item`` outside the fixture call (after a crash)."""
    request = getattr(item, "_request", None)
    if request is not None:
        try:
            return _assertion_from_fixture(request)
        except Exception:
            pass  # e.g. a module-level setup error: the item's fixtures cannot run
    session = getattr(item.config, "_syrupy", None)
    if session is None:
        return None
    from syrupy.assertion import SnapshotAssertion
    from syrupy.location import PyTestLocation

    option = item.config.option
    kwargs: dict[str, Any] = {
        "update_snapshots": bool(getattr(option, "update_snapshots", False)),
        "extension_class": RagcheckSnapshotExtension,
        "test_location": PyTestLocation(item),
        "session": session,
    }
    if hasattr(option, "update_new_snapshots_only"):
        kwargs["update_new_snapshots_only"] = bool(option.update_new_snapshots_only)
    return SnapshotAssertion(**kwargs)


def keep_baselines(item: pytest.Item) -> int:
    """Keep the stored baselines of a test that errored before its baseline check.

    Asserts each stored file's own text, so syrupy counts it as used (and never deletes it
    under ``--snapshot-update``) and leaves it byte-identical. Baselines the test's ragcheck
    calls already checked are skipped. Returns the number of files kept; never raises (a test
    failure must not become an internal error).
    """
    kept = 0
    try:
        assertion = item.stash.get(_ASSERTION, None)
        if assertion is None:
            assertion = _assertion_for_item(item)
            if assertion is None:
                return 0
            item.stash[_ASSERTION] = assertion
        first = item.stash.get(_CALLS, 0) + 1
        for call in range(first, first + _MAX_PER_TEST):
            index = _index(call)
            text = _read(assertion, _location(assertion, index), index)
            if text is None:
                break
            _assert(assertion, index, StoredText(text))
            item.stash[_CALLS] = call
            kept += 1
    except Exception:
        return kept
    return kept
