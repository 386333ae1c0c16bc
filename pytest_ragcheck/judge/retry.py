"""How judge requests are retried and counted: backoff, ``Retry-After``, the call budget.

Stdlib only (no litellm): the policy is also part of the judge run's options.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Budget", "RetryPolicy", "retry_after_seconds", "status_code"]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How transient failures are retried."""

    #: Total attempts for one request (first try included).
    attempts: int = 6
    base_delay: float = 1.0
    max_delay: float = 30.0
    #: A longer ``Retry-After`` is capped to this (seconds).
    max_retry_after: float = 120.0

    def backoff(self, retry: int, rng: Callable[[], float] = random.random) -> float:
        """Delay before retry number ``retry`` (1-based): exponential with equal jitter."""
        delay = min(self.max_delay, self.base_delay * 2.0 ** (retry - 1))
        return delay / 2 + rng() * delay / 2


class Budget:
    """``judge_max_calls``: a count of requests that may still be sent (``None`` = no limit)."""

    def __init__(self, limit: int | None, *, used: int = 0) -> None:
        self.limit = limit
        #: Requests already sent (``used``: by an earlier client of the same run).
        self.used = used
        self.exhausted = False

    def take(self) -> bool:
        if self.limit is not None and self.used >= self.limit:
            self.exhausted = True
            return False
        self.used += 1
        return True


def _header(headers: object, name: str) -> str | None:
    if headers is None:
        return None
    getter = getattr(headers, "get", None)
    if getter is None:
        return None
    value = getter(name) or getter(name.title())
    return str(value) if value is not None else None


def retry_after_seconds(exc: BaseException, *, now: float | None = None) -> float | None:
    """The server's requested wait from ``retry-after-ms`` / ``Retry-After``, if any."""
    sources = [
        getattr(exc, "litellm_response_headers", None),
        getattr(exc, "headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
    ]
    for headers in sources:
        millis = _header(headers, "retry-after-ms")
        if millis is not None:
            try:
                return max(0.0, float(millis) / 1000)
            except ValueError:
                pass
        value = _header(headers, "retry-after")
        if value is None:
            continue
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            continue
        return max(0.0, when.timestamp() - (time.time() if now is None else now))
    return None


def status_code(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None
