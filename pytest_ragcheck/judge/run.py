"""The judge layer's input and output records (stdlib only, cheap to import)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_ragcheck.judge.failures import describe_failures

if TYPE_CHECKING:
    from pytest_ragcheck.judge.retry import RetryPolicy

__all__ = ["JudgeItem", "JudgeOptions", "JudgeRun", "summarize_details"]

_MAX_LISTED = 10

#: How :mod:`.cache` words a damaged entry's warning.
_DAMAGED = ("corrupt cache entry", "cannot read cache entry")


@dataclass(frozen=True, slots=True)
class JudgeItem:
    """One golden case as the judge sees it."""

    case_id: str
    query: str
    reference_answer: str | None
    #: Texts of the case's retrieved hits in rank order (deduplicated), up to the largest k
    #: any judge metric needs; ``""`` for a hit without text.
    chunks: tuple[str, ...]
    #: The pipeline's answer, for the judged answer metrics.
    answer: str | None = None
    #: ``False``: the collection holds no answer (only metrics that score such cases judge it).
    answerable: bool = True
    #: Why the answer is a refusal by the rules (patterns, empty), or ``None``: a refusal is
    #: graded without a judge call.
    refusal: str | None = None
    #: The hits' sources (URL, source or domain) in rank order, for ``llm_source_quality``;
    #: ``None`` for a hit without one.
    sources: tuple[str | None, ...] = ()


@dataclass(frozen=True, slots=True)
class JudgeOptions:
    """How one judge run reports progress and retries (the user's choices are in JudgeSettings)."""

    #: ``progress(done, total)`` over the verdicts, cached ones included.
    progress: Callable[[int, int], None] | None = None
    #: Retries of transient failures (``None``: the client's default policy).
    retry_policy: RetryPolicy | None = None
    #: ``diversity_alpha``, for ``llm_alpha_ndcg``.
    alpha: float = 0.5
    #: What waits between retries (tests pass a fake clock; ``None``: ``asyncio.sleep``).
    sleep: Callable[[float], Awaitable[None]] | None = None


@dataclass
class JudgeRun:
    """Judge metric values per case, with the verdicts behind them and every failure.

    A case/metric whose verdicts could not all be obtained is absent from ``values`` (never
    NaN, never a silent 0) and explained in ``errors``.
    """

    #: case id -> metric canonical name -> value.
    values: dict[str, dict[str, float]] = field(default_factory=dict)
    #: case id -> metric name -> one dict per judged chunk (``rank``, ``verdict``/``grade``/
    #: ``score``, ``reason``, ``cached``; ``votes`` and ``spread`` with ``judge_samples`` > 1;
    #: ``error`` for a chunk without a verdict) or, for ``context_recall``, per claim
    #: (``claim``, ``attributed``).
    details: dict[str, dict[str, list[dict[str, Any]]]] = field(default_factory=dict)
    #: case id -> readable error lines.
    errors: dict[str, list[str]] = field(default_factory=dict)
    #: Judge requests sent (retries and re-asks included).
    calls: int = 0
    #: Verdicts served from the cache.
    cached: int = 0
    #: Verdicts not obtained.
    missing: int = 0
    #: Requests that were retries of a failed request.
    retries: int = 0
    #: Problems that did not cost a verdict (a corrupt cache entry that was re-judged, a cache
    #: folder that cannot be written).
    warnings: list[str] = field(default_factory=list)
    #: (case id, what) for verdicts missing because offline mode found no cache entry.
    offline_misses: list[tuple[str, str]] = field(default_factory=list)
    #: Verdicts missing because ``judge_max_calls`` ran out.
    budget_missing: int = 0
    #: Failed requests by kind (``HTTP 500``, ``reply not JSON``, ``timeout``...).
    call_failures: dict[str, int] = field(default_factory=dict)
    budget_limit: int | None = None
    cache_dir: str | None = None
    #: (case id, line) for failures other than offline misses and the budget.
    other_errors: list[tuple[str, str]] = field(default_factory=list)
    #: ``judge_samples`` >= 2: distinct judged items with every sample answered, those whose
    #: samples all agree, and those left out because they disagree (``"abstain"``).
    sampled: int = 0
    agreeing: int = 0
    abstained: int = 0
    #: Judged answer metrics: metric -> fact -> number of cases (``rejected_quotes`` counts
    #: quotes; ``no_claims``, ``noncommittal`` count answers).
    answer_facts: dict[str, dict[str, int]] = field(default_factory=dict)

    def count_facts(self, metric: str, facts: Mapping[str, int]) -> None:
        if not facts:
            return
        counts = self.answer_facts.setdefault(metric, {})
        for fact, count in facts.items():
            counts[fact] = counts.get(fact, 0) + count

    def add_error(self, case_id: str, line: str) -> None:
        lines = self.errors.setdefault(case_id, [])
        if line not in lines:
            lines.append(line)

    def summary(self) -> dict[str, Any]:
        """What the reports show of the run (JSON data): counts, the failure, the warnings."""
        found: dict[str, Any] = {
            "calls": self.calls,
            "cached": self.cached,
            "missing": self.missing,
            "failure": self.failure_summary(),
            # corrupt cache entries that were judged again, a cache folder that cannot be written
            "warnings": list(self.warnings),
        }
        if self.answer_facts:
            found["answers"] = {m: dict(f) for m, f in self.answer_facts.items()}
        if self.sampled:
            found["samples"] = {
                "items": self.sampled,
                "agreeing": self.agreeing,
                "abstained": self.abstained,
            }
        return found

    def failure_summary(self) -> str | None:
        """One paragraph for the user when any judge metric value is missing, else ``None``."""
        if not self.errors:
            return None
        parts: list[str] = []
        if self.offline_misses:
            listed = [f"case {case!r} {what}" for case, what in self.offline_misses[:_MAX_LISTED]]
            more = len(self.offline_misses) - len(listed)
            where = self.cache_dir or "the verdict cache"
            fix = (
                "Record them where a judge API key is available (run these tests without "
                "--ragcheck-judge-offline, with the same judge model and api_base) and commit "
                f"{where}."
            )
            if self.cache_dir is None:  # recording cannot help: nothing would be read
                fix = (
                    "The verdict cache is off (--ragcheck-judge-cache=off), so offline mode has "
                    "no verdict to read: turn the cache on (the default is .ragcheck/judge/ "
                    "under the rootdir), record the verdicts there and commit them."
                )
            # an entry that is there but damaged reads as missing: say so, or the user looks
            # for a file that exists
            damaged = [w for w in self.warnings if w.startswith(_DAMAGED)]
            if damaged:
                first = damaged[0].removesuffix("; judging it again")
                fix = f"Damaged entries read as missing: {len(damaged)} (the first: {first}). {fix}"
            parts.append(
                f"{len(self.offline_misses)} judge verdict(s) are not in {where} and "
                f"--ragcheck-judge-offline forbids calling the judge: {', '.join(listed)}"
                + (f" and {more} more" if more > 0 else "")
                + f". {fix}"
            )
        if self.budget_missing:
            failed = sum(self.call_failures.values())
            spent = f"{self.calls} call(s) made"
            fix = "raise judge_max_calls or judge fewer cases"
            if failed:  # the budget went on failures: the endpoint is what needs a look
                spent += f", {failed} of them failed: {describe_failures(self.call_failures)}"
                fix = f"check the judge endpoint (its failures used the budget), then {fix}"
            parts.append(
                f"The judge budget ran out (judge_max_calls={self.budget_limit}, {spent}): "
                f"{self.budget_missing} verdict(s) are missing; {fix}."
            )
        if self.other_errors:
            listed = [f"{case!r}: {line}" for case, line in self.other_errors[:5]]
            more = len(self.other_errors) - len(listed)
            parts.append(
                f"Judge errors in {len({c for c, _ in self.other_errors})} case(s): "
                + "; ".join(listed)
                + (f"; and {more} more" if more > 0 else "")
                + "."
            )
        return " ".join(parts) if parts else None

    def explain(self, case_id: str, metric: str, *, limit: int = 3) -> str:
        """The judge's worst verdicts and reasons for one case and metric (see below)."""
        return summarize_details(self.details.get(case_id, {}).get(metric, []), limit=limit)


def _badness(entry: Mapping[str, Any]) -> float:
    """Sort key: errors first, then the lowest verdicts (they explain a low score)."""
    if "error" in entry:
        return -1.0
    if "claim" in entry:
        return 1.0 if _claim_holds(entry) else 0.0
    if "class" in entry:  # answer_correctness statements: misses and inventions first
        return 1.0 if entry["class"] == "TP" else 0.0
    if "verdict" in entry:
        return 1.0 if entry["verdict"] == "yes" else 0.0
    for name in ("grade", "score"):
        value = entry.get(name)
        if isinstance(value, int | float):
            return float(value)
    return 0.0


def _claim_holds(entry: Mapping[str, Any]) -> bool:
    return bool(entry.get("attributed") or entry.get("supported") or entry.get("covered"))


def _claim_text(entry: Mapping[str, Any]) -> str:
    text = f"claim {entry.get('claim', '')!r}"
    if "supported" in entry:  # faithfulness
        if entry["supported"]:
            return f"{text} supported"
        if entry.get("judge_supported"):
            return f"{text} not supported (the judge's quote {entry.get('quote', '')!r} is not in the contexts)"
        return f"{text} not supported by the contexts"
    if "covered" in entry:
        return f"{text} {'covered' if entry['covered'] else 'missing from the answer'}"
    return f"{text} {'attributed' if entry.get('attributed') else 'not attributed'}"


def _grade_text(entry: Mapping[str, Any]) -> str:
    """``grade incorrect (the judge: acceptable): <reason>`` or ``grade missing (refusal:
    empty answer, no judge call)``."""
    grade = f"grade {entry.get('grade')}"
    said = entry.get("judge_grade")
    if said is not None and said != entry.get("grade"):
        grade += f" (the judge said {said}; the collection holds no answer)"
    if entry.get("refusal"):
        return f"{grade} (refusal: {entry['refusal']}; no judge call)"
    if "error" in entry:
        return f"{grade} error: {entry['error']}"
    reason = str(entry.get("reason") or "").strip()
    return f"{grade}: {reason}" if reason else grade


def summarize_details(details: Sequence[Mapping[str, Any]], *, limit: int = 3) -> str:
    """The judge's worst verdicts with their reasons, compactly (for failure messages).

    ``#2 verdict no: <reason>; #3 grade 0: <reason>`` — errors first, then the lowest
    verdicts, grades, scores or unattributed claims, each with its rank.
    """
    worst = sorted(details, key=_badness)[:limit]
    parts: list[str] = []
    for entry in worst:
        if "answerable" in entry:  # truthfulness & co.: one CRAG grade per answer
            parts.append(_grade_text(entry))
            continue
        if "claim" in entry:
            parts.append(_claim_text(entry))
            continue
        if "class" in entry:
            parts.append(f"{entry['class']} {entry.get('statement', '')!r}")
            continue
        if "question" in entry:
            similarity = entry.get("similarity")
            shown = "" if similarity is None else f" (cosine {similarity:.2f})"
            parts.append(f"question {entry['question']!r}{shown}")
            continue
        rank = entry.get("rank", "?")
        if "error" in entry:
            parts.append(f"#{rank} error: {entry['error']}")
            continue
        for name in ("verdict", "grade", "score"):
            if name in entry:
                value = entry[name]
                shown = f"{value:.2g}" if isinstance(value, float) else str(value)
                reason = str(entry.get("reason") or "").strip()
                parts.append(f"#{rank} {name} {shown}" + (f": {reason}" if reason else ""))
                break
    more = len(details) - len(worst)
    if more > 0:
        parts.append(f"{more} more")
    return "; ".join(parts)
