"""The verdict cache: one small JSON file per judge call, content-addressed.

Layout: ``<dir>/<prompt id>/<first 2 hex digits>/<sha256>.json``. The key hashes everything
that determines the answer (model, api_base, prompt id and version, the rendered messages,
the output schema and the sampling settings) and nothing secret: API keys and request headers
are never part of the key or of an entry (an answer that echoes a key is stored redacted, see
:mod:`pytest_ragcheck.common.redact`). Entries are indented JSON that carry the judged inputs and the
answer, so a committed cache reads well in a diff.

Writes go to a temporary file in the same folder and are renamed over the final name, so a
reader (another pytest-xdist worker, a second run) sees either no entry or a whole one;
two workers writing the same key write the same content. A damaged or hand-edited entry is
reported and treated as a miss, never as a crash: not JSON, nested deeper than Python reads,
of the wrong shape, or not a regular file at all (a FIFO would block the run forever, so an
entry is opened without waiting and read only when it is a regular file). The next verdict
written for its key replaces it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pytest_ragcheck.common.redact import redact_data
from pytest_ragcheck.judge import journal
from pytest_ragcheck.judge.prompts import Prompt
from pytest_ragcheck.judge.schemas import MalformedAnswer, capped_reason, validate_answer

__all__ = [
    "CacheRead",
    "KeySpace",
    "NotRegularFile",
    "VerdictCache",
    "cache_key",
    "embedding_key",
    "public_api_base",
    "read_entry",
]

FORMAT = 1

#: Opening a FIFO for reading waits for a writer unless told not to (not on Windows).
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


_KINDS = {stat.S_IFDIR: "a folder", stat.S_IFIFO: "a FIFO"}


class NotRegularFile(OSError):
    """A cache entry that is a FIFO, a device or a folder: never read."""


def read_entry(name: str) -> bytes:
    """The bytes of the regular file ``name``; :class:`NotRegularFile` for anything else.

    Opened without blocking and checked on the open file (no race with a swap of the path).
    """
    fd = os.open(name, _OPEN_FLAGS)
    with open(fd, "rb") as fh:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = _KINDS.get(stat.S_IFMT(mode), "a device or a socket")
            raise NotRegularFile(f"it is {kind}, not a regular file")
        return fh.read()


def public_api_base(api_base: str | None) -> str | None:
    """``api_base`` without user info, query or fragment (never store credentials)."""
    if not api_base:
        return None
    parts = urlsplit(api_base.strip())
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def _canonical(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


class KeySpace:
    """Keys of one (model, api_base, prompt, sampling): only the messages vary.

    The key is sha256 over the canonical JSON of the fixed parts, a newline, then each
    rendered message as ``role``, the length of its content and the content (length-prefixed,
    so unambiguous); the fixed parts are hashed once per run.
    """

    def __init__(
        self,
        *,
        model: str,
        api_base: str | None,
        prompt: Prompt,
        sampling: Mapping[str, Any],
    ) -> None:
        fixed = {
            "format": FORMAT,
            "model": model,
            "api_base": public_api_base(api_base),
            "prompt": {"id": prompt.id, "version": prompt.version},
            "schema": prompt.response_format,
            "sampling": dict(sampling),
        }
        self._hash = hashlib.sha256(_canonical(fixed) + b"\n")

    def key(self, messages: list[dict[str, str]]) -> str:
        digest = self._hash.copy()
        for message in messages:
            content = message["content"]
            digest.update(f"{message['role']}\n{len(content)}\n{content}\n".encode())
        return digest.hexdigest()


def cache_key(
    *,
    model: str,
    api_base: str | None,
    prompt: Prompt,
    messages: list[dict[str, str]],
    sampling: Mapping[str, Any],
) -> str:
    """The content address of one judge call (sha256 hex)."""
    return KeySpace(model=model, api_base=api_base, prompt=prompt, sampling=sampling).key(messages)


#: The folder of embedding entries (next to the prompt folders).
EMBEDDING_FOLDER = "embedding"


def embedding_key(*, model: str, api_base: str | None, text: str) -> str:
    """The content address of one text's embedding by one model (sha256 hex)."""
    fixed = {"format": FORMAT, "embedding_model": model, "api_base": public_api_base(api_base)}
    return hashlib.sha256(_canonical(fixed) + b"\n" + text.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class CacheRead:
    """A lookup result: the answer, or ``None`` with ``problem`` set for a damaged entry."""

    answer: dict[str, Any] | None
    problem: str | None = None


class VerdictCache:
    """Read and write entries under one folder."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._root = str(self.root)

    def path(self, prompt: Prompt, key: str) -> Path:
        return self.root / prompt.id / key[:2] / f"{key}.json"

    def get(self, prompt: Prompt, key: str) -> CacheRead:
        """The cached answer for ``key``; a missing entry is ``CacheRead(None)``."""
        # plain strings, not pathlib, on this path: a cached run reads thousands of entries
        name = os.path.join(self._root, prompt.id, key[:2], key + ".json")
        try:
            raw = read_entry(name)
        except FileNotFoundError:
            return CacheRead(None)
        except NotRegularFile as exc:
            return CacheRead(None, f"cannot read cache entry {name}: {exc}; judging it again")
        except OSError as exc:
            return CacheRead(None, f"cannot read cache entry {name}: {exc}")
        try:
            entry = json.loads(raw)
            if not isinstance(entry, dict):
                raise MalformedAnswer("not a JSON object")
            if entry.get("key") != key:
                raise MalformedAnswer("its key does not match its file name")
            answer = validate_answer(prompt.kind, entry.get("answer"))
        except (ValueError, MalformedAnswer, RecursionError) as exc:
            where = f"{prompt.id}/{key[:2]}/{key}.json"
            why = "lists or objects nested too deeply" if isinstance(exc, RecursionError) else exc
            return CacheRead(
                None, f"corrupt cache entry {where} ({why}) in {self._root}; judging it again"
            )
        journal.note(self._root, f"{prompt.id}/{key[:2]}/{key}.json", "hit")
        return CacheRead(answer)

    def put(
        self,
        prompt: Prompt,
        key: str,
        *,
        model: str,
        api_base: str | None,
        sampling: Mapping[str, Any],
        inputs: Mapping[str, Any],
        answer: Mapping[str, Any],
    ) -> str | None:
        """Store one answer atomically; return a problem description instead of raising."""
        entry = {
            "key": key,
            "prompt": prompt.label,
            "model": model,
            "api_base": public_api_base(api_base),
            "sampling": dict(sampling),
            "input": dict(inputs),
            "answer": capped_reason(dict(answer)),
        }
        return self._write(prompt.id, key, entry)

    def _write(self, folder: str, key: str, entry: Mapping[str, Any]) -> str | None:
        """Write ``entry`` to ``folder/<ab>/<key>.json`` atomically and note it in the journal."""
        name = f"{folder}/{key[:2]}/{key}.json"
        path = self.root / name
        # no API key in any text; the key field is our own hash, never masked (a piece of a
        # hex secret that happened to show in it would make the entry unreadable)
        safe = {**redact_data(dict(entry)), "key": key}
        text = json.dumps(safe, indent=2, ensure_ascii=False) + "\n"
        tmp_name: str | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp_name = tempfile.mkstemp(prefix=f".{key[:16]}-", suffix=".tmp", dir=path.parent)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
            os.chmod(tmp_name, 0o644)  # mkstemp makes 0600; entries are meant to be shared
            os.replace(tmp_name, path)
            tmp_name = None
            journal.note(self._root, name, "new")
        except OSError as exc:
            return f"cannot write cache entry {path}: {exc}"
        finally:
            if tmp_name is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp_name)
        return None

    def get_embedding(self, key: str) -> list[float] | None:
        """A cached embedding; ``None`` when missing or damaged (then fetched again)."""
        name = os.path.join(self._root, EMBEDDING_FOLDER, key[:2], key + ".json")
        try:
            entry = json.loads(read_entry(name))
            vector = entry["embedding"] if entry.get("key") == key else None
        except (OSError, ValueError, AttributeError, KeyError, TypeError, RecursionError):
            return None
        if (
            not isinstance(vector, list)
            or not vector
            or not all(
                isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)
                for x in vector
            )
        ):
            return None  # damaged (e.g. a NaN): fetched again, else it would fail every run
        journal.note(self._root, f"{EMBEDDING_FOLDER}/{key[:2]}/{key}.json", "hit")
        return [float(x) for x in vector]

    def put_embedding(
        self, key: str, *, model: str, api_base: str | None, text: str, vector: list[float]
    ) -> str | None:
        """Store one embedding atomically; return a problem description instead of raising."""
        entry = {
            "key": key,
            "embedding_model": model,
            "api_base": public_api_base(api_base),
            "input": text,
            "embedding": vector,
        }
        return self._write(EMBEDDING_FOLDER, key, entry)
