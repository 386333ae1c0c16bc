"""Authority tables (SPEC §12): pattern -> weight in [0, 1], and the weight of a hit's source.

A pattern is a domain (``nih.gov``: the domain and its subdomains), a URL prefix
(``https://example.org/docs/``) or ``"*"`` (any source no other pattern matches; without it
such a source weighs 0). The longest matching pattern wins, so a URL prefix beats its domain
and a subdomain beats its parent. Scheme and host compare case-insensitively, the rest of a
URL as written.

A source is what a hit says it came from: a URL (``https://www.nih.gov/health``), a bare
domain, possibly with a path (``nih.gov/health``), or anything else (a file path), which only
``"*"`` matches.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pytest_ragcheck.common.display import shorten
from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.common.json_keys import DuplicateKeyError, unique_keys

__all__ = ["ANY", "AuthorityTable", "Match", "authority_table", "host_of", "load_authority"]

#: The pattern of the sources no other pattern matches.
ANY = "*"
_DOMAIN = re.compile(r"^[^\s/:@*?#\\]+$")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


@dataclass(frozen=True, slots=True)
class Match:
    """How one source was weighed: the pattern that matched (``None``: none did)."""

    source: str
    host: str | None
    pattern: str | None
    weight: float

    @property
    def unknown(self) -> bool:
        """Matched by no pattern but ``"*"``: a source the table does not know."""
        return self.pattern in (None, ANY)

    @property
    def label(self) -> str:
        """The source as people read it in a message: its host when it has one."""
        return self.host or self.source


def host_of(source: str) -> str | None:
    """The lower-cased host of a URL or of a bare ``domain[/path]``; ``None`` for others."""
    text = source.strip()
    if _SCHEME.match(text):
        try:
            host = urlsplit(text).hostname
        except ValueError:  # an invalid port or IPv6 literal
            return None
        return host.rstrip(".") or None if host else None
    first = text.split("/", 1)[0]
    if "." in first and _DOMAIN.match(first) and not first.startswith("."):
        return first.lower().rstrip(".")
    return None


def _url_key(url: str) -> str:
    """A URL with its scheme and host lower-cased (the rest as written)."""
    parts = urlsplit(url)
    netloc = parts.netloc.lower()
    rest = url.split("://", 1)[1][len(parts.netloc) :]
    return f"{parts.scheme.lower()}://{netloc}{rest}"


class AuthorityTable:
    """A checked table; :meth:`weigh` gives a source's weight and the pattern that set it."""

    __slots__ = ("_cache", "domains", "fallback", "prefixes", "where")

    def __init__(
        self,
        domains: Mapping[str, float],
        prefixes: Mapping[str, float],
        fallback: float | None,
        where: str,
    ) -> None:
        self.domains = dict(domains)
        #: URL prefixes, longest first.
        self.prefixes = sorted(prefixes.items(), key=lambda item: -len(item[0]))
        self.fallback = fallback
        self.where = where
        self._cache: dict[str, Match] = {}

    def weigh(self, source: str) -> Match:
        found = self._cache.get(source)
        if found is None:
            found = self._weigh(source)
            if len(self._cache) < 100_000:
                self._cache[source] = found
        return found

    def _weigh(self, source: str) -> Match:
        host = host_of(source)
        best: tuple[str, float] | None = None
        if host is not None:
            labels = host.split(".")
            for start in range(len(labels)):  # the host itself first: the longest domain
                domain = ".".join(labels[start:])
                if domain in self.domains:
                    best = (domain, self.domains[domain])
                    break
            if _SCHEME.match(source.strip()):
                url = _url_key(source.strip())
                for prefix, weight in self.prefixes:  # longest first; longer than any domain
                    if url.startswith(prefix):
                        if best is None or len(prefix) > len(best[0]):
                            best = (prefix, weight)
                        break
        if best is not None:
            return Match(source, host, best[0], best[1])
        if self.fallback is not None:
            return Match(source, host, ANY, self.fallback)
        return Match(source, host, None, 0.0)


