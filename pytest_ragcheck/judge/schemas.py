"""Validation of judge answers against the shapes of the contract.

Extra keys are ignored; a missing key, a value of the wrong type or out of range is malformed
(no coercion: ``"2"`` is not a grade, ``true`` is not a score). The same validation runs on
fresh answers and on cache entries, so a hand-edited or damaged entry is caught too. A reason
longer than the reports show (:data:`~pytest_ragcheck.common.display.TEXT_LIMIT`) is cut there, with
an ellipsis: a runaway judge must not fill the committed cache (a 30 MB reason per verdict).
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from pytest_ragcheck.common.display import TEXT_LIMIT, clip
from pytest_ragcheck.judge.prompts import TRUTH_GRADES, AnswerKind

__all__ = ["MAX_ITEMS", "MalformedAnswer", "capped_reason", "parse_answer", "validate_answer"]

#: Most claims, questions or statements one answer may list: more is a runaway judge (or an
#: answer that is really a document), reported as malformed rather than scored.
MAX_ITEMS = 200

_TRUTH_GRADES = frozenset(TRUTH_GRADES)
_FENCE_RE = re.compile(r"^```[a-zA-Z0-9_-]*\s*\n(.*?)\n?```$", re.S)


class MalformedAnswer(ValueError):
    """The judge's answer is not JSON of the requested shape; the message says why."""


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class _Verdict(_Answer):
    verdict: Literal["yes", "no"]
    reason: Annotated[str, Field(strict=True)]

    @field_validator("verdict", mode="before")
    @classmethod
    def _normalise(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


class _Grade(_Answer):
    grade: Annotated[int, Field(strict=True, ge=0, le=3)]
    reason: Annotated[str, Field(strict=True)]


class _Score(_Answer):
    score: Annotated[float, Field(strict=True, ge=0.0, le=1.0)]
    reason: Annotated[str, Field(strict=True)]


class _Claim(_Answer):
    claim: Annotated[str, Field(strict=True)]
    attributed: Annotated[bool, Field(strict=True)]


class _Claims(_Answer):
    claims: list[_Claim]


_Text = Annotated[str, Field(strict=True)]


class _Supported(_Answer):
    claim: _Text
    supported: Annotated[bool, Field(strict=True)]
    quote: _Text


class _Faithfulness(_Answer):
    claims: list[_Supported]


class _Questions(_Answer):
    questions: list[_Text]
    noncommittal: Annotated[bool, Field(strict=True)]


class _Correctness(_Answer):
    TP: list[_Text]
    FP: list[_Text]
    FN: list[_Text]


class _Covered(_Answer):
    claim: _Text
    covered: Annotated[bool, Field(strict=True)]


class _Completeness(_Answer):
    claims: list[_Covered]


class _Truthfulness(_Answer):
    grade: Literal["perfect", "acceptable", "missing", "incorrect"]
    reason: _Text

    @field_validator("grade", mode="before")
    @classmethod
    def _normalise(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


class _Aspect(_Answer):
    id: _Text
    aspect: _Text


class _Aspects(_Answer):
    aspects: list[_Aspect]


class _Covers(_Answer):
    covers: list[_Text]


_MODELS: dict[str, type[_Answer]] = {
    "verdict": _Verdict,
    "grade": _Grade,
    "score": _Score,
    "claims": _Claims,
    "faithfulness": _Faithfulness,
    "questions": _Questions,
    "correctness": _Correctness,
    "completeness": _Completeness,
    "truthfulness": _Truthfulness,
    "aspects": _Aspects,
    "covers": _Covers,
}


def _check_sizes(answer: _Answer) -> None:
    """Lists that cannot be scored: empty where the contract needs an item, or huge."""
    if isinstance(answer, _Claims | _Completeness) and not answer.claims:
        raise MalformedAnswer("the claims list is empty (the reference answer has no claims?)")
    if isinstance(answer, _Aspects):
        ids = [a.id.strip() for a in answer.aspects]
        if not ids or not all(ids):
            raise MalformedAnswer("the aspects list is empty, or an aspect has a blank id")
        if len(set(ids)) != len(ids):
            raise MalformedAnswer("two aspects have the same id")
    for name, value in answer:
        if isinstance(value, list) and len(value) > MAX_ITEMS:
            raise MalformedAnswer(f"{name} lists {len(value)} items, more than {MAX_ITEMS}")


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors()[:3]:
        where = ".".join(str(p) for p in error["loc"]) or "answer"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)


def _fast(kind: AnswerKind, data: dict[str, Any]) -> dict[str, Any] | None:
    """The canonical form of an answer that is plainly valid, else ``None`` (use pydantic).

    A cached run validates every entry; this skips model construction for the usual case.
    It accepts a strict subset of what the models accept and returns the same result.
    """
    reason = data.get("reason")
    if kind == "verdict":
        verdict = data.get("verdict")
        if (verdict == "yes" or verdict == "no") and type(reason) is str:
            return {"verdict": verdict, "reason": reason}
    elif kind == "grade":
        grade = data.get("grade")
        if type(grade) is int and 0 <= grade <= 3 and type(reason) is str:
            return {"grade": grade, "reason": reason}
    elif kind == "truthfulness":
        grade = data.get("grade")
        if type(grade) is str and grade in _TRUTH_GRADES and type(reason) is str:
            return {"grade": grade, "reason": reason}
    elif kind == "score":
        score = data.get("score")
        if isinstance(score, int | float) and not isinstance(score, bool):
            value = float(score)
            if 0.0 <= value <= 1.0 and type(reason) is str:
                return {"score": value, "reason": reason}
    return None


def capped_reason(answer: dict[str, Any]) -> dict[str, Any]:
    """``answer`` with a ``reason`` longer than :data:`TEXT_LIMIT` cut to it (``…`` marks it)."""
    reason = answer.get("reason")
    if type(reason) is str and len(reason) > TEXT_LIMIT:
        return {**answer, "reason": clip(reason)}
    return answer


def validate_answer(kind: AnswerKind, data: object) -> dict[str, Any]:
    """Check a decoded answer and return it in canonical form (extra keys dropped, a long
    reason cut)."""
    if isinstance(data, dict):
        fast = _fast(kind, data)
        if fast is not None:
            return capped_reason(fast)
    if not isinstance(data, dict):
        raise MalformedAnswer(f"expected a JSON object, got {type(data).__name__}")
    try:
        answer = _MODELS[kind].model_validate(data)
    except ValidationError as exc:
        raise MalformedAnswer(f"wrong shape ({_describe(exc)})") from None
    _check_sizes(answer)
    return capped_reason(answer.model_dump())


def parse_answer(kind: AnswerKind, content: str | None) -> dict[str, Any]:
    """Decode and validate the text of a judge answer.

    A Markdown code fence around the JSON is tolerated (some models add one even in JSON
    mode); prose, truncated JSON or the wrong shape raise :class:`MalformedAnswer`.
    """
    if content is None or not content.strip():
        raise MalformedAnswer("the answer is empty")
    text = content.strip()
    fenced = _FENCE_RE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        data = json.loads(text)
    except ValueError:
        excerpt = text if len(text) <= 80 else text[:77] + "..."
        raise MalformedAnswer(f"not JSON: {excerpt!r}") from None
    except RecursionError:  # lists or objects nested deeper than Python reads
        raise MalformedAnswer(
            "not JSON this program can read: lists or objects nested too deeply"
        ) from None
    return validate_answer(kind, data)
