"""Turning whatever a retriever returns into ``Hit(id, text, score)``.

Frameworks are recognised by duck typing (no LangChain, LlamaIndex or Haystack import), so the
plugin stays light and works with look-alike objects. Hits keep the order the retriever chose;
they are never re-sorted by score.
"""

from __future__ import annotations

import numbers
from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, Sequence, Set
from typing import Any, NamedTuple

from pytest_ragcheck.common.errors import exception_line
from pytest_ragcheck.golden.ids import IdError, as_id
from pytest_ragcheck.run.sources import find_source

__all__ = ["ACCEPTED_HIT_SHAPES", "Hit", "normalize_hits", "to_hit"]

ACCEPTED_HIT_SHAPES = (
    "a str id; an (id, score) tuple; a dict with 'id'/'doc_id'/'_id' (optional "
    "'text'/'content'/'page_content' and 'score'); a LangChain-style Document "
    "(.id or .metadata[id_key], .page_content); a LlamaIndex-style NodeWithScore "
    "(.node.node_id, .node.get_content(), .score); a Haystack-style Document "
    "(.id, .content, .score)"
)

_ID_KEYS = ("id", "doc_id", "_id")
_TEXT_KEYS = ("text", "content", "page_content")
_META_ATTRS = ("metadata", "meta")
#: Metadata entries kept per hit as other possible ids (for the "no id matches" hint).
_MAX_ALTERNATIVES = 8
#: What one document object (not a list of them) has: LangChain, LlamaIndex, Haystack.
_DOCUMENT_ATTRS = ("page_content", "node", "content")
#: The keys of a hit's source to read (``None``: none, no metric needs it).
Keys = tuple[str, ...] | None


class Hit(NamedTuple):
    """One retrieved item: its id, its text when known, and the retriever's score if any.

    ``alternatives`` are ``(key, value)`` pairs of the hit's metadata (and LlamaIndex's
    ``ref_doc_id``) that could have been its id: when no retrieved id matches the golden set,
    they tell which ``id_key`` would. They take no part in equality. A named tuple: a large
    run builds millions of hits, and a tuple is built three times faster than a dataclass.
    """

    id: str
    text: str | None = None
    score: float | None = None
    alternatives: tuple[tuple[str, str], ...] = ()
    #: Its URL / source / domain, read only when asked (:mod:`pytest_ragcheck.run.sources`).
    source: str | None = None

    def __eq__(self, other: object) -> bool:  # not equal to a plain tuple, as a dataclass
        return isinstance(other, Hit) and self[:3] == other[:3]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self[:3])


def _snippet(obj: object, limit: int = 80) -> str:
    try:
        text = repr(obj)
    except Exception:  # a broken __repr__ must not hide the real problem
        text = f"<{type(obj).__name__} object>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _type_name(obj: object) -> str:
    cls = type(obj)
    return (
        cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    )


def _shape_error(obj: object, reason: str = "") -> TypeError:
    why = f" ({reason})" if reason else ""
    return TypeError(
        f"cannot read a hit from {_type_name(obj)} {_snippet(obj)}{why}; "
        f"a hit must be {ACCEPTED_HIT_SHAPES}"
    )


def _is_score(value: object) -> bool:
    """A real number or a ``Decimal`` (SQL drivers' ``NUMERIC``), never a bool or complex."""
    real = isinstance(value, numbers.Real) or not isinstance(value, numbers.Complex)
    return real and isinstance(value, numbers.Number) and not isinstance(value, bool)


def _as_score(value: object, owner: object) -> float | None:
    if value is None:
        return None
    if _is_score(value):
        return float(value)  # type: ignore[arg-type]
    raise _shape_error(owner, f"score must be a number, got {type(value).__name__}")


def _as_text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _meta_value(container: object, key: str) -> object:
    for attr in _META_ATTRS:
        meta = (
            container.get(attr)
            if isinstance(container, Mapping)
            else getattr(container, attr, None)
        )
        if isinstance(meta, Mapping) and meta.get(key) is not None:
            return meta[key]
    return None


