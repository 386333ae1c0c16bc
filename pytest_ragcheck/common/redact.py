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
``true`` or ``1234`` would garble ordinary text, and no provider issues keys that short.

A secret is masked in every spelling an endpoint or a shortened message may give it
(:mod:`pytest_ragcheck.common.masking` finds them): URL-quoted, JSON-escaped, base64 / base64url (any
alignment, padded or not) and hex encoded, the same encodings of ``Bearer <secret>`` (the
``Authorization`` value), a start of it cut off by an ellipsis (``sk-abc…``), and for a value
that looks like a key (at least 16 characters, no white space, not a path or a URL) any run of
8 or more of its characters with a digit or letters of both cases (``…key ending in
3xT9qLm2Vb7K``). The rule keeps short values (a password, ``production``), paths (a
``*_CREDENTIALS`` file name) and the words inside keys (``sk-proj-``, ``insecure``) from
masking pieces of ordinary text everywhere.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import threading
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlsplit

from pytest_ragcheck.common.masking import Finder

__all__ = [
    "MARKER",
    "MIN_SECRET",
    "Redactor",
    "redact",
    "redact_data",
    "redactor",
    "remember",
    "url_secrets",
]

#: What replaces a secret value.
MARKER = "[redacted]"
#: Shorter values are not secrets (see the module docstring).
MIN_SECRET = 6

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


class Redactor:
    """Masks a fixed set of secrets; build one per set (:func:`redact` keeps the last few)."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = tuple(sorted({s for s in secrets if len(s) >= MIN_SECRET}, key=len))
        self._finder = Finder(self.secrets)

    def __call__(self, text: str) -> str:
        if not self.secrets or not text:
            return text
        return self._finder.mask(text, MARKER)

    def data(self, value: T) -> T:
        """``value`` with every string inside it (keys included) redacted.

        A report holds hundreds of thousands of strings and almost never a secret: one scan
        of its JSON text for the start of any secret decides whether to walk it at all (the
        very value comes back when there is nothing to mask).
        """
        if not self.secrets:
            return value
        try:
            blob = json.dumps(value, ensure_ascii=False, default=_scanned_text)
        except (TypeError, ValueError):  # not JSON-like after all: walk it
            blob = None
        if blob is not None and not self._finder.spans(blob)[1]:
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


@functools.lru_cache(maxsize=4)
def redactor(secrets: frozenset[str]) -> Redactor:
    """The :class:`Redactor` of ``secrets``, built once (its patterns are precomputed)."""
    return Redactor(secrets)


def redact(text: str) -> str:
    """``text`` with every known secret value replaced by :data:`MARKER`."""
    return redactor(known_secrets())(text)


def redact_data(value: T) -> T:
    """JSON-like ``value`` (dicts, lists, tuples, strings) with every string redacted."""
    return redactor(known_secrets()).data(value)
