"""Error hierarchy.

Every message is written for the user: it names the file, line, field or keyword at fault and
says what to do. the pytest face (``plugin/``) is the only place that turns these into ``pytest.fail`` or
``pytest.UsageError``, so the pure core stays usable from scripts and notebooks.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = [
    "BaselineError",
    "ConfigError",
    "GoldenSetError",
    "JudgeError",
    "RagcheckError",
    "RetrieverError",
    "did_you_mean",
    "exception_line",
    "exception_message",
]


class RagcheckError(Exception):
    """Base class: a problem the user can fix, with a message that says how."""


class ConfigError(RagcheckError):
    """Bad marker keyword, option or metric name (a usage error)."""


class GoldenSetError(RagcheckError):
    """A golden-set file or case that cannot be loaded or used."""


class RetrieverError(RagcheckError):
    """The retriever is not usable (not callable, wrong return shape...)."""


class JudgeError(RagcheckError):
    """The LLM judge cannot produce the verdicts a judge metric needs."""


class BaselineError(RagcheckError):
    """A stored baseline that cannot be read or compared."""


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """Return ``" (did you mean 'x'?)"`` for the closest candidate, or ``""``."""
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def exception_message(exc: BaseException, *, broken: str = "") -> str:
    """``str(exc)`` on one line; ``broken`` when the user's exception class cannot say it
    (its ``__str__`` raises), so that reporting an error never raises one of its own."""
    try:
        return " ".join(str(exc).split())
    except Exception:
        return broken


def exception_line(exc: BaseException) -> str:
    """``Name: message``, or ``Name`` alone when there is no message to show."""
    message = exception_message(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__