def _get(container: object, key: str) -> object:
    if isinstance(container, Mapping):
        return container.get(key)
    return getattr(container, key, None)


def _find_id(container: object, id_key: str | None, defaults: Sequence[str], owner: object) -> str:
    """The id from ``id_key`` (metadata first, then the key/attribute itself), else defaults.

    With ``id_key`` set, a hit without it is an error rather than a silent fallback to
    another id: a wrong id would make every metric quietly 0.
    """
    if id_key is not None:
        for raw in (_meta_value(container, id_key), _get(container, id_key)):
            if raw is not None:
                found = as_id(raw)
                if found is None:
                    raise _shape_error(owner, f"id {id_key!r} must be a str or int")
                return found
        raise _shape_error(owner, f"no {id_key!r} key in the hit or in its metadata (id_key)")
    for key in defaults:
        found = as_id(_get(container, key))
        if found is not None:
            return found
    for key in _ID_KEYS:
        found = as_id(_meta_value(container, key))
        if found is not None:
            return found
    for key in defaults:  # there, but not usable: say so rather than "no id"
        value = _get(container, key)
        if value is not None:
            raise _shape_error(
                owner,
                f"its {key!r} is {_type_name(value)} {_snippet(value, 40)}, not a non-empty "
                "str or int id: convert it (e.g. str(...)) or pass id_key=",
            )
    raise _shape_error(
        owner, "no id: set one of 'id', 'doc_id', '_id' or pass id_key= to read it from metadata"
    )


def _first_text(container: object) -> str | None:
    for key in _TEXT_KEYS:
        text = _as_text(_get(container, key))
        if text is not None:
            return text
    return None


def _alternatives(container: object, hit_id: str) -> tuple[tuple[str, str], ...]:
    """Metadata values (and ``ref_doc_id``) that look like ids other than ``hit_id``."""
    entries: list[tuple[object, object]] = []
    for attr in _META_ATTRS:
        meta = _get(container, attr)
        if isinstance(meta, Mapping):
            entries.extend(meta.items())
    entries.append(("ref_doc_id", _get(container, "ref_doc_id")))  # LlamaIndex: source doc
    found: list[tuple[str, str]] = []
    for key, value in entries:
        if not isinstance(key, str):
            continue
        try:
            text = as_id(value)
        except IdError:
            continue
        if text is not None and text != hit_id:
            found.append((key, text))
            if len(found) == _MAX_ALTERNATIVES:
                break
    return tuple(found)


def _document_hit(
    container: object,
    id_key: str | None,
    defaults: Sequence[str],
    owner: object,
    *,
    text: str | None,
    score: object,
    sources: tuple[str, ...] | None = None,
) -> Hit:
    hit_id = _find_id(container, id_key, defaults, owner)
    alternatives = _alternatives(container, hit_id) if id_key is None else ()
    source = None if sources is None else find_source(container, sources)
    return Hit(hit_id, text, _as_score(score, owner), alternatives, source)


def _node_hit(node: object, score: object, id_key: str | None, owner: object, sources: Keys) -> Hit:
    getter = getattr(node, "get_content", None)
    text = _as_text(getter()) if callable(getter) else _first_text(node)
    ids = ("node_id", "id_")
    return _document_hit(node, id_key, ids, owner, text=text, score=score, sources=sources)


