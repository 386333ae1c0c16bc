"""Per-case report entries: built once from ``CaseResult``, packed whole, shown capped.

One representation from the runner to the files: each case becomes its report entry (the
JSON report's ``cases[i]``) exactly once, on the process that ran the test. A large run keeps
every entry only as compressed JSON text (:func:`pack`), which pytest-xdist carries to the
controller and the JSON report writes out as it is (:func:`unpacked_text`); the entries the
HTML, Markdown and terminal outputs read are the :data:`SHOWN_CASES` that matter most (the most
regressed and the lowest-scoring per metric, and errors), plus a histogram of every case
(:mod:`pytest_ragcheck.report.capped`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import accumulate, chain, repeat
from json.encoder import encode_basestring
from operator import call
from typing import TYPE_CHECKING, Any, cast

from pytest_ragcheck.common.display import TEXT_LIMIT, clip
from pytest_ragcheck.common.escapes import escapes, json_safe
from pytest_ragcheck.report.packing import pack, unpacked_text
from pytest_ragcheck.run.columns import flat_columns

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import CaseResult, HitRecord

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
    "judge_details",
    "pack",
    "tail",
    "unpacked_text",
]

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
#: Entries encoded at a time (their hits' texts are made together).
_CHUNK = 2000


def tail(text: str | None, limit: int = TRACEBACK_LIMIT) -> str | None:
    """The end of ``text`` (a traceback's last frames matter most)."""
    if text is None:
        return None
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


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
    """:func:`case_entry` as JSON text (see :func:`cases_json`)."""
    return cases_json([case], [baseline_values])


def all_cases_json(
    cases: Sequence[CaseResult], baselines: Mapping[str, Mapping[str, float]]
) -> Iterator[str]:
    """:func:`cases_json` of every case (baseline values by case id), a chunk at a time."""
    for start in range(0, len(cases), _CHUNK):
        chunk = cases[start : start + _CHUNK]
        yield cases_json(chunk, [baselines.get(c.id) for c in chunk])


def cases_json(cases: Sequence[CaseResult], baselines: Sequence[Mapping[str, float] | None]) -> str:
    """:func:`case_entry` of each case as JSON text, comma-separated, written directly (no
    dict per hit: a 200,000-case run has millions of hits, and this is the only place their
    report form is made).

    Each field is made as a column across all ``cases`` (mostly C-level ``map`` calls;
    numbers that recur, such as scores, metric values and grades, are spelled once), and one
    ``join`` puts the columns and the constant pieces between them together.
    """
    n = len(cases)
    if not n:
        return ""
    ranked = [c._ranked for c in cases]  # the runner's hits and grades, while unbuilt
    lists = [
        () if r is None else r[0] if len(r[0]) <= MAX_HITS else r[0][:MAX_HITS] for r in ranked
    ]
    counts = list(map(len, lists))
    grades = [_no_grade if r is None else r[1].get for r in ranked]
    pieces = _hit_pieces(*flat_columns(lists), grades, counts)
    ends = list(accumulate([5 * c for c in counts]))
    hits = list(map("".join, map(pieces.__getitem__, map(slice, [0, *ends[:-1]], ends))))
    totals = [
        len(r[0]) if r is not None else len(c.hits) for c, r in zip(cases, ranked, strict=True)
    ]
    for i in [i for i, r in enumerate(ranked) if r is None]:  # ``case.hits`` was read
        hits[i] = _built_hits(cases[i].hits[:MAX_HITS])
    tags = [c.tags for c in cases]
    judges = [c.judge for c in cases]
    problems = [c.judge_errors for c in cases]
    columns = (
        _texts([c.id for c in cases]),
        _texts([c.query for c in cases], QUERY_LIMIT),
        [",".join(map(_text, t)) for t in tags] if any(tags) else [""] * n,
        _texts([c.status for c in cases]),
        list(map("%d".__mod__, [c.n_relevant for c in cases])),
        list(map(_floats, [c.values for c in cases])),
        list(map(_num, [c.latency_ms for c in cases])),
        _texts([c.error for c in cases], QUERY_LIMIT),
        _texts([c.traceback for c in cases], TRACEBACK_LIMIT, cut=tail),
        list(map("%d".__mod__, [c.duplicates for c in cases])),
        _texts([c.mode for c in cases]),
        hits,
        [str(max(0, t - MAX_HITS)) for t in totals] if max(totals) > MAX_HITS else ["0"] * n,
        [json.dumps(judge_details(j), **_DUMP) if j else "{}" for j in judges]
        if any(judges)
        else ["{}"] * n,
        [",".join([_text(clip(e, QUERY_LIMIT)) for e in p]) for p in problems]
        if any(problems)
        else [""] * n,
        _all_floats(list(baselines)),
        _texts([c.answer for c in cases], TEXT_LIMIT),
        ["true" if c.answerable else "false" for c in cases],
        _texts([c.refusal for c in cases], QUERY_LIMIT),
        [_facets(c.facets) for c in cases],
    )
    width = 2 * len(columns) + 1
    parts = [""] * (width * n)
    for at, (key, column) in enumerate(zip(_KEYS, columns, strict=True)):
        parts[2 * at :: width] = [key] * n
        parts[2 * at + 1 :: width] = column
    parts[width - 1 :: width] = ["},"] * n
    parts[-1] = "}"
    return "".join(parts)


def _texts(
    values: list[str | None],
    limit: int | None = None,
    cut: Callable[[str | None, int], str | None] = clip,
) -> list[str]:
    """JSON texts of ``values`` (``None`` is ``null``), each cut to ``limit`` by ``cut``."""
    n = len(values)
    nulls = values.count(None)
    if nulls == n:
        return ["null"] * n
    if nulls or (limit is not None and max(map(len, values)) > limit):  # type: ignore[arg-type]
        return [_text(v if limit is None else cut(v, limit)) for v in values]
    return list(map(encode_basestring, values))  # type: ignore[arg-type]


def _hit_pieces(
    ids: list[str],
    texts: list[str | None],
    scores: list[float | None],
    grades: Sequence[Callable[[str, int], int]],
    counts: Sequence[int],
) -> list[str]:
    """Five texts per runner's hit (its ``ids``, ``texts`` and ``scores``) that make its entry
    as ``HitRecord`` would have it (rank, id, text, score, grade with the spans and relevance,
    with the pieces between them); ``grades`` and ``counts`` per case."""
    size = len(ids)
    if not size:
        return []
    found = list(map(call, chain.from_iterable(map(repeat, grades, counts)), ids, repeat(0)))
    out = [""] * (5 * size)
    try:  # ids that need no escaping go in as they are, between the quotes of their neighbours
        raw = not escapes("".join(ids))
    except TypeError:  # not all strings: ``encode_basestring`` says what is wrong
        raw = False
    ranks = _QUOTED_RANKS if raw else _RANKS
    out[0::5] = (
        ranks[: counts[0]] * len(counts)
        if len(set(counts)) == 1
        else chain.from_iterable([ranks[:n] for n in counts])
    )
    out[1::5] = ids if raw else map(encode_basestring, ids)
    quote = '"' if raw else ""
    out[2::5] = (
        [quote + _NO_TEXT] * size
        if texts.count(None) == size
        else [f'{quote},"text":{_text(clip(t))},"score":' for t in texts]
    )
    out[3::5] = _spelled(_NUMBERS, scores, _number)
    out[4::5] = _spelled(_GRADES, found, _grade)
    return out


def _all_floats(found: list[Mapping[str, float] | None]) -> list[str]:
    """:func:`_floats` of each (``None`` is ``null``), each dict once: the cases of a run
    share the dicts of their baseline values (one per distinct row)."""
    unique = dict(zip(map(id, found), found, strict=True))
    texts = {key: "null" if d is None else _floats(d) for key, d in unique.items()}
    return list(map(texts.__getitem__, map(id, found)))


def _spelled(known: dict[Any, str], values: list[Any], spell: Callable[[Any], str]) -> list[str]:
    """``spell`` of each value, from ``known`` when every one is there (the usual case)."""
    texts = list(map(known.get, values))
    return cast("list[str]", texts) if None not in texts else list(map(spell, values))


def _no_grade(hit_id: str, default: int) -> int:
    return default


def _built_hits(hits: Sequence[HitRecord]) -> str:
    return ",".join(
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
            for h in hits
        ]
    )


