"""Keeping API keys inside the process: one redaction step for every text that leaves it.

A judge endpoint (a proxy, a gateway) may echo the key it was given in its error text, and
that text travels into failure messages, reports, junit properties, the job summary and the
verdict cache. Every one of those outputs passes its texts through :func:`redact` (or
:func:`redact_data` for JSON-like data), which replaces each known secret value with
:data:`MARKER`.

The known secrets are, at the moment of the call:

* the values of environment variables named like credentials (``*_API_KEY``, ``*_KEY``,
  ``*_TOKEN``, ``*_SECRET``, ``*_PASSWORD``...): a superset of the provider variables litellm
  reads for any model (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``AZURE_AD_TOKEN``...);
* the key attributes of litellm (``litellm.api_key``, ``litellm.openai_key``...) when litellm
  is already imported (it is never imported here);
* what :func:`remember` was told: the ``api_key`` keyword given to litellm, and the user info
  and the ``api_key``/``key``/``token`` query parameters of a judge ``api_base``.

Values shorter than :data:`MIN_SECRET` characters are not treated as secrets: masking every
``true`` or ``1234`` would garble ordinary text, and no provider issues keys that short. A
secret is also masked in its URL-quoted and JSON-escaped spellings, and a prefix of it cut
off by an ellipsis (``sk-abc…``, what shortening a long message leaves) is masked too.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar
from urllib.parse import parse_qsl, quote, urlsplit

__all__ = ["MARKER", "MIN_SECRET", "Redactor", "redact", "redact_data", "remember", "url_secrets"]

#: What replaces a secret value.
MARKER = "[redacted]"
#: Shorter values are not secrets (see the module docstring).
MIN_SECRET = 6
#: A prefix this long of a secret, followed by an ellipsis, is masked too.
MIN_PREFIX = 6

#: Environment variable names that hold credentials (upper-cased suffixes).
SECRET_SUFFIXES = (
    "_API_KEY",
    "_APIKEY",
    "_KEY",
    "_TOKEN",
    "_SECRET",
    "_PASSWORD",
    "_CREDENTIALS",
)
#: Query parameters of a base URL that carry credentials (lower-cased).
SECRET_PARAMS = frozenset(
    {"api_key", "api-key", "apikey", "key", "token", "access_token", "auth", "secret", "password"}
)
_ELLIPSES = ("…", "...")  # what shortening a text appends (display.shorten, record.clip)

_lock = threading.Lock()
_remembered: set[str] = set()

T = TypeVar("T")


def url_secrets(url: str | None) -> set[str]:
    """The user name, password and credential query parameters of ``url``."""
    if not url:
        return set()
    try:
        parts = urlsplit(url.strip() if "://" in url else "//" + url.strip())
        found = {parts.username or "", parts.password or ""}
        found.update(v for k, v in parse_qsl(parts.query) if k.lower() in SECRET_PARAMS)
    except ValueError:
        return set()
    return {value for value in found if value}


def remember(*, api_key: str | None = None, api_base: str | None = None) -> None:
    """Add the credentials of a judge configuration to the known secrets of this process."""
    found = url_secrets(api_base)
    if api_key:
        found.add(api_key)
    with _lock:
        _remembered.update(found)


def _environment_secrets(environ: Mapping[str, str]) -> set[str]:
    return {
        value
        for name, value in environ.items()
        if name.upper().endswith(SECRET_SUFFIXES) and value.strip()
    }


def _litellm_secrets() -> set[str]:
    """Key attributes litellm holds (``litellm.api_key = ...`` in a conftest), if imported."""
    module = sys.modules.get("litellm")
    if module is None:
        return set()
    return {
        value
        for name, value in list(vars(module).items())
        if (name.endswith("_key") or name == "api_key") and isinstance(value, str)
    }


def known_secrets(environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """Every secret value :func:`redact` masks right now (at least :data:`MIN_SECRET` long)."""
    with _lock:
        found = set(_remembered)
    found |= _environment_secrets(os.environ if environ is None else environ)
    found |= _litellm_secrets()
    return frozenset(v.strip() for v in found if len(v.strip()) >= MIN_SECRET)


def _spellings(secret: str) -> set[str]:
    """The secret as written, URL-quoted and JSON-escaped."""
    return {secret, quote(secret, safe=""), json.dumps(secret, ensure_ascii=False)[1:-1]}


class Redactor:
    """Masks a fixed set of secrets; build one per batch of texts (see :func:`redact_data`)."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = tuple(sorted({s for s in secrets if len(s) >= MIN_SECRET}, key=len))
        spellings = sorted({w for s in self.secrets for w in _spellings(s)}, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, spellings))) if spellings else None
        # every masked piece (a whole secret or a cut-off start) begins with one of these
        starts = {w[:MIN_PREFIX] for w in spellings}
        self._starts = re.compile("|".join(map(re.escape, starts))) if starts else None
        self._start_texts = tuple(sorted(starts))

    def __call__(self, text: str) -> str:
        if self._pattern is None or not text:
            return text
        if not any(start in text for start in self._start_texts):  # a substring search is
            return text  # many times faster than the pattern over a report's megabytes
        text = self._pattern.sub(MARKER, text)
        if "…" in text or "..." in text:
            text = self._cut_prefixes(text)
        return text

    def _cut_prefixes(self, text: str) -> str:
        """Mask the start of a secret that a shortened text ends with an ellipsis after."""
        for ellipsis in _ELLIPSES:
            start = 0
            while (at := text.find(ellipsis, start)) != -1:
                cut = self._prefix_before(text, at)
                if cut:
                    text = text[: at - cut] + MARKER + text[at:]
                    at += len(MARKER) - cut
                start = at + len(ellipsis)
        return text

    def _prefix_before(self, text: str, at: int) -> int:
        """Length of the longest secret prefix (>= MIN_PREFIX) that ends at ``at``."""
        best = 0
        for secret in self.secrets:
            for n in range(min(len(secret) - 1, at), max(MIN_PREFIX, best + 1) - 1, -1):
                if text.startswith(secret[:n], at - n):
                    best = n
                    break
        return best

    def data(self, value: T) -> T:
        """``value`` with every string inside it (keys included) redacted.

        A report holds hundreds of thousands of strings and almost never a secret: one scan
        of its JSON text for the start of any secret decides whether to walk it at all (the
        very value comes back when there is nothing to mask).
        """
        if self._starts is None:
            return value
        try:
            blob = json.dumps(value, ensure_ascii=False, default=_scanned_text)
        except (TypeError, ValueError):  # not JSON-like after all: walk it
            blob = None
        if blob is not None and not self._starts.search(blob):
            return value
        return self._walk(value)  # type: ignore[no-any-return]

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self(value)
        if isinstance(value, Mapping):
            return {self._walk(k): self._walk(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self._walk(v) for v in value)
        return value


def _scanned_text(value: object) -> str:
    """What the pre-scan of :meth:`Redactor.data` reads of a non-JSON value: bytes (a packed
    report, masked as it was packed) are never walked, so reading them could only cost time."""
    return "" if isinstance(value, bytes) else str(value)


def redact(text: str) -> str:
    """``text`` with every known secret value replaced by :data:`MARKER`."""
    return Redactor(known_secrets())(text)


def redact_data(value: T) -> T:
    """JSON-like ``value`` (dicts, lists, tuples, strings) with every string redacted."""
    return Redactor(known_secrets()).data(value)
