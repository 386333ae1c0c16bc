"""Diversity and source-authority values of a run's cases (SPEC §12), after the retriever ran.

Run by ``evaluate_golden`` on the case results:

* the diversity metrics read each case's subtopic judgments (``subtopics`` by id,
  ``subtopic_texts`` by text span); a case without has no value (counted and said), and a run
  that asks for them with no such case at all is a usage error naming the field;
* the authority metrics weigh each hit's source with the authority table; hits without a
  source are a problem naming the case and the hit.

Each case keeps what a failure message and the reports show: which subtopics its top k covers
(and which documents cover them), and the sources of its hits with their weights.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_ragcheck.common.display import counted, shorten
from pytest_ragcheck.common.errors import ConfigError
from pytest_ragcheck.evaluation.result import hit_ids

if TYPE_CHECKING:
    from pytest_ragcheck.evaluation.result import CaseResult
    from pytest_ragcheck.evaluation.settings import Settings
    from pytest_ragcheck.golden import GoldenCase
    from pytest_ragcheck.metrics.authority_table import AuthorityTable
    from pytest_ragcheck.metrics.diversity import Judgments
    from pytest_ragcheck.metrics.names import MetricSpec

__all__ = ["Facets", "check_facets", "score_facets", "span_judgments"]

_SPAN = "\x00span:{}"
_SHOWN = 3


@dataclass(slots=True)
class Facets:
    """What the facet metrics add to a run's ``info``."""

    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    #: ``trusted_min`` of the run, when an authority metric was computed (for the messages).
    trusted_min: float | None = None

    def info(self) -> dict[str, Any]:
        found: dict[str, Any] = {"notes": self.notes, "problems": self.problems}
        if self.trusted_min is not None:
            found["trusted_min"] = self.trusted_min
        return found if self.notes or self.problems or self.trusted_min is not None else {}


def check_facets(
    cases: Sequence[GoldenCase], settings: Settings, *, source: str
) -> AuthorityTable | None:
    """Before the retriever runs: a diversity metric needs a case with subtopics, an
    authority metric a table (returned, read from its file if need be)."""
    from pytest_ragcheck.metrics.authority_table import load_authority

    _check_subtopics(cases, settings, source)
    weighed = [s.name for s in settings.metrics if "sources" in s.metric.needs and s.kind == "rank"]
    if not weighed:
        return None
    table = settings.facets.authority
    if table is None:
        names = ", ".join(weighed)
        raise ConfigError(
            f"{names} {'weighs' if ',' not in names else 'weigh'} each hit's source with an "
            "authority table: pass "
            "authority='sources.toml' (a JSON or TOML object {pattern: weight}, e.g. "
            '{"nih.gov": 1.0, "*": 0.3}) or a dict, or set the ini option ragcheck_authority'
        )
    return load_authority(table, [Path.cwd()])


def _check_subtopics(cases: Sequence[GoldenCase], settings: Settings, source: str) -> None:
    specs = [s for s in settings.metrics if "subtopics" in s.metric.needs]
    if specs and not any(c.subtopics or c.subtopic_texts for c in cases):
        names = ", ".join(s.name for s in specs)
        raise ConfigError(
            f"{names} {'needs' if len(specs) == 1 else 'need'} subtopic judgments, but no case "
            f"of {source} has 'subtopics' (or 'subtopic_texts'): add them to the cases, e.g. "
            '"subtopics": {"<facet>": ["<doc id>", ...]}, or a subtopics.tsv to a BEIR '
            "folder; or remove the metric"
        )


def score_facets(
    cases: Sequence[GoldenCase],
    results: Mapping[str, CaseResult],
    settings: Settings,
    *,
    table: AuthorityTable | None = None,
) -> Facets:
    """Set the diversity and authority values on the case results."""
    facets = Facets()
    diversity = [s for s in settings.metrics if "subtopics" in s.metric.needs]
    if diversity:
        _diversity(facets, cases, results, settings, diversity)
    authority = [s for s in settings.metrics if "sources" in s.metric.needs and s.kind == "rank"]
    if authority and table is not None:
        facets.trusted_min = settings.facets.trusted_min
        _authority(facets, cases, results, settings, authority, table)
    return facets


def _scored(result: CaseResult, settings: Settings) -> bool:
    return result.status == "ok" or (result.status == "error" and settings.on_error == "zero")


def span_judgments(subtopic_texts: Mapping[str, Sequence[str]]) -> tuple[Judgments, list[str]]:
    """Span subtopics in ndeval's form: each distinct span one judged "document", relevant to
    the subtopics that list it; also the spans, in the order of their pseudo ids."""
    from pytest_ragcheck.golden.spans import normalize_text
    from pytest_ragcheck.metrics.diversity import Judgments

    spans: dict[str, list[int]] = {}
    relevant: list[int] = []
    for index, name in enumerate(subtopic_texts):
        own = dict.fromkeys(normalize_text(span) for span in subtopic_texts[name])
        for span in own:
            spans.setdefault(span, []).append(index)
        relevant.append(len(own))
    docs = {_SPAN.format(i): tuple(indices) for i, indices in enumerate(spans.values())}
    return Judgments(tuple(subtopic_texts), docs, tuple(relevant)), list(spans)