_DUMP: dict[str, Any] = {"ensure_ascii": False, "allow_nan": False, "separators": (",", ":")}
_HIT = '{"rank":%d,"id":%s,"text":%s,"score":%s,"grade":%d,"spans":[%s],"relevant":%s}'
#: What comes before each field of an entry (the fields of ``cases_json``'s columns).
_KEYS = (
    '{"id":',
    ',"query":',
    ',"tags":[',
    '],"status":',
    ',"n_relevant":',
    ',"values":',
    ',"latency_ms":',
    ',"error":',
    ',"traceback":',
    ',"duplicates":',
    ',"mode":',
    ',"hits":[',
    '],"hits_dropped":',
    ',"judge":',
    ',"judge_errors":[',
    '],"baseline_values":',
    ',"answer":',
    ',"answerable":',
    ',"refusal":',
    ',"facets":',
)
#: What starts the entry of the runner's hit at each rank (after the first, the comma too).
_RANKS = tuple(
    ('{"rank":%d,"id":' if rank == 1 else ',{"rank":%d,"id":') % rank
    for rank in range(1, MAX_HITS + 1)
)
_QUOTED_RANKS = tuple(rank + '"' for rank in _RANKS)
_GRADE = ',"grade":%d,"spans":[],"relevant":%s}'
_NO_TEXT = ',"text":null,"score":'
#: Entries of the spelling caches below (they stop growing there: scores may all differ).
_CACHED = 1 << 16
#: Metric values -> their JSON text. Never with a zero (``-0.0 == 0.0`` is spelled apart) or a
#: nan (each nan is a key of its own: the cache would fill with them).
_VALUES: dict[tuple[tuple[str, float], ...], str] = {}
#: Number -> its JSON text (never a zero or a nan, as above).
_NUMBERS: dict[Any, str] = {None: "null"}
#: Grade -> the ``grade``, ``spans`` and ``relevant`` texts of a runner's hit.
_GRADES: dict[Any, str] = {}


