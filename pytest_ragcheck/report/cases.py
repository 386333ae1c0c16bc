"""Per-case report entries: built once from ``CaseResult``, packed whole, shown capped.

One representation from the runner to the files: each case becomes its report entry (the
JSON report's ``cases[i]``) exactly once, on the process that ran the test. A large run keeps
every entry only as compressed JSON text (:func:`pack`), which pytest-xdist carries to the
controller and the JSON report writes out as it is (:func:`unpacked_text`); the entries the
HTML, Markdown and terminal outputs read are the :data:`SHOWN_CASES` that matter most (the most
regressed and the lowest-scoring per metric, and errors), plus a histogram of every case.
"""

from __future__ import annotations

import heapq
import json
import math
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from json.encoder import encode_basestring
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_ragcheck.hits import Hit
    from pytest_ragcheck.result import CaseResult

__all__ = [
    "HIST_BINS",
    "MAX_HITS",
    "QUERY_LIMIT",
    "SHOWN_CASES",
    "TEXT_LIMIT",
    "TRACEBACK_LIMIT",
    "case_entry",
    "case_json",
    "clip",
    "distribution",
    "json_safe",
    "judge_details",
    "pack",
    "select_shown",
    "tail",
    "unpacked_text",
]

#: Characters kept of a retrieved chunk, a judge reason or a claim.
TEXT_LIMIT = 240
#: Characters kept of a query and of an error message.
QUERY_LIMIT = 1000
#: Characters kept from the end of a retriever traceback.
TRACEBACK_LIMIT = 2000
#: Hits kept per case (reports show the top of the ranking; ``k=None`` may return thousands).
MAX_HITS = 100
#: Cases per test whose full entry the HTML report (and the controller's memory) holds; the
#: JSON report always has every case.
SHOWN_CASES = 200
#: Bins of the per-case value histogram.
HIST_BINS = 10
#: Entries encoded per compressed chunk (bounds the text held at once while packing).
_CHUNK = 2000


def clip(text: str | None, limit: int = TEXT_LIMIT) -> str | None:
    """``text`` cut to ``limit`` characters, with an ellipsis when something was dropped."""
    if text is None:
        return None
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tail(text: str | None, limit: int = TRACEBACK_LIMIT) -> str | None:
    """The end of ``text`` (a traceback's last frames matter most)."""
    if text is None:
        return None
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


