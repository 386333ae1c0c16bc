"""Return values a new user is likely to try, read by the hit reader and the pipeline
splitter: each one an error that says what to return instead, never a silent 0."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator, Mapping

import pytest

from pytest_ragcheck.run.hits import normalize_hits
from pytest_ragcheck.run.output import split_output
from pytest_ragcheck.run.runner import RetrievalOutcome, RunOptions, run_retriever


def test_data_frame_is_an_error_not_its_column_names() -> None:
    """Iterating a data frame gives its column names: read as ids, every case scored 0."""
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"id": ["d1", "d3"], "score": [0.9, 0.5]})
    with pytest.raises(
        TypeError, match=r"returned a pandas\.DataFrame, which iterates over its column names"
    ):
        normalize_hits(frame)
    with pytest.raises(TypeError, match=r"df\.to_dict\('records'\)"):
        normalize_hits(frame)
    hits, _ = normalize_hits(frame.to_dict("records"))  # what the message says to return
    assert [(h.id, h.score) for h in hits] == [("d1", 0.9), ("d3", 0.5)]


def test_a_series_of_ids_is_still_read() -> None:
    pandas = pytest.importorskip("pandas")
    hits, _ = normalize_hits(pandas.Series(["d1", "d3"]))
    assert [h.id for h in hits] == ["d1", "d3"]


def test_dict_of_scores_says_to_rank_the_pairs() -> None:
    with pytest.raises(TypeError, match=r"a dict of id -> score .*sorted\(scores\.items\(\)"):
        normalize_hits({"d1": 0.9, "d3": 0.5})


def test_dict_of_other_values_keeps_the_general_message() -> None:
    with pytest.raises(TypeError, match=r"a dict with keys \['d1'\], not a list of hits"):
        normalize_hits({"d1": "text"})


class _Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no str")

    __repr__ = __str__


def test_answer_with_a_broken_str_still_says_it_must_be_a_str() -> None:
    with pytest.raises(TypeError, match=r"answer \('answer'\) must be a str, got _Unprintable"):
        split_output({"answer": _Unprintable(), "contexts": ["d1"]})


class _Raising:
    def __getattr__(self, name: str) -> object:
        raise RuntimeError(f"no .{name}")


def test_hit_whose_attributes_raise_is_named_by_position() -> None:
    with pytest.raises(TypeError, match=r"^hit #3: reading .*_Raising raised RuntimeError: no \."):
        normalize_hits(["d1", ("d2", 0.5), _Raising()])


class _ObjectId:
    """What MongoDB returns as ``_id``: neither a str nor an int."""

    def __repr__(self) -> str:
        return "ObjectId('65a1')"


@pytest.mark.parametrize(
    ("hit", "said"),
    [
        ({"_id": _ObjectId(), "text": "x"}, "its '_id' is test_explore_runner_unit._ObjectId"),
        ({"id": 1.0}, "its 'id' is float 1.0, not a non-empty str or int id"),
        ({"id": ""}, "its 'id' is str '', not a non-empty str or int id"),
    ],
)
def test_id_of_the_wrong_type_is_named_not_called_missing(hit: object, said: str) -> None:
    with pytest.raises(TypeError) as info:
        normalize_hits([hit])
    assert said in str(info.value)
    assert "no id:" not in str(info.value)


def test_pipeline_tuple_of_answer_and_contexts_says_to_return_a_dict() -> None:
    """Read as hits, the answer was hit #1 (a document id) and the message blamed hit #2."""
    with pytest.raises(TypeError, match=r"returned a tuple \(answer, contexts\); return a dict"):
        split_output(("Paris is the capital.", ["d1"]))


@pytest.mark.parametrize("hits", [("d1", ["d2", 0.5]), ("d1", ("d2", 0.5)), ("d1", "d2")])
def test_tuples_of_hits_are_left_to_the_hit_reader(hits: tuple[object, ...]) -> None:
    assert split_output(hits) == (None, hits)


def test_pipeline_contexts_as_a_dict_name_the_key() -> None:
    with pytest.raises(TypeError, match=r"the pipeline's contexts \('contexts'\) must be a list"):
        split_output({"answer": "x", "contexts": {"d1": 0.9}})
    answer, hits = split_output({"answer": "x", "contexts": {"documents": ["d1"]}})
    assert answer is not None
    assert hits == {"documents": ["d1"]}  # Haystack's, read as hits


def test_numpy_str_ids_become_plain_str() -> None:
    """Else messages show ``np.str_('d1')`` where a golden set's ids show ``'d1'``."""
    numpy = pytest.importorskip("numpy")
    hits, _ = normalize_hits(numpy.array(["d1", "d2"]))
    assert [type(h.id) for h in hits] == [str, str]
    hits, _ = normalize_hits([{"id": numpy.str_("d3")}])
    assert type(hits[0].id) is str
    assert repr(hits[0].id) == "'d3'"


class _LazyId:
    @property
    def id(self) -> str:
        raise RuntimeError("lazy id failed")


class _GoneMapping(Mapping[str, object]):
    def __getitem__(self, key: str) -> object:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("backend gone")

    def __len__(self) -> int:
        return 1

    def __contains__(self, key: object) -> bool:
        raise RuntimeError("backend gone")


