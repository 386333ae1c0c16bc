"""Baselines stored with syrupy: one JSON file per test under ``__ragcheck__/``.

syrupy owns the file's life-cycle (where it lives, ``--snapshot-update``, unused-snapshot
cleanup, pytest-xdist); pytest-ragcheck owns what is in it (``baseline.document``), its name
(``snapshot_files``) and what a check does with it (``baseline.decision``). This module only
moves the text in and out of syrupy: every call makes exactly one syrupy assertion, of the data
the decision names.

Crash safety: syrupy deletes a stored snapshot that no assertion touched during
``--snapshot-update``. When a ragcheck test errors before its baseline check ran,
:func:`keep_baselines` (called by the plugin from ``pytest_runtest_makereport``) asserts the
stored text, so the file counts as used and is kept, byte for byte.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_ragcheck.baseline.decision import BaselineOutcome, StoredText, decide_baseline
from pytest_ragcheck.baseline.options import PRECISION_INI
from pytest_ragcheck.common.errors import BaselineError
from pytest_ragcheck.plugin.owners import claim
from pytest_ragcheck.plugin.snapshot_files import (
    RagcheckSnapshotExtension,
    copy_baseline,
    forget_reads,
    legacy_location,
    read_from,
    safe_file_stem,
    snapshot_index,
)

if TYPE_CHECKING:
    from pytest_ragcheck.baseline.options import BaselineOptions
    from pytest_ragcheck.evaluation.result import Result
    from pytest_ragcheck.evaluation.settings import Settings
    from pytest_ragcheck.gate.verdict import Verdict

__all__ = [
    "PRECISION_INI",
    "BaselineOutcome",
    "RagcheckSnapshotExtension",
    "StoredText",
    "check_baseline",
    "keep_baselines",
    "safe_file_stem",
]

#: The syrupy assertion of the running test, shared by its ragcheck calls.
_ASSERTION = pytest.StashKey[Any]()
#: Number of baseline checks the running test has made so far.
_CALLS = pytest.StashKey[int]()
#: Upper bound on stored baselines one test may own (loop guard for ``keep_baselines``).
_MAX_PER_TEST = 100


def check_baseline(
    *,
    request: pytest.FixtureRequest,
    result: Result,
    settings: Settings,
    verdict: Verdict,
    options: BaselineOptions,
) -> BaselineOutcome:
    """Compare ``result`` with the test's stored baseline, or record it (``--snapshot-update``).

    Updates ``verdict`` (checks, problems, case changes, notes); see
    :func:`~pytest_ragcheck.baseline.decision.decide_baseline` for what happens when.
    """
    if not settings.baseline:
        return BaselineOutcome(status="disabled")
    config = request.config
    assertion = _assertion(request)
    item = request.node
    call = item.stash.get(_CALLS, 0) + 1
    item.stash[_CALLS] = call
    index = snapshot_index(call)
    own, location = _find(assertion, index)
    path = _display_path(location, Path(config.rootpath))
    try:  # the file read last is let go once syrupy has read it again (or not at all)
        stored = _read(assertion, location, index)
        try:
            decision = decide_baseline(
                stored_text=stored,
                path=path,
                result=result,
                settings=settings,
                options=options,
                verdict=verdict,
                update=bool(assertion.update_snapshots),
                update_new_only=bool(assertion.update_new_snapshots_only),
                shared_with=claim(config, own, item),
                nodeid=item.nodeid,
            )
        except Exception:  # a bug must not cost the baseline: it stays as it is, and is used
            if stored is not None:
                _assert(assertion, index, StoredText(stored))
            raise
        if decision.to_assert is not None:
            error = _assert(assertion, index, decision.to_assert)
            if error is not None:
                verdict.problems.append(
                    f"syrupy could not read or write the baseline {path}: "
                    f"{type(error).__name__}: {error}"
                )
    finally:
        forget_reads()
    return decision.outcome


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
            index = snapshot_index(call)
            text = _read(assertion, _find(assertion, index)[1], index)
            if text is None:
                break
            _assert(assertion, index, StoredText(text))
            item.stash[_CALLS] = call
            kept += 1
    except Exception:
        return kept
    return kept


def _assertion(request: pytest.FixtureRequest) -> Any:
    """The test's syrupy assertion with the ragcheck extension.

    Made here rather than from syrupy's ``snapshot`` fixture: that one registers an assertion
    of syrupy's default extension too, whose scan of ``__snapshots__/`` counts every file it
    does not own there as unused.
    """
    item = request.node
    assertion = item.stash.get(_ASSERTION, None)
    if assertion is None:
        assertion = _assertion_for_item(item)
        if assertion is None:
            raise BaselineError(
                "baselines are stored with syrupy, but it is not active (is syrupy installed, "
                "and not disabled with `-p no:syrupy`?); pass baseline=False to run without "
                "a baseline"
            )
        item.stash[_ASSERTION] = assertion
    return assertion


def _assertion_for_item(item: pytest.Item) -> Any:
    """A syrupy assertion of ``item`` with the ragcheck extension (None without syrupy)."""
    session = _syrupy_session(item.config)
    if session is None:
        return None
    from syrupy.assertion import SnapshotAssertion
    from syrupy.location import PyTestLocation

    return SnapshotAssertion(
        session=session,
        extension_class=RagcheckSnapshotExtension,
        test_location=PyTestLocation(item),
        update_snapshots=bool(item.config.getoption("update_snapshots", default=False)),
        update_new_snapshots_only=bool(
            item.config.getoption("update_new_snapshots_only", default=False)
        ),
    )


def _syrupy_session(config: pytest.Config) -> Any:
    """syrupy's session (None when syrupy is disabled), read from syrupy's private attribute.

    syrupy (5.5 to 7) makes its session public only through the ``snapshot`` fixture (see
    :func:`_assertion` for why it is not used), which reads this same attribute.
    """
    return getattr(config, "_syrupy", None)


def _find(assertion: Any, index: str) -> tuple[str, str]:
    """The baseline's own location, and the file syrupy reads and asserts for it.

    A baseline an earlier version kept in ``__snapshots__/`` is copied to its own location
    under ``--snapshot-update`` (the guard removes the old file once a complete session has
    the copy); in any other run, or when it cannot be copied, it is used where it is.
    """
    extension = assertion.extension
    own = str(extension.own_location(test_location=assertion.test_location, index=index))
    read_from(own, None)
    if os.path.lexists(own):
        return own, own
    legacy = legacy_location(assertion.test_location, index)
    if not os.path.lexists(legacy):
        return own, own
    if assertion.update_snapshots:
        try:
            copy_baseline(legacy, Path(own))
            return own, own
        except OSError:  # not a regular file, unreadable: the check says what is wrong
            pass
    read_from(own, legacy)
    return own, str(legacy)


def _display_path(location: str, rootpath: Path) -> str:
    try:
        return Path(os.path.relpath(location, rootpath)).as_posix()
    except ValueError:  # another drive on Windows
        return location


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
    last = assertion.executions.get(assertion.num_executions - 1)
    exception = getattr(last, "exception", None)
    return exception if isinstance(exception, Exception) else None