def json_safe(value: Any) -> Any:
    """``value`` as plain JSON data: non-finite floats become ``None``, unknown objects ``str``."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_safe(v) for v in value]
    try:  # numpy scalars and friends
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return number if math.isfinite(number) else None


def judge_details(judge: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for metric, items in judge.items():
        rows: list[dict[str, Any]] = []
        for item in list(items)[:MAX_HITS]:
            row = {str(k): json_safe(v) for k, v in dict(item).items()}
            for key in ("reason", "claim", "error", "quote", "question", "statement"):
                if isinstance(row.get(key), str):
                    row[key] = clip(row[key])
            if isinstance(row.get("claims"), list):
                row["claims"] = [
                    {**c, "claim": clip(c.get("claim"))} if isinstance(c, dict) else c
                    for c in row["claims"][:MAX_HITS]
                ]
            rows.append(row)
        out[str(metric)] = rows
    return out


def case_entry(case: CaseResult, baseline_values: Mapping[str, float] | None) -> dict[str, Any]:
    """The report entry of one case (``CaseEntry`` of the JSON schema), as plain JSON data."""
    entry: dict[str, Any] = json.loads(case_json(case, baseline_values))
    return entry


def case_json(case: CaseResult, baseline_values: Mapping[str, float] | None) -> str:
    """:func:`case_entry` as JSON text, written directly (no dict per hit: a 200,000-case run
    has millions of hits, and this is the only place their report form is made)."""
    ranked = case._ranked  # the runner's hits and the grades, while ``case.hits`` is unbuilt
    if ranked is not None:  # the usual case: no HitRecord was built, none is built here
        total = len(ranked[0])
        hit_texts = _ranked_json(ranked[0][:MAX_HITS], ranked[1])
    else:
        hits = case.hits
        total = len(hits)
        hit_texts = ",".join(
            [
                _HIT
                % (
                    h.rank,
                    _text(h.id),
                    _text(clip(h.text)),
                    _num(h.score),
                    h.grade,
                    ",".join(map(str, h.spans)),
                    "true" if h.grade > 0 else "false",
                )
                for h in hits[:MAX_HITS]
            ]
        )
    judge = json.dumps(judge_details(case.judge), **_DUMP) if case.judge else "{}"
    return _CASE % (
        _text(case.id),
        _text(clip(case.query, QUERY_LIMIT)),
        ",".join([_text(t) for t in case.tags]),
        _text(case.status),
        case.n_relevant,
        _floats(case.values),
        _num(case.latency_ms),
        _text(clip(case.error, QUERY_LIMIT)),
        _text(tail(case.traceback)),
        case.duplicates,
        _text(case.mode),
        hit_texts,
        max(0, total - MAX_HITS),
        judge,
        ",".join([_text(clip(e, QUERY_LIMIT)) for e in case.judge_errors]),
        "null" if baseline_values is None else _floats(baseline_values),
        _text(clip(case.answer)),
    )


def _ranked_json(hits: Sequence[Hit], grades: Mapping[str, int]) -> str:
    """The ``hits`` entries of the runner's hits graded by ``grades`` (as ``HitRecord`` would)."""
    grade = grades.get
    isfinite = math.isfinite
    parts = []
    for rank, hit in enumerate(hits, 1):
        found = grade(hit.id, 0)
        score = hit.score
        text = hit.text
        parts.append(
            _HIT
            % (
                rank,
                encode_basestring(hit.id),
                _text(clip(text)),
                "null" if score is None or not isfinite(score) else repr(float(score)),
                found if found > 0 else 0,
                "",
                "true" if found > 0 else "false",
            )
        )
    return ",".join(parts)


_DUMP: dict[str, Any] = {"ensure_ascii": False, "allow_nan": False, "separators": (",", ":")}
_HIT = '{"rank":%d,"id":%s,"text":%s,"score":%s,"grade":%d,"spans":[%s],"relevant":%s}'
_CASE = (
    '{"id":%s,"query":%s,"tags":[%s],"status":%s,"n_relevant":%d,"values":%s,'
    '"latency_ms":%s,"error":%s,"traceback":%s,"duplicates":%d,"mode":%s,"hits":[%s],'
    '"hits_dropped":%d,"judge":%s,"judge_errors":[%s],"baseline_values":%s,"answer":%s}'
)


def _text(value: str | None) -> str:
    return "null" if value is None else encode_basestring(value)


def _num(value: float | None) -> str:
    """A number as ``json`` writes it (``float.__repr__``); non-finite is ``null``."""
    if value is None or not math.isfinite(value):
        return "null"
    return repr(float(value))


def _floats(values: Mapping[str, float]) -> str:
    keys = _KEYS
    return (
        "{"
        + ",".join(
            [
                (keys.get(k) or keys.setdefault(k, _text(str(k)) + ":")) + _num(v)
                for k, v in values.items()
            ]
        )
        + "}"
    )


#: Metric name -> its JSON key text with the colon (the same few names on every case).
_KEYS: dict[str, str] = {}


def pack(entries: Iterable[str], redact: Callable[[str], str]) -> bytes:
    """Entries (JSON texts, :func:`case_json`) as one compressed JSON array text, masked by
    ``redact`` before compressing.

    Compressed a chunk at a time, so the uncompressed text of a 200,000-case run is never
    held whole; JSON text needs no escaping of the mask, so masking the text equals masking
    the values.
    """
    packer = zlib.compressobj(1)
    out = [packer.compress(b"[")]
    chunk: list[str] = []
    first = True

    def flush() -> None:
        nonlocal first
        text = ("" if first else ",") + ",".join(chunk)
        out.append(packer.compress(redact(text).encode("utf-8")))
        first = False
        chunk.clear()

    for entry in entries:
        chunk.append(entry)
        if len(chunk) >= _CHUNK:
            flush()
    if chunk:
        flush()
    out.append(packer.compress(b"]"))
    out.append(packer.flush())
    return b"".join(out)