@pytest.mark.parametrize(
    ("returned", "error", "raised_in"),
    [
        (["d1", _LazyId()], "TypeError: hit #2: reading ", "in id"),
        (_GoneMapping(), "RuntimeError: backend gone", "in __contains__"),
    ],
)
def test_traceback_of_a_return_value_that_raises_starts_at_the_users_code(
    returned: object, error: str, raised_in: str
) -> None:
    options = RunOptions(k=2, concurrency=1, timeout=None)
    (outcome,) = run_retriever(lambda query: returned, ["alpha"], options)
    assert outcome.error is not None
    assert outcome.error.startswith(error)
    assert outcome.traceback is not None
    first_frame = outcome.traceback.splitlines()[1]
    assert __file__ in first_frame
    assert raised_in in first_frame


def test_chroma_query_result_says_how_to_read_it() -> None:
    """Read as Haystack's ``{"documents": [...]}``, its per-query lists of texts were hits."""
    result = {
        "ids": [["d1", "d2"]],
        "documents": [["first text", "second text"]],
        "distances": [[0.1, 0.2]],
        "metadatas": [[{}, {}]],
    }
    with pytest.raises(TypeError, match=r"a Chroma query result .* zip\(out\['ids'\]\[0\]"):
        normalize_hits(result)
    assert normalize_hits({"documents": ["d1"]})[0][0].id == "d1"  # Haystack's still read


def test_list_of_hit_lists_is_named() -> None:
    """Milvus (and others) answer a list of query vectors with one hit list per query: the
    whole answer for one query is then ``[[hit, ...]]``."""
    per_query = [[{"id": "a", "distance": 0.1}, {"id": "b", "distance": 0.2}, {"id": "c"}]]
    with pytest.raises(TypeError, match=r"got length 3; a list of hit lists\? return one query"):
        normalize_hits(per_query)
    with pytest.raises(TypeError, match=r"got str; a list of hit lists\?"):
        normalize_hits([["d1", "d2"]])
    with pytest.raises(TypeError, match=r"got str\)"):  # a tuple is a pair, not a hit list
        normalize_hits([("d1", "x")])


@pytest.mark.parametrize(
    ("batch", "is_async"),
    [(False, False), (True, False), (False, True), (True, True)],
    ids=["per-query", "batches", "async", "async-batches"],
)
def test_endless_generator_stops_being_read_after_its_timeout(batch: bool, is_async: bool) -> None:
    """A generator that never ends (a paging bug) was read on its abandoned thread for the rest
    of the session, filling memory at hundreds of MB a second (returned by an async retriever,
    it blocked the event loop for ever)."""
    from pytest_ragcheck.run.batches import run_batches

    produced = itertools.count()

    def endless(query: object) -> Iterator[object]:
        for n in produced:
            yield f"x{n}" if not batch else [f"x{n}"]

    async def async_endless(query: object) -> Iterator[object]:
        return endless(query)

    retriever = async_endless if is_async else endless
    options = RunOptions(k=2, concurrency=1, timeout=0.2)
    if batch:
        outcomes = run_batches(retriever, ["alpha"], options, 4).outcomes
    else:
        outcomes = run_retriever(retriever, ["alpha"], options)
    assert outcomes[0].error is not None
    assert outcomes[0].error.startswith("timed out after 0.2 s")
    time.sleep(0.3)  # the abandoned thread checks the deadline every few thousand hits
    before = next(produced)
    time.sleep(0.3)
    assert next(produced) == before + 1  # nothing read in between


@pytest.mark.parametrize(
    ("flat", "first"),
    [(["d1", "d2"], "'d1'"), ([("d1", 0.5), ("d2", 0.4)], "('d1', 0.5)"), ([1, 2, 3], "1")],
)
def test_batch_retriever_returning_one_flat_hit_list_is_named(
    flat: list[object], first: str
) -> None:
    """With as many hits as queries, each query got one hit, read as "a str, not a list of
    hits; wrap a single id in a list": the batch shape was what was wrong."""
    from pytest_ragcheck.run.batches import run_batches

    options = RunOptions(k=2, concurrency=1, timeout=None)
    outcomes = run_batches(lambda queries: flat, ["alpha", "beta"], options, 2).outcomes
    expected = (
        f"the batch retriever returned {len(flat)} hits, not hit lists (the first is {first}) "
        "for 2 queries (batch 1 of 1, cases 1-2)"
    )
    assert [o.error for o in outcomes] == [outcomes[0].error] * 2
    assert outcomes[0].error is not None
    assert outcomes[0].error.startswith(expected)


class _NotesRaise(Exception):
    @property
    def __notes__(self) -> list[str]:
        raise RuntimeError("notes broke")


def test_error_whose_notes_raise_does_not_hang_the_run() -> None:
    """Formatting its traceback raised on the worker thread, which ended without recording the
    case: with ``timeout=None`` the run waited for it for ever."""

    def raises(query: str) -> list[str]:
        raise _NotesRaise("index offline")

    found: list[RetrievalOutcome] = []
    options = RunOptions(k=2, concurrency=2, timeout=None)
    runner = threading.Thread(
        target=lambda: found.extend(run_retriever(raises, ["a", "b", "c"], options)), daemon=True
    )
    runner.start()
    runner.join(10)
    assert not runner.is_alive(), "the run hung"
    assert [o.error for o in found] == [f"{__name__}._NotesRaise: index offline"] * 3
