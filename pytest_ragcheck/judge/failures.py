"""What a failed judge request was: worth a retry or not, and its short name.

The short names are counted per run (:class:`Failures`) so that a budget spent on failures
says so: "5 calls failed: 3× HTTP 500, 2× reply not JSON" instead of a bare "the judge budget
ran out", which would send the user to raise a limit that was never the problem.

Stdlib only: litellm's exception classes are looked up by name on the module the client
passes in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import ModuleType

from pytest_ragcheck.judge.retry import status_code

__all__ = [
    "Failures",
    "RequestTimeout",
    "describe_failures",
    "error_classes",
    "failure_label",
    "is_fatal",
    "is_transient",
    "malformed_label",
]

_TRANSIENT = (
    "RateLimitError",
    "Timeout",
    "APIConnectionError",
    "InternalServerError",
    "ServiceUnavailableError",
    "BadGatewayError",
)
_FATAL = ("AuthenticationError", "PermissionDeniedError", "NotFoundError", "UnsupportedParamsError")
#: How litellm words a 200 reply whose body is not the JSON of a completion (an HTML error
#: page of a proxy, a body cut short): it reports it as a 500, but the server said 200.
_NOT_JSON = re.compile(
    r"Empty or invalid response|Expecting (?:value|property name|':'|',')|Unterminated string"
    r"|Invalid control character|Invalid \\(?:escape|uXXXX)|Extra data"
)


class RequestTimeout(TimeoutError):
    """The whole request (connection, headers and body) took longer than ``judge_timeout``."""


def error_classes(module: ModuleType, names: tuple[str, ...]) -> tuple[type[BaseException], ...]:
    found = (getattr(module, name, None) for name in names)
    return tuple(cls for cls in found if isinstance(cls, type) and issubclass(cls, BaseException))


def is_transient(litellm: ModuleType, exc: BaseException) -> bool:
    """Rate limits, 5xx, 408, timeouts and connection errors: worth another attempt."""
    if "missing credentials" in str(exc).lower():
        return False  # litellm reports a missing OpenAI key as a 500
    status = status_code(exc)
    transient = (*error_classes(litellm, _TRANSIENT), TimeoutError, ConnectionError)
    return isinstance(exc, transient) or (
        status is not None and (status == 429 or status >= 500 or status == 408)
    )


def is_fatal(litellm: ModuleType, exc: BaseException, text: str) -> bool:
    """An error no later call can escape: authentication, an unknown model, no key."""
    return (
        isinstance(exc, error_classes(litellm, _FATAL))
        or status_code(exc) in (401, 403, 404)
        or "missing credentials" in text.lower()
    )


def failure_label(litellm: ModuleType, exc: BaseException) -> str:
    """The short name of a failed request: ``HTTP 500``, ``reply not JSON``, ``timeout``..."""
    if isinstance(exc, (TimeoutError, *error_classes(litellm, ("Timeout",)))):
        return "timeout"
    if _NOT_JSON.search(str(exc)):
        return "reply not JSON"
    status = status_code(exc)
    if status is not None:
        return f"HTTP {status}"
    if isinstance(exc, (ConnectionError, *error_classes(litellm, ("APIConnectionError",)))):
        return "connection error"
    return type(exc).__name__


def malformed_label(message: str) -> str:
    """The short name of a reply that :func:`~.schemas.parse_answer` refused."""
    if message.startswith("not JSON"):
        return "reply not JSON"
    return (
        "empty reply" if message.startswith("the answer is empty") else "reply of the wrong shape"
    )


def describe_failures(counts: Mapping[str, int]) -> str:
    """``3× HTTP 500, 2× reply not JSON``: the most frequent first."""
    ordered = sorted(counts.items(), key=lambda item: -item[1])  # stable: first seen first
    return ", ".join(f"{count}× {label}" for label, count in ordered)


class Failures:
    """The failed requests of one client, by short name."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def note(self, label: str) -> None:
        self.counts[label] = self.counts.get(label, 0) + 1

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def __str__(self) -> str:
        return describe_failures(self.counts)