def _weight(value: object, pattern: str, where: str) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not (math.isfinite(value) and 0 <= value <= 1)
    ):
        hint = ""
        if isinstance(value, Mapping):  # TOML reads nih.gov = 1 as {"nih": {"gov": 1}}
            hint = ' (in TOML, quote a key with dots: "nih.gov" = 1.0)'
        raise ConfigError(
            f"{where}: the weight of {pattern!r} must be a number from 0 to 1, got "
            f"{type(value).__name__} {shorten(repr(value))}{hint}"
        )
    return float(value)


def authority_table(raw: Mapping[Any, Any], where: str) -> AuthorityTable:
    """Check ``{pattern: weight}`` (``where`` names it in messages: a file, ``authority``)."""
    if not raw:
        raise ConfigError(
            f"{where}: the authority table lists no pattern; map domains, URL prefixes or '*' "
            'to weights from 0 to 1, e.g. {"nih.gov": 1.0, "*": 0.3}'
        )
    domains: dict[str, float] = {}
    prefixes: dict[str, float] = {}
    fallback: float | None = None
    written: dict[str, str] = {}  # normalised pattern -> as written, for duplicates
    for key, value in raw.items():
        if not isinstance(key, str) or not key.strip():
            raise ConfigError(f"{where}: a pattern must be a non-empty string, got {key!r}")
        pattern = key.strip()
        weight = _weight(value, key, where)
        if pattern == ANY:
            normal = ANY
            fallback = weight
        elif "://" in pattern:
            parts = urlsplit(pattern) if _SCHEME.match(pattern) else None
            if parts is None or not parts.hostname or any(c.isspace() for c in pattern):
                raise ConfigError(
                    f"{where}: {key!r} is not a URL prefix: write scheme://host/path..., e.g. "
                    "'https://example.org/docs/'"
                )
            normal = _url_key(pattern)
            prefixes[normal] = weight
        elif pattern.startswith("*."):
            raise ConfigError(
                f"{where}: {key!r}: write the domain {pattern[2:]!r}, which matches its "
                "subdomains too"
            )
        elif not _DOMAIN.match(pattern) or pattern.startswith(".") or ".." in pattern:
            raise ConfigError(
                f"{where}: {key!r} is neither a domain ('nih.gov'), a URL prefix "
                "('https://example.org/docs/') nor '*'"
            )
        else:
            normal = pattern.lower().rstrip(".")
            domains[normal] = weight
        if normal in written:
            raise ConfigError(
                f"{where}: the pattern {key!r} is given twice (also as {written[normal]!r}); "
                "keep one weight"
            )
        written[normal] = key
    return AuthorityTable(domains, prefixes, fallback, where)


def load_authority(value: object, base_dirs: list[Path]) -> AuthorityTable:
    """The table ``authority=`` names: a table already built, or a ``.json`` / ``.toml`` file
    (relative paths looked up in ``base_dirs``, in order)."""
    if isinstance(value, AuthorityTable):
        return value
    if isinstance(value, Mapping):
        return authority_table(value, "authority")
    path = Path(os.fspath(value))  # type: ignore[call-overload]
    if not path.is_absolute():
        path = next((d / path for d in base_dirs if (d / path).is_file()), base_dirs[0] / path)
    shown = str(value)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"authority table {shown}: cannot read it ({why})") from None
    suffix = path.suffix.lower()
    try:
        if suffix == ".json":
            data = json.loads(text, object_pairs_hook=unique_keys)
        elif suffix == ".toml":
            import tomllib

            data = tomllib.loads(text)
        else:
            raise ConfigError(
                f"authority table {shown}: write it as a .json or .toml file of {{pattern: weight}}"
            )
    except DuplicateKeyError as exc:
        raise ConfigError(
            f"authority table {shown}: the pattern {exc.key!r} is given twice; keep one weight"
        ) from None
    except ValueError as exc:  # json.JSONDecodeError and tomllib.TOMLDecodeError
        raise ConfigError(
            f"authority table {shown} is not valid {suffix[1:].upper()}: {exc}"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(
            f"authority table {shown} must hold an object {{pattern: weight}}, got "
            f"{type(data).__name__}"
        )
    return authority_table(data, f"authority table {shown}")