def _facets(facets: Mapping[str, Any] | None) -> str:
    """A case's subtopic coverage and sources (SPEC §12), ``null`` when not asked."""
    return "null" if facets is None else json.dumps(json_safe(facets), **_DUMP)


def _text(value: str | None) -> str:
    return "null" if value is None else encode_basestring(value)


def _num(value: float | None) -> str:
    """A number as ``json`` writes it (``float.__repr__``); non-finite is ``null``."""
    if value is None or not math.isfinite(value):
        return "null"
    return repr(float(value))


def _number(value: float | None) -> str:
    """:func:`_num`, remembered for the next case (metric values and scores recur)."""
    text = _NUMBERS.get(value)
    if text is None:
        text = _num(value)
        if value and value == value and len(_NUMBERS) < _CACHED:  # no zero, no nan
            _NUMBERS[value] = text
    return text


def _grade(found: int) -> str:
    relevant = found > 0
    text = _GRADE % (found if relevant else 0, "true" if relevant else "false")
    if found == found and len(_GRADES) < _CACHED:
        _GRADES[found] = text
    return text


def _floats(values: Mapping[str, float]) -> str:
    key = tuple(values.items())
    text = _VALUES.get(key)
    if text is None:
        text = "{" + ",".join([_text(str(k)) + ":" + _number(v) for k, v in key]) + "}"
        if len(_VALUES) < _CACHED and all(v and v == v for _, v in key):
            _VALUES[key] = text
    return text