def to_hit(obj: object, *, id_key: str | None = None, sources: Keys = None) -> Hit:
    """Read one hit; raises ``TypeError`` naming the accepted shapes when ``obj`` is none.

    ``id_key`` names the metadata key (or attribute/dict key) that holds the document id, e.g.
    ``"source"`` for LangChain loaders; when given it is required on every hit. Without it the
    id is ``id``/``doc_id``/``_id`` (LlamaIndex: ``node_id``), then the same keys in metadata.
    ``sources``: the keys of the hit's source, read only when given.
    """
    # exact-type fast paths for the commonest shapes: ids and (id, float score) pairs
    if type(obj) is str and obj:
        return Hit(obj)
    if type(obj) is tuple and len(obj) == 2 and type(obj[1]) is float:
        first = obj[0]
        if type(first) is str and first:
            return Hit(first, None, obj[1])
    if isinstance(obj, Hit):
        return obj
    if isinstance(obj, str):  # a subclass, e.g. numpy's str_: read as a plain str
        if not obj:
            raise _shape_error(obj, "empty id")
        return Hit(str.__str__(obj))
    simple = as_id(obj)
    if simple is not None:
        return Hit(simple)
    if isinstance(obj, Mapping):
        text, score = _first_text(obj), obj.get("score")
        return _document_hit(obj, id_key, _ID_KEYS, obj, text=text, score=score, sources=sources)
    if isinstance(obj, tuple | list):
        if len(obj) != 2:
            raise _shape_error(
                obj, f"a hit sequence must be (id, score), got length {len(obj)}{_nested(obj)}"
            )
        first, score = obj
        if score is not None and not _is_score(score):
            raise _shape_error(
                obj, f"the second item must be a score, got {type(score).__name__}{_nested(obj)}"
            )
        inner = to_hit(first, id_key=id_key, sources=sources)  # (id, score), (Document, score)
        return Hit(
            inner.id,
            inner.text,
            _as_score(score, obj) if score is not None else inner.score,
            inner.alternatives,
            inner.source,
        )
    if isinstance(obj, bytes | bytearray | numbers.Number) or obj is None:
        raise _shape_error(obj)
    node = getattr(obj, "node", None)
    if node is not None:  # LlamaIndex NodeWithScore
        return _node_hit(node, getattr(obj, "score", None), id_key, obj, sources)
    if getattr(obj, "node_id", None) is not None:  # a bare LlamaIndex node
        return _node_hit(obj, getattr(obj, "score", None), id_key, obj, sources)
    if hasattr(obj, "page_content") or any(hasattr(obj, key) for key in (*_ID_KEYS, "content")):
        # LangChain Document, Haystack Document, or any object with the same attributes.
        text, score = _first_text(obj), getattr(obj, "score", None)
        return _document_hit(obj, id_key, _ID_KEYS, obj, text=text, score=score, sources=sources)
    raise _shape_error(obj)


def _nested(obj: object) -> str:
    """A list where a hit belongs is often one query's hits inside a list of them (a vector
    store's result for a list of query vectors): say so."""
    return "; a list of hit lists? return one query's hits" if type(obj) is list else ""


def _is_id(value: object) -> bool:
    try:
        return as_id(value) is not None
    except IdError:  # an id all the same, only too long; reported when read as a hit
        return True