def unpacked_text(blob: bytes, *, size: int = 1 << 20) -> Iterator[str]:
    """The JSON array text :func:`pack` compressed, in pieces of about ``size`` bytes."""
    unpacker = zlib.decompressobj()
    decoder = _Utf8Pieces()
    for start in range(0, len(blob), size // 8):
        yield decoder.feed(unpacker.decompress(blob[start : start + size // 8]))
    yield decoder.feed(unpacker.flush(), final=True)


class _Utf8Pieces:
    """Bytes to text across piece boundaries (a character may straddle two pieces)."""

    def __init__(self) -> None:
        import codecs

        self._decoder = codecs.getincrementaldecoder("utf-8")()

    def feed(self, data: bytes, *, final: bool = False) -> str:
        return self._decoder.decode(data, final)


def select_shown(
    cases: Sequence[CaseResult],
    metrics: Sequence[tuple[str, bool]],
    baseline: Mapping[str, Mapping[str, float]],
    *,
    first: Sequence[str] = (),
    limit: int = SHOWN_CASES,
) -> list[int]:
    """Indices (in case order) of the ``limit`` cases a capped report shows in full.

    ``metrics`` are ``(name, higher_is_better)``. First the ids in ``first`` (the failure
    message's cases) and the cases with an error, then in turn, one at a time per list: for
    each metric the most regressed against the baseline and the lowest-scoring.
    """
    if len(cases) <= limit:
        return list(range(len(cases)))
    position = {case.id: i for i, case in enumerate(cases)}
    chosen = dict.fromkeys(position[i] for i in first if i in position)
    chosen.update(dict.fromkeys(i for i, c in enumerate(cases) if c.status == "error"))
    ranked: list[list[int]] = []
    for name, higher in metrics:
        sign = 1.0 if higher else -1.0
        scored = [(i, v) for i, c in enumerate(cases) if (v := c.values.get(name)) is not None]
        scored = [(i, v) for i, v in scored if not math.isnan(v)]
        moved = [
            (sign * (v - before[name]), i)
            for i, v in scored
            if name in (before := baseline.get(cases[i].id, {}))
        ]
        ranked.append([i for d, i in heapq.nsmallest(limit, moved) if d < 0])
        ranked.append([i for _, i in heapq.nsmallest(limit, ((sign * v, i) for i, v in scored))])
    for turn in range(limit):
        for indices in ranked:
            if turn < len(indices):
                chosen.setdefault(indices[turn])
    return sorted(list(chosen)[:limit])


def distribution(
    cases: Sequence[CaseResult],
    names: Sequence[str],
    baseline: Mapping[str, Mapping[str, float]],
) -> dict[str, dict[str, Any]]:
    """Per metric: the histogram of every case's value (and baseline value), binned as the
    HTML report bins the cases themselves when it has them all."""
    import numpy as np

    out: dict[str, dict[str, Any]] = {}
    for name in names:
        now = np.array([c.values.get(name, math.nan) for c in cases], dtype=np.float64)
        now = now[np.isfinite(now)]
        before = np.array(
            [b[name] for c in cases if name in (b := baseline.get(c.id, {}))], dtype=np.float64
        )
        top = max(1.0, float(now.max(initial=1.0)), float(before.max(initial=1.0)))

        def counts(values: Any, top: float = top) -> list[int]:
            bins = np.clip(np.floor(values / top * HIST_BINS), 0, HIST_BINS - 1).astype(np.int64)
            return [int(n) for n in np.bincount(bins, minlength=HIST_BINS)]

        out[name] = {
            "max": top,
            "counts": counts(now),
            "baseline": counts(before) if len(before) else None,
        }
    return out
