"""What a run of the retriever says beyond the metrics, so that no zero is silent.

- The depth asked for: the largest cutoff any metric needs (``recall@20`` with ``k=10`` asks
  for 20; a metric ``@all`` leaves the retriever its own depth).
- A retriever that returned fewer hits than a cutoff on every case: the metrics at that cutoff
  are computed on fewer hits, and the summary and the failure message say so, with what to
  change when the retriever fixes its depth at construction.
- Retrieved ids that match no id of the golden set: usually ids the framework generated
  (UUIDs, content hashes) while the user's ids sit in metadata. Every metric would be 0.
- Numbers the metrics cannot hold (grades beyond ``ndcg_exp``'s float range or 64 bits),
  rejected before the retriever runs.

Facts go to ``result.info["retrieval"]`` as JSON data (texts included, so every report shows
the same words); :func:`pytest_ragcheck.gate.verdict.check_floors` turns them into notes and problems.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain, compress, islice
from operator import attrgetter, countOf, itemgetter, methodcaller, mul
from typing import TYPE_CHECKING, Any

from pytest_ragcheck.common.display import counted
from pytest_ragcheck.common.errors import GoldenSetError
from pytest_ragcheck.run.columns import HitColumns, hit_id_list

if TYPE_CHECKING:
    from pytest_ragcheck.golden import GoldenCase
    from pytest_ragcheck.metrics.names import MetricSpec
    from pytest_ragcheck.run.runner import RetrievalOutcome, RetrievalRun

__all__ = ["check_golden_numbers", "largest_cutoff", "requested_depth", "retrieval_info"]

_SHOWN = 3
_RELEVANCE = attrgetter("relevance")
_VALUES = methodcaller("values")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
_HASH = re.compile(r"^[0-9a-f]{32,128}$", re.I)
#: ``RetrievalOutcome`` fields by position (the outcomes are named tuples).
_HITS, _DUPLICATES, _ERROR, _TIMED_OUT = itemgetter(0), itemgetter(1), itemgetter(3), itemgetter(5)
_COLUMNS = {HitColumns}
_DICT = {dict}
#: ``d.keys()`` and ``d.keys().isdisjoint(ids)`` of a dict as C functions.
_KEYS: Callable[[Any], Any] = dict.keys
_KEYS_DISJOINT: Callable[[Any, Iterable[str]], bool] = type({}.keys()).isdisjoint


def _cutoff_specs(specs: Sequence[MetricSpec]) -> list[MetricSpec]:
    return [s for s in specs if s.kind != "latency" and s.metric.cutoff]


def requested_depth(specs: Sequence[MetricSpec]) -> int | None:
    """How many hits to ask for: the largest cutoff, or ``None`` when a metric is ``@all``."""
    cut = _cutoff_specs(specs)
    if not cut or any(s.k is None for s in cut):
        return None
    return max(s.k or 0 for s in cut)


def largest_cutoff(specs: Sequence[MetricSpec]) -> int | None:
    """The largest finite cutoff of the metrics (``@all`` ignored), for the depth check."""
    return max((s.k for s in _cutoff_specs(specs) if s.k is not None), default=None)


def check_golden_numbers(
    cases: Sequence[GoldenCase], specs: Sequence[MetricSpec], *, source: str
) -> None:
    """Grades the metrics cannot hold are a golden-set error, before the retriever runs."""
    from pytest_ragcheck.metrics import MAX_EXP_GRADE, MAX_GRADE

    exp = any(s.base == "ndcg_exp" for s in specs)
    # ``expected_ids`` are grade 1: only the graded ``relevance`` of a case can be out of range
    graded = filter(None, map(_RELEVANCE, cases))  # C-level passes: most cases have none
    every = list(chain.from_iterable(map(_VALUES, graded)))
    if not every or (
        max(every) <= (MAX_EXP_GRADE if exp else MAX_GRADE) and min(every) >= -MAX_GRADE
    ):
        return  # the common case: nothing to name, no loop per case
    for case in cases:
        for doc, grade in case._grades.items():
            if abs(grade) > MAX_GRADE:
                raise GoldenSetError(
                    f"{source}: case {case.id!r}: the grade of {doc!r} is too large (more than 64 bits); "
                    "grades are small integers such as 0-3"
                )
            if exp and grade > MAX_EXP_GRADE:
                raise GoldenSetError(
                    f"{source}: case {case.id!r}: grade {grade} of {doc!r} is too large for ndcg_exp "
                    f"(gain 2**grade - 1 holds grades up to {MAX_EXP_GRADE}); use ndcg "
                    "(gain = grade) or smaller grades"
                )


def _quoted(ids: Sequence[str]) -> str:
    return ", ".join(repr(i if len(i) <= 40 else i[:39] + "…") for i in ids)


def _hit_ids(outcomes: Sequence[RetrievalOutcome]) -> list[Sequence[str]]:
    """Each outcome's hit ids in rank order, ``[]`` for a failed call (the column itself for
    hits read as columns: never change it); for a run of columns only, without a call per
    case."""
    hits = list(map(_HITS, outcomes))
    if set(map(type, hits)) == _COLUMNS and countOf(map(_ERROR, outcomes), None) == len(hits):
        return [h.ids for h in hits]
    return [hit_id_list(o.hits) if o.error is None else [] for o in outcomes]


def _id_check(
    cases: Sequence[GoldenCase],
    outcomes: Sequence[RetrievalOutcome],
    *,
    grades: Sequence[Mapping[str, int]] | None = None,
) -> dict[str, Any] | None:
    """Cases whose hits hold no id the golden set knows (any case's judged ids). ``grades``:
    each case's judgments (``case._grades``), when the caller has them at hand."""
    return _id_facts(cases, outcomes, _hit_ids(outcomes), grades)


def _id_facts(
    cases: Sequence[GoldenCase],
    outcomes: Sequence[RetrievalOutcome],
    ids: Sequence[Sequence[str]],
    grades: Sequence[Mapping[str, int]] | None,
) -> dict[str, Any] | None:
    """:func:`_id_check`, the outcomes' ids read already (:func:`_hit_ids`)."""
    # A case matches by id when it has judged ids (``mode == "ids"``) and its hits hold one of
    # them (a look-up in its small dict of judgments). Once a case misses its own, every
    # judged id of the golden set is needed (a set as large as the set's ids), and the cases
    # after it are looked up in that set alone: hits that hold no judged id hold none of
    # their own case's either.
    if grades is None:
        grades = [c._grades for c in cases]
    if len(grades) != len(ids):
        for _ in zip(grades, ids, strict=True):  # the error zip() gives
            pass
    if set(map(type, grades)) <= _DICT:  # C-level passes
        disjoint: Iterable[bool] = map(_KEYS_DISJOINT, map(_KEYS, grades), ids)
        both: Iterable[object] = map(mul, map(len, grades), map(len, ids))
    else:
        disjoint = (own.keys().isdisjoint(found) for own, found in zip(grades, ids, strict=True))
        both = (own and found for own, found in zip(grades, ids, strict=True))
    candidates = compress(range(len(ids)), disjoint)  # and cases without judged ids or hits
    first = next((i for i in candidates if grades[i] and ids[i]), None)
    if first is None:
        return None
    known: set[str] = set().union(*grades)
    later = compress(range(first, len(ids)), map(known.isdisjoint, islice(ids, first, None)))
    unmatched = [i for i in later if grades[i] and ids[i]]
    if not known or not unmatched:
        return None
    checked = list(compress(range(len(ids)), both))  # cases with judged ids and hits
    keys = Counter(  # hits read as columns have no metadata, so no other possible id
        key
        for i in unmatched
        if type(outcomes[i].hits) is not HitColumns
        for h in outcomes[i].hits
        for key, value in h.alternatives
        if value in known
    )
    retrieved = _first_distinct(chain.from_iterable(map(ids.__getitem__, unmatched)))
    golden = _first_distinct(chain.from_iterable(map(grades.__getitem__, unmatched)))
    key, matches = keys.most_common(1)[0] if keys else (None, 0)
    every = list(map(ids.__getitem__, checked))
    return {
        "checked": len(checked),
        "unmatched": len(unmatched),
        # Across the whole run: how many hits are ids the golden set knows. Many are when the
        # ids are right and the unmatched cases are misses, not an id mismatch.
        "hits": sum(map(len, every)),
        "known_hits": countOf(map(known.__contains__, chain.from_iterable(every)), True),
        "unmatched_ids": [cases[i].id for i in unmatched[:5]],
        "retrieved_sample": retrieved,
        "golden_sample": golden,
        "id_key": key,
        "id_key_matches": matches,
    }


def _first_distinct(ids: Iterable[str]) -> list[str]:
    """The first :data:`_SHOWN` distinct ids, in order (without reading the rest)."""
    found: dict[str, None] = {}
    for item in ids:
        found[item] = None
        if len(found) == _SHOWN:
            break
    return list(found)


def _id_fix(facts: dict[str, Any]) -> str:
    if facts["id_key"] is not None:
        return (
            f"pass id_key={facts['id_key']!r} (metadata[{facts['id_key']!r}] holds ids of the "
            f"golden set in {facts['id_key_matches']} hits), or set each document's id when "
            "indexing it"
        )
    return (
        "pass id_key='<metadata key of your ids>', or set each document's id when indexing it "
        "(LangChain Document(id=...), LlamaIndex TextNode(id_=...), Haystack Document(id=...))"
    )


def id_problem(facts: dict[str, Any]) -> str:
    """The failure text when no case's hits match the golden set."""
    sample = facts["retrieved_sample"]
    if all(_UUID.match(i) for i in sample):
        cause = (
            "they look like UUIDs a framework generated (LangChain's InMemoryVectorStore and "
            "LlamaIndex nodes do)"
        )
    elif all(_HASH.match(i) for i in sample):
        cause = "they look like content hashes a framework generated (Haystack's Document ids)"
    else:
        cause = "the retriever and the golden set use different ids"
    return (
        f"No retrieved id matches an id of the golden set ({facts['checked']} cases with hits), "
        f"so every metric is 0. Retrieved: {_quoted(sample)}; golden set: "
        f"{_quoted(facts['golden_sample'])}. Likely cause: {cause}, while your document ids are "
        f"in metadata. Fix: {_id_fix(facts)}."
    )


def _repeated_ids(outcomes: Sequence[RetrievalOutcome], specs: Sequence[MetricSpec]) -> str | None:
    """Chunks the judge does not see: a hit repeating an earlier hit's id counts once, with
    the first hit's text (one document, one rank), so its own text is dropped too."""
    if not any(s.kind == "judge" and "texts" in s.metric.needs for s in specs):
        return None
    cases = len([*filter(None, map(_DUPLICATES, outcomes))])
    if not cases:
        return None
    return (
        f"{cases} case(s) returned hits that repeat an id: each id counts once, with the text "
        "of its first hit, so the judge does not see the repeated chunks; give each chunk an "
        "id of its own (e.g. 'doc-1#3') to have every chunk judged"
    )


#: Hits of the whole run that may be ids of the golden set while the ids still mismatch
#: ("almost none": a few may collide by chance, "1" in both numberings).
_ALMOST_NONE = 0.02


def _id_note(facts: dict[str, Any], depth: int | None) -> str:
    """Most cases retrieved no id the golden set knows: an id mismatch only when (almost) no
    hit of the whole run is a known id or a metadata key of the hits holds known ids; else
    those cases simply found nothing relevant."""
    first = ", ".join(facts["unmatched_ids"])
    mismatch = facts["known_hits"] <= _ALMOST_NONE * facts["hits"]
    if facts["id_key"] is not None or mismatch:
        return (
            f"{facts['unmatched']} of {facts['checked']} cases returned no id the golden set "
            f"knows (first: {first}); if your ids are in metadata, {_id_fix(facts)}"
        )
    where = f"the top {depth}" if depth is not None else "what the retriever returned"
    return (
        f"{facts['unmatched']} of {facts['checked']} cases have no relevant document in {where} "
        f"(first: {first}); other cases' hits are ids of the golden set, so these are misses, "
        "not an id mismatch"
    )


def _max_hits(
    outcomes: Sequence[RetrievalOutcome], ids: Sequence[Sequence[str]] | None = None
) -> int | None:
    """The most hits any case that ran returned (``None``: every case failed); ``ids``: the
    outcomes' :func:`_hit_ids` (a failed call's are none), when read already."""
    if ids is not None and countOf(map(_ERROR, outcomes), None):
        return max(map(len, ids))
    return max([len(o.hits) for o in outcomes if o.error is None], default=None)


def _shortfall(
    most: int | None, specs: Sequence[MetricSpec], run: RetrievalRun, depth: int | None
) -> str | None:
    """ "retriever returned at most N hits; metrics @K are computed on N", and why (``most``:
    :func:`_max_hits`)."""
    cutoff = largest_cutoff(specs)
    if cutoff is None or most is None or most >= cutoff:
        return None
    cutoffs = sorted({s.k for s in _cutoff_specs(specs) if s.k is not None and s.k > most})
    shown = ", ".join(f"@{k}" for k in cutoffs)
    text = (
        f"retriever returned at most {counted(most, 'hit')}; metrics {shown} are computed on {most}"
    )
    resolved = run.retriever
    if depth is None:
        return text + " (no depth was asked for: a metric @all takes the retriever's own depth)"
    if resolved.takes_depth:
        return text + f" (it was asked for {depth})"
    if resolved.depth_hint is not None:
        return text + "; " + resolved.depth_hint.replace("{depth}", str(depth))
    return (
        text + f"; {resolved.description} takes no k or top_k parameter: add one, or make it "
        f"return at least {counted(depth, 'hit')}"
    )


def _batches(run: RetrievalRun) -> dict[str, Any] | None:
    """``batch_size=``: the latency per batch (p50, p95, max) and per query (batch / size)."""
    if run.batch_size is None:
        return None
    from pytest_ragcheck.metrics.latency import latency_percentiles

    times = list(run.batch_ms)
    per_batch = latency_percentiles(times) if times else {}
    # each case's latency is its batch's time divided by the batch's size
    shares = [o.latency_ms for o in run.outcomes if o.ok and o.latency_ms is not None]
    per_query = sum(shares) / len(shares) if shares else None
    facts: dict[str, Any] = {
        "size": run.batch_size,
        "calls": len(times),
        "latency_p50_ms": per_batch.get("latency_p50_ms"),
        "latency_p95_ms": per_batch.get("latency_p95_ms"),
        "latency_max_ms": per_batch.get("latency_max_ms"),
        "per_query_ms": per_query,
    }
    if times and per_query is not None:
        facts["note"] = (
            f"batches of {run.batch_size}: {len(times)} calls, "
            f"{facts['latency_p50_ms']:.1f} ms per batch (p50), {per_query:.2f} ms per query"
        )
    else:
        facts["note"] = f"batches of {run.batch_size}: no batch returned hits"
    return facts


def retrieval_info(
    run: RetrievalRun,
    cases: Sequence[GoldenCase],
    specs: Sequence[MetricSpec],
    depth: int | None,
    *,
    grades: Sequence[Mapping[str, int]] | None = None,
) -> dict[str, Any]:
    """``result.info["retrieval"]``: the facts, the notes for the summary, the problems.

    ``grades``: each case's judgments (``case._grades``, in case order), when the caller has
    them at hand. The outcomes are read column by column (C-level passes, not a loop).
    """
    notes: list[str] = []
    problems: list[str] = []
    outcomes = run.outcomes
    ran = countOf(map(_ERROR, outcomes), None)  # calls that returned (``o.ok``)
    choice = run.concurrency
    if choice.auto and ran:
        notes.append(
            choice.describe() + ("; latencies are single calls" if choice.workers == 1 else "")
        )
    batches = _batches(run)
    if batches is not None:
        notes.append(batches["note"])
    # Only the rank metrics read ids: judge and answer metrics read texts and the answer.
    ids = _hit_ids(outcomes) if any(s.kind == "rank" for s in specs) else None
    most = _max_hits(outcomes, ids)
    shortfall = _shortfall(most, specs, run, depth)
    if shortfall is not None:
        notes.append(shortfall)
    late = len([*filter(None, map(_TIMED_OUT, outcomes))])
    if late and ran:  # latency is reported with every run
        notes.append(
            f"{late} call(s) timed out: the latency metrics count each at its timeout "
            "(a lower bound of its time)"
        )
    repeated = _repeated_ids(outcomes, specs)
    if repeated is not None:
        notes.append(repeated)
    ranked = any(
        s.kind == "rank" or (s.kind == "judge" and "texts" in s.metric.needs) for s in specs
    )
    if most == 0 and ranked:  # an index never loaded: every metric 0, and a baseline of zeros
        problems.append(
            f"The retriever returned no hits for any of the {ran} case(s) it ran on, so every "
            "metric that reads hits is 0. Is the index loaded (documents added before the "
            "test)? Finding nothing for some queries is fine; for every query it is a broken "
            "retriever, not a score."
        )
    matched = None if ids is None else _id_facts(cases, outcomes, ids, grades)
    if matched is not None and matched["unmatched"] == matched["checked"]:
        problems.append(id_problem(matched))
    elif matched is not None and 2 * matched["unmatched"] > matched["checked"]:
        notes.append(_id_note(matched, depth))
    return {
        "retriever": run.retriever.description,
        "depth": depth,
        "takes_depth": run.retriever.takes_depth,
        "concurrency": choice.workers,
        "concurrency_auto": choice.auto,
        "concurrency_reason": choice.reason or None,
        "max_hits": most,
        "timed_out": late,
        "shortfall": shortfall,
        "ids": matched,
        "batches": batches,
        "notes": notes,
        "problems": problems,
    }