def _unwrap(raw: object) -> Iterable[object]:
    if raw is None:
        raise TypeError(
            "the retriever returned None; it must return a list of hits "
            f"(each hit: {ACCEPTED_HIT_SHAPES})"
        )
    if isinstance(raw, str | bytes | bytearray):
        raise TypeError(
            f"the retriever returned a {type(raw).__name__} ({_snippet(raw)}), not a list of "
            "hits; wrap a single id in a list"
        )
    if isinstance(raw, Mapping):
        if "ids" in raw and "documents" in raw:  # Chroma's query result: columns, per query
            raise TypeError(
                "the retriever returned a Chroma query result (a dict of 'ids', 'documents', "
                "...: one list per query), not a list of hits; return "
                "[{'id': i, 'text': t} for i, t in zip(out['ids'][0], out['documents'][0])]"
            )
        if "documents" in raw:
            return _unwrap(raw["documents"])
        values = list(raw.values())
        if len(values) == 1 and isinstance(values[0], Mapping) and "documents" in values[0]:
            return _unwrap(values[0]["documents"])  # a Haystack pipeline's {"component": {...}}
        if values and all(map(_is_score, values)):
            raise TypeError(
                f"the retriever returned a dict of id -> score ({_snippet(raw)}), not a list "
                "of hits in rank order; return the pairs ranked, e.g. "
                "sorted(scores.items(), key=lambda pair: pair[1], reverse=True)"
            )
        raise TypeError(
            f"the retriever returned a dict with keys {_snippet(list(raw))}, not a list of hits; "
            'a dict is accepted as {"documents": [...]} (Haystack) and, from a RAG pipeline, '
            'as {"answer": ..., "contexts": [...]}'
        )
    if isinstance(raw, Set) and not isinstance(raw, KeysView | ItemsView):
        # A set's iteration order changes with PYTHONHASHSEED: every rank metric would too.
        raise TypeError(
            f"the retriever returned a {_type_name(raw)}, which has no order; hits must be "
            "ordered: return a list in rank order (e.g. sorted by score)"
        )
    if isinstance(raw, tuple) and len(raw) == 2 and _is_score(raw[1]) and _is_id(raw[0]):
        raise TypeError(
            f"the retriever returned one (id, score) pair {_snippet(raw)}; return a list of "
            "hits instead"
        )
    if not isinstance(raw, Sequence | Iterator) and any(hasattr(raw, a) for a in _DOCUMENT_ATTRS):
        # a LangChain Document or a LlamaIndex NodeWithScore iterates over its own fields
        raise TypeError(
            f"the retriever returned one {_type_name(raw)} ({_snippet(raw)}), not a list of "
            "hits; wrap a single document in a list: [document]"
        )
    if hasattr(raw, "columns") and not isinstance(raw, Sequence | Iterator):
        # a data frame iterates over its column names: they would be read as ids, scoring 0
        raise TypeError(
            f"the retriever returned a {_type_name(raw)}, which iterates over its column "
            "names, not its rows; return the rows as dicts (pandas: df.to_dict('records'), "
            "polars: df.to_dicts()) with an 'id' column, in rank order"
        )
    if isinstance(raw, Hit) or not isinstance(raw, Iterable):  # a Hit is a tuple of fields
        raise TypeError(
            f"the retriever returned {_type_name(raw)} {_snippet(raw)}, which is not a list of "
            f"hits (each hit: {ACCEPTED_HIT_SHAPES})"
        )
    return raw


def normalize_hits(
    raw: object, *, id_key: str | None = None, sources: Keys = None
) -> tuple[list[Hit], int]:
    """Hits in returned order with repeated ids dropped (the first, best position is kept).

    Returns the hits and the number of dropped repeats. Raises ``TypeError`` (naming the hit's
    position) for anything that is not an ordered collection of accepted hit shapes (a
    ``set`` has no rank order).
    """
    items = raw if type(raw) is list else _unwrap(raw)
    hits = _plain_hits(items) if type(items) is list else None
    if hits is None:
        hits = []
        for position, item in enumerate(items, 1):
            try:
                hits.append(to_hit(item, id_key=id_key, sources=sources))
            except (TypeError, IdError) as exc:
                raise TypeError(f"hit #{position}: {exc}") from None
            except Exception as exc:  # the object's own code raised (a property, __getattr__)
                raise TypeError(
                    f"hit #{position}: reading {_type_name(item)} raised {exception_line(exc)}"
                ) from exc
    if len({hit.id for hit in hits}) == len(hits):
        return hits, 0
    first: dict[str, Hit] = {}
    for hit in hits:
        first.setdefault(hit.id, hit)
    return list(first.values()), len(hits) - len(first)


def _plain_hits(raw: list[Any]) -> list[Hit] | None:
    """:func:`to_hit` of each of a list of ``str`` ids and ``(str, float)`` pairs (what most
    retrievers return) without a call per hit; ``None`` at the first other item."""
    hits: list[Hit] = []
    append, new = hits.append, tuple.__new__  # new(Hit, ...): a third of Hit(...)'s time
    for item in raw:
        kind = type(item)
        if kind is tuple and len(item) == 2:
            hit_id, score = item
            if type(hit_id) is not str or not hit_id or type(score) is not float:
                return None
            append(new(Hit, (hit_id, None, score, (), None)))
        elif kind is str and item:
            append(new(Hit, (item, None, None, (), None)))
        else:
            return None
    return hits
