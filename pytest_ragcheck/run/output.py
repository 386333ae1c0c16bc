"""A pipeline's return value split into its answer and its contexts (SPEC §10).

A retriever returns hits; a pipeline returns ``{"answer": ..., "contexts": [...]}`` (or
``response``/``result``/``output`` with ``documents``/``source_documents``/``source_nodes``/
``retrieved_contexts``), or a LlamaIndex-style response object (``.response`` and
``.source_nodes``). Anything else is left to the hit reader unchanged, so every retriever
that worked before still does (a Haystack ``{"documents": [...]}`` has no answer key).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["ANSWER_KEYS", "CONTEXT_KEYS", "Answer", "split_output"]

ANSWER_KEYS = ("answer", "response", "result", "output")
CONTEXT_KEYS = ("contexts", "documents", "source_documents", "source_nodes", "retrieved_contexts")


@dataclass(frozen=True, slots=True)
class Answer:
    """What a pipeline answered: ``text`` is ``None`` when it gave no answer (``None``)."""

    text: str | None
    #: False when the pipeline returned an answer but no contexts key at all.
    has_contexts: bool
    #: The dict's other keys when it has no contexts key: the message names them (LangChain's
    #: ``create_retrieval_chain`` puts its documents under ``context``).
    other_keys: tuple[str, ...] = field(default=(), compare=False)


def _one_key(raw: Mapping[str, object], keys: tuple[str, ...], what: str) -> str | None:
    found = [key for key in keys if key in raw]
    if len(found) > 1:
        raise TypeError(
            f"the pipeline returned a dict with several {what} keys ({', '.join(found)}); "
            f"keep exactly one of: {', '.join(keys)}"
        )
    return found[0] if found else None


def _answer_text(value: object, key: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    # a chat message (LangChain's AIMessage, Haystack's ChatMessage) holds the text
    attr = next((a for a in ("content", "text") if isinstance(getattr(value, a, None), str)), None)
    how = f"return its .{attr}" if attr else "return the generated text itself"
    try:
        shown = repr(str(value)[:60])
    except Exception:  # a broken __str__ must not hide what is wrong
        shown = f"<{type(value).__name__} object>"
    raise TypeError(
        f"the pipeline's answer ({key!r}) must be a str, got {type(value).__name__}: {shown}; {how}"
    )


def _contexts(value: object, key: str) -> object:
    """The hits under ``key``; ``None`` or a string there is named here, where the key is
    known (the hit reader would blame "the retriever")."""
    if value is None:
        raise TypeError(
            f"the pipeline's contexts ({key!r}) are None; return a list of hits "
            "(an empty list when nothing was retrieved)"
        )
    if isinstance(value, Mapping) and "documents" not in value:  # {"documents": [...]} is hits
        raise TypeError(
            f"the pipeline's contexts ({key!r}) must be a list of hits, got a dict with keys "
            f"{list(value)[:5]!r}; return the hits in rank order (a dict of id -> score: "
            "sorted(scores.items(), key=lambda pair: pair[1], reverse=True))"
        )
    if isinstance(value, str | bytes | bytearray):
        raise TypeError(
            f"the pipeline's contexts ({key!r}) must be a list of hits, got "
            f"{type(value).__name__}: {str(value)[:60]!r}; a string in that list is a document "
            "id: return each passage as {'id': ..., 'text': ...} or as a document object"
        )
    return value


def split_output(raw: object) -> tuple[Answer | None, object]:
    """``(answer, hits)``: the answer (``None`` for a plain retriever) and the raw hits.

    An answer without contexts gives ``[]`` as hits and ``has_contexts=False``. Raises
    ``TypeError`` for a non-string answer or ambiguous keys.
    """
    if isinstance(raw, Mapping):
        answer_key = _one_key(raw, ANSWER_KEYS, "answer")
        if answer_key is None:
            _haystack_answers(raw)
            return None, raw
        context_key = _one_key(raw, CONTEXT_KEYS, "contexts")
        text = _answer_text(raw[answer_key], answer_key)
        if context_key is None:
            others = tuple(str(key) for key in raw if key != answer_key)
            return Answer(text, has_contexts=False, other_keys=others), []
        return Answer(text, has_contexts=True), _contexts(raw[context_key], context_key)
    if type(raw) is tuple and len(raw) == 2 and _answer_and_hits(*raw):
        raise TypeError(
            "the pipeline returned a tuple (answer, contexts); return a dict instead: "
            "{'answer': answer, 'contexts': contexts} (read as hits, the answer would be a "
            "document id)"
        )
    if hasattr(raw, "response_gen") and hasattr(raw, "source_nodes"):
        raise TypeError(
            f"the pipeline returned a streaming response ({type(raw).__name__}), whose answer "
            "exists only once the stream is consumed: create the query engine without "
            "streaming=True, or return response.get_response() (awaited for an async one)"
        )
    if hasattr(raw, "response") and hasattr(raw, "source_nodes"):  # LlamaIndex Response
        text = _answer_text(raw.response, "response")
        nodes = raw.source_nodes
        return Answer(text, has_contexts=True), [] if nodes is None else nodes
    pair = _attribute_pair(raw)
    if pair is not None:  # read as hits, a pydantic model would give its fields as "hits"
        answer, contexts = pair
        raise TypeError(
            f"the pipeline returned a {type(raw).__name__} with .{answer} and .{contexts}; "
            f"return a dict instead: {{'{answer}': out.{answer}, '{contexts}': out.{contexts}}}"
        )
    return None, raw


def _answer_and_hits(first: object, second: object) -> bool:
    """``(str, list)`` that is not a hit followed by an ``[id, score]`` pair."""
    if not isinstance(first, str) or not isinstance(second, list):
        return False
    return not (len(second) == 2 and isinstance(second[1], int | float))


def _haystack_answers(raw: Mapping[str, object]) -> None:
    """Raise for Haystack answers (``{"answers": [GeneratedAnswer]}``, also under a component's
    name): they hold the answer (``.data``) and its documents, but not in a shape read here."""
    found = [(None, raw.get("answers"))] + [
        (name, value.get("answers")) for name, value in raw.items() if isinstance(value, Mapping)
    ]
    for component, answers in found:
        if isinstance(answers, list) and answers and hasattr(answers[0], "data"):
            path = f"out[{component!r}]['answers']" if component else "out['answers']"
            documents = (  # a GeneratedAnswer keeps its documents; an ExtractedAnswer does not
                f"{path}[0].documents"
                if hasattr(answers[0], "documents")
                else "<the documents it was read from>"
            )
            raise TypeError(
                f"the pipeline returned Haystack answers ({type(answers[0]).__name__}); return "
                f"{{'answer': {path}[0].data, 'documents': {documents}}}"
            )


def _attribute_pair(raw: object) -> tuple[str, str] | None:
    """The answer and contexts attributes of an object (a dataclass, a pydantic model)."""
    if isinstance(raw, str | bytes | tuple | list):
        return None
    answer = next((key for key in ANSWER_KEYS if hasattr(raw, key)), None)
    if answer is None:
        return None
    contexts = next((key for key in CONTEXT_KEYS if hasattr(raw, key)), None)
    return None if contexts is None else (answer, contexts)