def _covered_by_spans(
    result: CaseResult, judged: Judgments, spans: list[str]
) -> list[tuple[int, ...]]:
    """Per hit, the subtopics of the spans it is the first to contain (SPEC §3's rule)."""
    from pytest_ragcheck.golden.spans import match_spans

    hits = result.hits
    match = match_spans(hits, spans)  # type: ignore[arg-type]  # HitRecord has .text
    covered: list[set[int]] = [set() for _ in hits]
    for index, rank in enumerate(match.span_rank):
        if rank is not None:
            covered[rank - 1].update(judged.docs[_SPAN.format(index)])
    return [tuple(sorted(found)) for found in covered]


def _diversity(
    facets: Facets,
    cases: Sequence[GoldenCase],
    results: Mapping[str, CaseResult],
    settings: Settings,
    specs: Sequence[MetricSpec],
) -> None:
    from pytest_ragcheck.metrics.diversity import DiversityColumns, judgments

    with_subtopics = [c for c in cases if c.subtopics or c.subtopic_texts]
    without = len(cases) - len(with_subtopics)
    if without:
        first = ", ".join(repr(c.id) for c in cases if not (c.subtopics or c.subtopic_texts))
        facets.notes.append(
            f"{counted(without, 'case')} without subtopics: no value for "
            f"{', '.join(s.name for s in specs)}, whose means are over the "
            f"{counted(len(with_subtopics), 'case')} with subtopics ({shorten(first, 120)})"
        )
    alpha, beta = settings.facets.alpha, settings.facets.beta
    for case in with_subtopics:
        result = results[case.id]
        if not _scored(result, settings):
            continue
        if case.subtopics:
            judged = judgments(case.subtopics)
            covered = judged.covered(hit_ids(result))
        else:
            judged, spans = span_judgments(case.subtopic_texts)
            covered = _covered_by_spans(result, judged, spans)
        query = DiversityColumns(covered, judged, alpha, beta, None)
        for spec in specs:
            result.values[spec.name] = getattr(query, spec.base)(spec.k)
        _keep_coverage(result, judged, covered)


def _keep_coverage(
    result: CaseResult, judged: Judgments, covered: Sequence[tuple[int, ...]]
) -> None:
    """Per subtopic: the first rank that covers it (``None``: not covered) and its number of
    relevant documents, for the failure message and the reports."""
    first: dict[str, int | None] = dict.fromkeys(judged.names)
    for rank, found in enumerate(covered, 1):
        for j in found:
            if first[judged.names[j]] is None:
                first[judged.names[j]] = rank
    result.facets = {
        **(result.facets or {}),
        "subtopics": {
            name: {"relevant": count, "first_rank": first[name]}
            for name, count in zip(judged.names, judged.relevant, strict=True)
        },
    }


def _authority(
    facets: Facets,
    cases: Sequence[GoldenCase],
    results: Mapping[str, CaseResult],
    settings: Settings,
    specs: Sequence[MetricSpec],
    table: AuthorityTable,
) -> None:
    from pytest_ragcheck.metrics.authority import AuthorityColumns

    depth = None if any(s.k is None for s in specs) else max(s.k or 0 for s in specs)
    missing: list[str] = []
    cases_missing = lacking_hits = 0
    for case in cases:
        result = results[case.id]
        if not _scored(result, settings):
            continue
        top = result.hits if depth is None else result.hits[:depth]
        lacking = [h for h in top if h.source is None]
        if lacking:
            cases_missing += 1
            hits = ", ".join(f"#{h.rank} {h.id!r}" for h in lacking[:_SHOWN])
            more = f" and {len(lacking) - _SHOWN} more" if len(lacking) > _SHOWN else ""
            missing.append(f"case {case.id!r}: hit {hits}{more}")
            lacking_hits += len(lacking)
            continue
        matches = [table.weigh(h.source) for h in top if h.source is not None]
        columns = AuthorityColumns(matches, settings.facets.trusted_min)
        for spec in specs:
            result.values[spec.name] = getattr(columns, spec.base)(spec.k)
        result.facets = {
            **(result.facets or {}),
            "sources": [
                {
                    "rank": h.rank,
                    "id": h.id,
                    "source": m.source,
                    "pattern": m.pattern,
                    "weight": m.weight,
                }
                for h, m in zip(top, matches, strict=True)
            ],
        }
    if missing:
        key = settings.facets.source_key
        where = (
            f"source_key={key!r}"
            if key
            else "'url', 'source', 'domain' or 'file_path', in the hit or its metadata"
        )
        shown = "; ".join(missing[:_SHOWN]) + (
            f"; … {len(missing) - _SHOWN} more cases" if len(missing) > _SHOWN else ""
        )
        fix = (
            f"does every hit carry {key!r}?"
            if key
            else "if your hits keep their URL under another key, pass source_key='<that key>'"
        )
        names = ", ".join(s.name for s in specs)
        facets.problems.append(
            f"{names}: {counted(lacking_hits, 'hit')} in {counted(cases_missing, 'case')} have "
            f"no source ({where}), so those cases have no value: {shown}. {fix[:1].upper()}"
            f"{fix[1:]}"
        )
