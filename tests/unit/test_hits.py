"""Hit normalisation (every accepted shape, every rejected one) and text-span matching."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from pytest_ragcheck.golden.spans import SpanMatch, match_spans, normalize_text
from pytest_ragcheck.run.hits import Hit, normalize_hits, to_hit

# ----------------------------------------------------------------- framework look-alikes


@dataclass
class LCDocument:
    """Shaped like ``langchain_core.documents.Document``."""

    page_content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


class LINode:
    """Shaped like a LlamaIndex ``TextNode``."""

    def __init__(self, node_id: str, text: str, metadata: dict[str, Any] | None = None) -> None:
        self.node_id = node_id
        self._text = text
        self.metadata = metadata or {}

    def get_content(self) -> str:
        return self._text


@dataclass
class LINodeWithScore:
    node: LINode
    score: float | None = None


@dataclass
class HSDocument:
    """Shaped like ``haystack.Document`` (note: ``meta``, not ``metadata``)."""

    id: str
    content: str | None = None
    score: float | None = None
    meta: dict[str, Any] = field(default_factory=dict)


# ----------------------------------------------------------------- accepted shapes


def test_str_id() -> None:
    assert to_hit("doc-1") == Hit("doc-1")


def test_int_ids_become_decimal_strings() -> None:
    assert to_hit(42) == Hit("42")
    assert to_hit(np.int64(7)) == Hit("7")


def test_uuid_id() -> None:
    value = uuid.UUID(int=5)
    assert to_hit(value) == Hit(str(value))


@pytest.mark.parametrize("pair", [("d1", 0.5), ["d1", 0.5], ("d1", np.float32(0.5))])
def test_id_score_pair(pair: Any) -> None:
    assert to_hit(pair) == Hit("d1", None, 0.5)


def test_pair_with_none_score_and_int_id() -> None:
    assert to_hit((3, None)) == Hit("3")


def test_document_score_pair_as_from_similarity_search_with_score() -> None:
    pair = (LCDocument("some text", id="a"), 0.25)
    assert to_hit(pair) == Hit("a", "some text", 0.25)


@pytest.mark.parametrize("key", ["id", "doc_id", "_id"])
def test_dict_id_keys(key: str) -> None:
    assert to_hit({key: "x", "score": 1}) == Hit("x", None, 1.0)


@pytest.mark.parametrize("text_key", ["text", "content", "page_content"])
def test_dict_text_keys(text_key: str) -> None:
    assert to_hit({"id": "x", text_key: "hello"}) == Hit("x", "hello")


def test_dict_id_from_metadata() -> None:
    assert to_hit({"page_content": "t", "metadata": {"doc_id": "m"}}) == Hit("m", "t")


def test_dict_id_key_option() -> None:
    raw = {"id": "chunk-9", "text": "t", "metadata": {"source": "a.md"}}
    assert to_hit(raw, id_key="source") == Hit("a.md", "t")
    assert to_hit({"slug": "s1"}, id_key="slug") == Hit("s1")


def test_langchain_document_with_id() -> None:
    doc = LCDocument("Paris is the capital.", metadata={"source": "fr.md"}, id="d7")
    assert to_hit(doc) == Hit("d7", "Paris is the capital.")


def test_langchain_document_id_from_metadata_when_id_is_none() -> None:
    doc = LCDocument("text", metadata={"id": 12})
    assert to_hit(doc) == Hit("12", "text")


def test_langchain_document_id_key_overrides_document_id() -> None:
    doc = LCDocument("text", metadata={"source": "guide.md"}, id="random-uuid")
    assert to_hit(doc, id_key="source") == Hit("guide.md", "text")


def test_langchain_document_without_any_id_explains_id_key() -> None:
    doc = LCDocument("text", metadata={"source": "guide.md"})
    with pytest.raises(TypeError, match=r"no id: .*id_key="):
        to_hit(doc)


def test_missing_id_key_is_an_error_not_a_fallback() -> None:
    doc = LCDocument("text", id="d1")
    with pytest.raises(TypeError, match=r"no 'source' key in the hit or in its metadata"):
        to_hit(doc, id_key="source")


def test_llamaindex_node_with_score() -> None:
    hit = to_hit(LINodeWithScore(LINode("n1", "node text"), 0.75))
    assert hit == Hit("n1", "node text", 0.75)


def test_llamaindex_id_key_reads_node_metadata() -> None:
    nws = LINodeWithScore(LINode("uuid-1", "t", metadata={"file_name": "a.pdf"}), None)
    assert to_hit(nws, id_key="file_name") == Hit("a.pdf", "t")


def test_bare_llamaindex_node() -> None:
    assert to_hit(LINode("n2", "bare")) == Hit("n2", "bare")


def test_haystack_document() -> None:
    assert to_hit(HSDocument("h1", "content", 2.5)) == Hit("h1", "content", 2.5)


def test_haystack_id_key_reads_meta() -> None:
    doc = HSDocument("hash", "c", meta={"doc": "manual"})
    assert to_hit(doc, id_key="doc") == Hit("manual", "c")


def test_generic_object_with_attributes() -> None:
    @dataclass
    class Row:
        doc_id: int
        text: str

    assert to_hit(Row(5, "row text")) == Hit("5", "row text")


def test_non_str_text_is_ignored() -> None:
    assert to_hit({"id": "x", "content": b"\x00binary"}) == Hit("x")


def test_hit_passes_through() -> None:
    hit = Hit("a", "b", 1.0)
    assert to_hit(hit) is hit


# ----------------------------------------------------------------- rejected shapes


@pytest.mark.parametrize(
    ("bad", "type_name"),
    [
        (1.5, "float"),
        (None, "NoneType"),
        (True, "bool"),
        (b"bytes", "bytes"),
        (object(), "object"),
        (("a", "b", "c"), "tuple"),
    ],
)
def test_rejected_hit_names_type_and_accepted_shapes(bad: object, type_name: str) -> None:
    with pytest.raises(TypeError) as info:
        to_hit(bad)
    message = str(info.value)
    assert f"cannot read a hit from {type_name}" in message
    assert "a str id; an (id, score) tuple" in message
    assert "NodeWithScore" in message


def test_repr_snippet_is_truncated() -> None:
    class Weird:
        def __repr__(self) -> str:
            return "W" * 500

    with pytest.raises(TypeError) as info:
        to_hit(Weird())
    assert "WWW..." in str(info.value)
    assert "W" * 100 not in str(info.value)


def test_pair_with_non_numeric_score() -> None:
    with pytest.raises(TypeError, match="the second item must be a score, got str"):
        to_hit(("d1", "d2"))


def test_dict_with_non_numeric_score() -> None:
    with pytest.raises(TypeError, match="score must be a number, got str"):
        to_hit({"id": "d1", "score": "high"})


def test_dict_without_id() -> None:
    with pytest.raises(TypeError, match=r"no id: set one of 'id', 'doc_id', '_id'"):
        to_hit({"text": "orphan"})


def test_empty_str_id() -> None:
    with pytest.raises(TypeError, match="empty id"):
        to_hit("")


def test_id_key_with_unusable_value() -> None:
    with pytest.raises(TypeError, match="id 'source' must be a str or int"):
        to_hit({"metadata": {"source": ["a", "b"]}}, id_key="source")


# ----------------------------------------------------------------- normalize_hits


def test_normalize_keeps_order_and_does_not_sort_by_score() -> None:
    hits, dropped = normalize_hits([("a", 0.1), ("b", 0.9), ("c", 0.5)])
    assert [h.id for h in hits] == ["a", "b", "c"]
    assert dropped == 0


def test_normalize_dedup_keeps_first_and_counts_repeats() -> None:
    raw = [("a", 0.9), "b", ("a", 0.95), {"id": "b"}, "c", "a"]
    hits, dropped = normalize_hits(raw)
    assert [h.id for h in hits] == ["a", "b", "c"]
    assert hits[0].score == 0.9
    assert dropped == 3


def test_normalize_int_and_str_of_same_id_are_duplicates() -> None:
    hits, dropped = normalize_hits([7, "7"])
    assert [h.id for h in hits] == ["7"]
    assert dropped == 1


def test_normalize_accepts_generators_tuples_and_arrays() -> None:
    assert [h.id for h in normalize_hits(x for x in ["a", "b"])[0]] == ["a", "b"]
    assert [h.id for h in normalize_hits(("a", "b", "c"))[0]] == ["a", "b", "c"]
    assert [h.id for h in normalize_hits(np.array(["x", "y"]))[0]] == ["x", "y"]
    assert [h.id for h in normalize_hits(np.array([3, 4]))[0]] == ["3", "4"]


def test_normalize_haystack_documents_dict() -> None:
    hits, _ = normalize_hits({"documents": [HSDocument("h1", "t1"), HSDocument("h2", "t2")]})
    assert [h.id for h in hits] == ["h1", "h2"]


def test_normalize_haystack_pipeline_output() -> None:
    hits, _ = normalize_hits({"retriever": {"documents": [HSDocument("h1")]}})
    assert [h.id for h in hits] == ["h1"]


def test_normalize_empty_list() -> None:
    assert normalize_hits([]) == ([], 0)


def test_normalize_names_position_of_bad_hit() -> None:
    with pytest.raises(TypeError, match=r"^hit #3: cannot read a hit from float 2\.5"):
        normalize_hits(["a", "b", 2.5])


@pytest.mark.parametrize(
    ("raw", "pattern"),
    [
        (None, r"returned None; it must return a list of hits"),
        ("doc-1", r"returned a str \('doc-1'\), not a list of hits; wrap a single id"),
        (b"doc-1", r"returned a bytes"),
        ({"results": []}, r"dict with keys \['results'\].*\{\"documents\": \[\.\.\.\]\}"),
        (42, r"returned int 42, which is not a list of hits"),
        (("d1", 0.5), r"returned one \(id, score\) pair"),
    ],
)
def test_normalize_rejects_bad_top_level(raw: object, pattern: str) -> None:
    with pytest.raises(TypeError, match=pattern):
        normalize_hits(raw)


def test_normalize_id_key_applies_to_every_hit() -> None:
    docs = [
        LCDocument("one", metadata={"source": "a.md"}),
        LCDocument("two", metadata={"source": "a.md"}),
        LCDocument("three", metadata={"source": "b.md"}),
    ]
    hits, dropped = normalize_hits(docs, id_key="source")
    assert [h.id for h in hits] == ["a.md", "b.md"]
    assert hits[0].text == "one"
    assert dropped == 1


# ----------------------------------------------------------------- text spans


def test_normalize_text_nfkc_casefold_whitespace() -> None:
    assert normalize_text("  Stra\u00dfe\u00a0\tIS\n\nGROSS ") == "strasse is gross"
    assert normalize_text("\ufb01le") == "file"  # the "fi" ligature
    assert normalize_text("\uff21\uff22\uff23") == "abc"  # full-width letters
    assert normalize_text("e\u0301") == "\u00e9"  # composed


def test_match_spans_basic_and_ranks() -> None:
    hits = [Hit("1", "nothing here"), Hit("2", "The Eiffel  Tower is in PARIS."), Hit("3", "x")]
    match = match_spans(hits, ["eiffel tower", "in paris", "Berlin"])
    assert match.relevant == [False, True, False]
    assert match.new_spans_per_hit == [0, 2, 0]
    assert match.span_rank == [2, 2, None]
    assert match.spans_found() == 2
    assert match.spans_found(1) == 0
    assert match.relevant_hits(2) == 1
    assert match.hits_without_text == 0


def test_match_spans_repeat_of_found_span_is_not_relevant() -> None:
    hits = [Hit("a", "alpha beta"), Hit("b", "ALPHA again"), Hit("c", "gamma and alpha")]
    match = match_spans(hits, ["alpha", "gamma"])
    assert match.relevant == [True, False, True]
    assert match.new_spans_per_hit == [1, 0, 1]
    assert match.span_rank == [1, 3]
    assert match.spans_found(2) == 1
    assert match.spans_found(3) == 2


def test_match_spans_unicode_forms_match() -> None:
    hits = [Hit("a", "Die gro\u00dfe Stra\u00dfe"), Hit("b", "\ufb01nal   answer")]
    match = match_spans(hits, ["GROSSE strasse", "final answer"])
    assert match.span_rank == [1, 2]


def test_match_spans_hits_without_text_never_match_and_are_counted() -> None:
    hits = [Hit("a"), Hit("b", None), Hit("c", "has the span")]
    match = match_spans(hits, ["the span"])
    assert match.relevant == [False, False, True]
    assert match.hits_without_text == 2
    assert match.span_rank == [3]


def test_match_spans_no_hits() -> None:
    match = match_spans([], ["a", "b"])
    assert match == SpanMatch([], [], [None, None], 0)
    assert match.spans_found() == 0


# ----------------------------------------------------------------- unordered, too long, alternatives


@pytest.mark.parametrize("raw", [{"a", "b"}, frozenset({"a"})])
def test_normalize_rejects_unordered_hits(raw: Any) -> None:
    with pytest.raises(TypeError, match=r"which has no order; hits must be ordered"):
        normalize_hits(raw)


def test_an_integer_id_too_long_to_print_is_a_named_error() -> None:
    with pytest.raises(TypeError, match=r"hit #2: an integer id of about 5,001 digits"):
        normalize_hits(["a", 10**5000])
    with pytest.raises(TypeError, match=r"write such ids as strings"):
        normalize_hits([(10**5000, 0.5)])


def test_metadata_ids_are_kept_as_alternatives_outside_equality() -> None:
    doc = LCDocument(
        "text", metadata={"doc_id": "d-7", "page": 3, "title": "x", "score": 0.5}, id="u-1"
    )
    hit = to_hit(doc)
    assert hit == Hit("u-1", "text")
    assert hit.alternatives == (("doc_id", "d-7"), ("page", "3"), ("title", "x"))
    assert to_hit(doc, id_key="doc_id").alternatives == ()
    node = LINodeWithScore(LINode("n-1", "t", {"doc_id": "d-1"}), 0.5)
    node.node.ref_doc_id = "src-9"  # type: ignore[attr-defined]
    assert to_hit(node).alternatives == (("doc_id", "d-1"), ("ref_doc_id", "src-9"))
    assert to_hit((doc, 0.2)).alternatives == hit.alternatives


def _one_document(framework: str) -> object:
    """One real framework document, as a retriever might return by mistake."""
    if framework == "langchain":
        from langchain_core.documents import Document

        return Document(page_content="alpha text", id="d1")
    if framework == "llamaindex":
        from llama_index.core.schema import NodeWithScore, TextNode

        return NodeWithScore(node=TextNode(text="alpha text", id_="d1"), score=0.5)
    from haystack import Document as HaystackDocument

    return HaystackDocument(content="alpha text", id="d1")


@pytest.mark.parametrize("framework", ["langchain", "llamaindex", "haystack"])
def test_one_document_not_in_a_list_says_to_wrap_it(framework: str) -> None:
    """A pydantic document iterates over its own fields: it read as "hit #1: cannot read a
    hit from tuple ('id', 'd1')"."""
    document = _one_document(framework)
    with pytest.raises(TypeError) as caught:
        normalize_hits(document)
    message = str(caught.value)
    assert message.startswith(f"the retriever returned one {type(document).__module__}.")
    assert message.endswith("not a list of hits; wrap a single document in a list: [document]")
    assert normalize_hits([document])[0][0].id == "d1"


def test_a_dict_that_is_no_known_shape_names_both_dicts_accepted() -> None:
    with pytest.raises(TypeError, match=r"keys \['hits'\], not a list of hits; a dict is accepted"):
        normalize_hits({"hits": ["d1"]})
    with pytest.raises(TypeError) as caught:
        normalize_hits({"hits": ["d1"]})
    assert str(caught.value).endswith(
        'as {"documents": [...]} (Haystack) and, from a RAG pipeline, '
        'as {"answer": ..., "contexts": [...]}'
    )
