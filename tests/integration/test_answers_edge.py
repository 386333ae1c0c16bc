"""Pipelines, framework objects and the judge's caches as a new user meets them: odd but
plausible return values, damaged cache entries, and the messages that have to name the fix.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from harness import Suite
from judge_fixtures import JUDGE_MODEL
from judge_server import JudgeServer

GOLDEN = [
    {
        "id": "fr",
        "query": "What is the capital of France",
        "expected_ids": ["d1"],
        "reference_answer": "Paris is the capital of France.",
    },
    {
        "id": "de",
        "query": "What is the capital of Germany",
        "expected_ids": ["d2"],
        "reference_answer": "Berlin is the capital of Germany.",
    },
]
PIPELINE = """
ANSWERS = {
    "What is the capital of France": "Paris is the capital of France.",
    "What is the capital of Germany": "Berlin is the capital of Germany. It has an airport.",
}
CONTEXTS = {
    "What is the capital of France": [{"id": "d1", "text": "Paris is the capital of France."}],
    "What is the capital of Germany": [{"id": "d2", "text": "Berlin is the capital of Germany."}],
}


@pytest.fixture
def pipeline():
    def run(query):
        return {"answer": ANSWERS[query], "contexts": CONTEXTS[query]}

    return run
"""


def _judge_args(server: JudgeServer) -> list[str]:
    return [f"--ragcheck-judge-model={JUDGE_MODEL}", f"--ragcheck-judge-api-base={server.url}"]


@pytest.fixture(scope="module")
def litellm_preloaded() -> None:
    from pytest_ragcheck.judge.client import import_litellm

    import_litellm()


def _project(suite: Suite, marker: str, *, extra: str = PIPELINE) -> None:
    suite.make(
        f"""
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", {marker})
        def test_rag(ragcheck, pipeline):
            ragcheck(pipeline)
        """,
        cases=GOLDEN,
        extra=extra,
    )


# --------------------------------------------------------------------------- embedding cache


def _embedding_entries(suite: Suite) -> list[Path]:
    return sorted((suite.path / ".ragcheck" / "judge" / "embedding").rglob("*.json"))


@pytest.mark.usefixtures("litellm_preloaded")
def test_a_damaged_cached_embedding_is_fetched_again_not_a_lasting_error(
    suite: Suite, judge_server: JudgeServer
) -> None:
    _project(
        suite,
        'k=3, baseline=False, metrics=["answer_relevancy"], '
        'judge_embedding_model="openai/embed-test"',
    )
    args = _judge_args(judge_server)
    suite.run(*args).assert_outcomes(passed=1)
    entries = _embedding_entries(suite)
    assert entries
    for path in entries:  # a merge gone wrong, a hand edit: NaN is what json writes for nan
        entry = json.loads(path.read_text(encoding="utf-8"))
        entry["embedding"][0] = math.nan
        path.write_text(json.dumps(entry), encoding="utf-8")

    again = suite.run(*args)
    again.assert_outcomes(passed=1)
    Suite.assert_clean(again)
    for path in _embedding_entries(suite):
        vector = json.loads(path.read_text(encoding="utf-8"))["embedding"]
        assert vector
        assert all(math.isfinite(x) for x in vector)


# --------------------------------------------------------------------------- Haystack hint


def _haystack_rag_pipeline() -> object:
    """A retriever feeding a generator and an AnswerBuilder: no open 'documents' output."""
    from haystack import Document, Pipeline, component
    from haystack.components.builders import AnswerBuilder
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
    from haystack.document_stores.in_memory import InMemoryDocumentStore

    store = InMemoryDocumentStore()
    store.write_documents(
        [
            Document(id="d1", content="Paris is the capital of France."),
            Document(id="d2", content="Berlin is the capital of Germany."),
        ]
    )

    def run(self: object, query: str, documents: list[Document]) -> dict[str, list[str]]:
        return {"replies": [documents[0].content or ""]}

    # Haystack reads the sockets' types from the annotations, which this module's
    # ``from __future__ import annotations`` turns into strings
    run.__annotations__ = {"query": str, "documents": list[Document], "return": dict}
    echo = component(type("Echo", (), {"run": component.output_types(replies=list[str])(run)}))

    pipe = Pipeline()
    pipe.add_component("retriever", InMemoryBM25Retriever(store))
    pipe.add_component("llm", echo())
    pipe.add_component("answers", AnswerBuilder())
    pipe.connect("retriever.documents", "llm.documents")
    pipe.connect("llm.replies", "answers.replies")
    pipe.connect("retriever.documents", "answers.documents")
    return pipe


def test_the_function_suggested_for_a_haystack_rag_pipeline_runs() -> None:
    from pytest_ragcheck import evaluate
    from pytest_ragcheck.common.errors import RetrieverError

    pipe = _haystack_rag_pipeline()
    with pytest.raises(RetrieverError) as info:
        evaluate(pipe, GOLDEN, k=3)
    message = str(info.value)
    assert "found none" in message
    assert "'answer': <the generated text>" in message  # it generates answers
    suggested = message.split("e.g. ", 1)[1].split(" (to gate", 1)[0]
    assert suggested == (
        'ragcheck(lambda query: pipe.run({"retriever": {"query": query, "top_k": 3}, '
        '"llm": {"query": query}, "answers": {"query": query}}, '
        'include_outputs_from={"retriever"})["retriever"]["documents"])'
    )
    # what the user pastes works: every mandatory query input filled, the documents returned
    retriever = eval(suggested.removeprefix("ragcheck(")[:-1], {"pipe": pipe})
    result = evaluate(retriever, GOLDEN, k=3)
    assert result["mrr@3"] == 1.0


# --------------------------------------------------------------------------- pipeline shapes

_RETURNS = """
@pytest.fixture
def pipeline():
    def run(query):
        return {returned}

    return run
"""


@pytest.mark.parametrize(
    ("returned", "expected"),
    [
        pytest.param(
            '{"answer": "Paris.", "contexts": "Paris is the capital of France."}',
            "TypeError: the pipeline's contexts ('contexts') must be a list of hits, got str: "
            "'Paris is the capital of France.'; a string in that list is a document id: "
            "return each passage as {'id': ..., 'text': ...} or as a document object",
            id="joined-text",
        ),
        pytest.param(
            '{"response": "Paris.", "source_documents": None}',
            "TypeError: the pipeline's contexts ('source_documents') are None; return a list "
            "of hits (an empty list when nothing was retrieved)",
            id="none",
        ),
        pytest.param(
            '{"input": query, "answer": "Paris.", "context": [{"id": "d1", "text": "Paris."}]}',
            "the pipeline returned an answer without contexts, but mrr@3 need them: add a "
            "'contexts' key (or documents, source_documents, source_nodes, retrieved_contexts) "
            "holding the retrieved hits (LangChain's create_retrieval_chain returns them under "
            "'context': return {'answer': out['answer'], 'contexts': out['context']}), or ask "
            "only for answer metrics",
            id="langchain-context",
        ),
        pytest.param(
            '{"answer": "Paris.", "sources": ["d1"]}',
            "the pipeline returned an answer without contexts, but mrr@3 need them: add a "
            "'contexts' key (or documents, source_documents, source_nodes, retrieved_contexts) "
            "holding the retrieved hits (the dict's keys besides the answer: 'sources'), or ask "
            "only for answer metrics",
            id="other-key",
        ),
    ],
)
def test_pipeline_contexts_that_cannot_be_read_are_named_by_their_key(
    suite: Suite, returned: str, expected: str
) -> None:
    _project(
        suite,
        'k=3, baseline=False, metrics=["mrr", "token_f1"]',
        extra=_RETURNS.format(returned=returned),
    )
    result = suite.run()
    result.assert_outcomes(failed=1)
    Suite.assert_clean(result)
    text = Suite.text(result)
    assert expected in text
    assert "the retriever returned" not in text  # it is the pipeline's contexts, not hits


#: A ``pipeline`` fixture: a real LlamaIndex query engine (mock LLM and embedding) over two
#: nodes, built with ``options`` and returned with ``attribute`` (e.g. ``.query``).
_QUERY_ENGINE = """
    @pytest.fixture
    def pipeline():
        from llama_index.core import Settings, VectorStoreIndex
        from llama_index.core.embeddings import MockEmbedding
        from llama_index.core.llms import MockLLM
        from llama_index.core.schema import TextNode

        Settings.llm = MockLLM(max_tokens=4)
        Settings.embed_model = MockEmbedding(embed_dim=8)
        nodes = [TextNode(id_="d1", text="Paris."), TextNode(id_="d2", text="Berlin.")]
        return VectorStoreIndex(nodes).as_query_engine(similarity_top_k=2{options}){attribute}
    """


def test_a_llamaindex_query_engine_passed_whole_is_told_to_pass_its_query(suite: Suite) -> None:
    engine = _QUERY_ENGINE.format(options="", attribute="")
    _project(suite, 'k=3, baseline=False, metrics=["mrr", "token_f1"]', extra=engine)
    result = suite.run("-W", "ignore::DeprecationWarning")
    result.assert_outcomes(failed=1)
    Suite.assert_clean(result)
    assert "; to test a LlamaIndex query engine, pass its .query" in Suite.text(result)

    suite.test(
        """
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=3, baseline=False, metrics=["mrr", "token_f1"])
        def test_rag(ragcheck, pipeline):
            result = ragcheck(pipeline.query)
            assert all(case.answer is not None for case in result.cases)
        """
    )
    suite.run("-W", "ignore::DeprecationWarning").assert_outcomes(passed=1)


# --------------------------------------------------------------------------- batches


_STORE = """
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore


class Numbers:
    \"\"\"Not LangChain: a batch method with its own k.\"\"\"

    def batch(self, queries, k=2):
        return [[f"n{i}" for i in range(k)] for _ in queries]


@pytest.fixture
def store_retriever():
    store = InMemoryVectorStore(embedding=DeterministicFakeEmbedding(size=8))
    store.add_documents([Document(page_content=f"text {i}", id=f"n{i}") for i in range(30)])
    return store.as_retriever()  # 4 hits per call unless told otherwise
"""


@pytest.mark.parametrize("method", ["", ".batch", ".abatch"])
def test_a_bound_batch_method_gets_the_depth_like_its_object(suite: Suite, method: str) -> None:
    suite.make(
        f"""
        from conftest import Numbers
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=10, baseline=False, batch_size=2)
        def test_store(ragcheck, store_retriever):
            result = ragcheck(store_retriever{method})
            assert result.info["retrieval"]["max_hits"] == 10
            assert result.info["retrieval"]["retriever"].endswith("batch (batches)")


        @ragcheck("golden.jsonl", k=10, baseline=False, batch_size=2)
        def test_own_k(ragcheck):
            result = ragcheck(Numbers(){method.replace(".abatch", ".batch")})
            assert result.info["retrieval"]["max_hits"] == 10
        """,
        cases=[{"id": f"q{i}", "query": f"text {i}", "expected_ids": ["n1"]} for i in range(3)],
        extra=_STORE,
    )
    result = suite.run()
    result.assert_outcomes(passed=2)


def test_a_llamaindex_streaming_response_says_how_to_get_the_answer(suite: Suite) -> None:
    engine = _QUERY_ENGINE.format(options=", streaming=True", attribute=".query")
    _project(suite, 'k=3, baseline=False, metrics=["mrr", "token_f1"]', extra=engine)
    result = suite.run("-W", "ignore::DeprecationWarning")
    result.assert_outcomes(failed=1)
    Suite.assert_clean(result)
    assert (
        "TypeError: the pipeline returned a streaming response (StreamingResponse), whose answer "
        "exists only once the stream is consumed: create the query engine without "
        "streaming=True, or return response.get_response()"
    ) in Suite.text(result)

    suite.test(
        """
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=3, baseline=False, metrics=["mrr", "token_f1"])
        def test_rag(ragcheck, pipeline):
            result = ragcheck(lambda query: pipeline(query).get_response())
            assert all(case.answer is not None for case in result.cases)
        """
    )
    suite.run("-W", "ignore::DeprecationWarning").assert_outcomes(passed=1)


# --------------------------------------------------------------------------- blank texts

_EMPTY_ANSWER = PIPELINE.replace('"Berlin is the capital of Germany. It has an airport."', '""')


@pytest.mark.usefixtures("litellm_preloaded")
def test_blank_texts_are_never_sent_to_the_embedding_model(
    suite: Suite, judge_server: JudgeServer
) -> None:
    # An empty answer (a refusal) and a blank question from the judge: providers reject an
    # empty input, and with it the whole batch of every other case's texts.
    _project(suite, "", extra=_EMPTY_ANSWER)
    suite.test(
        """
        import pytest

        from pytest_ragcheck import ragcheck
        # the first judge request is about case fr's questions (judge_concurrency=1)
        @ragcheck("golden.jsonl", k=3, baseline=False,
                  metrics=["answer_relevancy", "answer_correctness"],
                  judge_embedding_model="openai/embed-test", judge_concurrency=1)
        def test_rag(ragcheck, pipeline):
            result = ragcheck(pipeline)
            by_id = {case.id: case.values for case in result.cases}
            assert by_id["de"]["answer_correctness"] == 0.0  # nothing said, nothing right
            assert by_id["de"]["answer_relevancy"] == 0.0  # no question to compare
            assert by_id["fr"]["answer_correctness"] == pytest.approx(1.0)
            # one of the two generated questions is blank: cosine 0 for it
            assert 0.0 < by_id["fr"]["answer_relevancy"] < 0.6
        """
    )
    judge_server.inject(
        "answer",
        content={"questions": [" ", "What is the capital of France?"], "noncommittal": False},
    )
    result = suite.run(*_judge_args(judge_server), "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    Suite.assert_clean(result)
    inputs = [
        text
        for request in judge_server.requests
        if request.path.rstrip("/").endswith("/embeddings")
        for text in request.body["input"]
    ]
    assert inputs
    assert all(text.strip() for text in inputs)


def test_passages_given_as_plain_strings_are_named_as_ids(suite: Suite) -> None:
    # RAGAS's retrieved_contexts are plain strings; here a string hit is a document id
    ragas = """
    @pytest.fixture
    def pipeline():
        def run(query):
            return {"response": "Paris.", "retrieved_contexts": ["Paris is the capital."]}

        return run
    """
    _project(suite, 'k=3, baseline=False, metrics=["faithfulness"], judge_model="m"', extra=ragas)
    result = suite.run("--ragcheck-judge-offline")
    result.assert_outcomes(failed=1)
    Suite.assert_clean(result)
    assert "a plain string hit is a document id, not its text" in Suite.text(result)


def test_offline_with_the_cache_off_says_that_recording_cannot_help(suite: Suite) -> None:
    _project(suite, 'k=3, baseline=False, metrics=["faithfulness"], judge_model="m"')
    result = suite.run("--ragcheck-judge-offline", "--ragcheck-judge-cache=off")
    result.assert_outcomes(failed=1)
    Suite.assert_clean(result)
    text = Suite.text(result)
    assert "The verdict cache is off (--ragcheck-judge-cache=off), so offline mode has" in text
    assert "and commit the verdict cache" not in text


@pytest.mark.usefixtures("litellm_preloaded")
def test_offline_names_a_damaged_entry_instead_of_calling_it_absent(
    suite: Suite, judge_server: JudgeServer
) -> None:
    _project(suite, 'k=3, baseline=False, metrics=["faithfulness"]')
    args = _judge_args(judge_server)
    suite.run(*args).assert_outcomes(passed=1)
    (entry, *_) = sorted((suite.path / ".ragcheck" / "judge").rglob("*.json"))
    entry.write_text(entry.read_text(encoding="utf-8")[:40], encoding="utf-8")  # cut off

    result = suite.run(*args, "--ragcheck-judge-offline")
    result.assert_outcomes(failed=1)
    Suite.assert_clean(result)
    text = " ".join(Suite.text(result).split())
    assert "1 judge verdict(s) are not in" in text
    assert (
        f"Damaged entries read as missing: 1 (the first: corrupt cache entry {entry.parent.parent.name}/"
        in text
    )


@pytest.mark.parametrize("kind", ["pydantic", "dataclass"])
def test_an_object_with_answer_and_contexts_attributes_is_told_to_return_a_dict(
    suite: Suite, kind: str
) -> None:
    model = f"""
    import dataclasses

    import pydantic


    class Model(pydantic.BaseModel):
        answer: str
        contexts: list


    @dataclasses.dataclass
    class Data:
        answer: str
        contexts: list


    @pytest.fixture
    def pipeline():
        def run(query):
            made = {{"pydantic": Model, "dataclass": Data}}["{kind}"]
            return made(answer="Paris.", contexts=[{{"id": "d1", "text": "Paris."}}])

        return run
    """
    _project(suite, 'k=3, baseline=False, metrics=["mrr", "token_f1"]', extra=model)
    result = suite.run()
    result.assert_outcomes(failed=1)
    Suite.assert_clean(result)
    name = "Model" if kind == "pydantic" else "Data"
    assert (
        f"TypeError: the pipeline returned a {name} with .answer and .contexts; return a dict "
        "instead: {'answer': out.answer, 'contexts': out.contexts}"
    ) in Suite.text(result)


def test_haystack_answers_say_which_dict_to_return() -> None:
    from pytest_ragcheck import evaluate

    pipe: Any = _haystack_rag_pipeline()

    def run(query: str) -> dict[str, Any]:
        data = {name: {"query": query} for name in ("retriever", "llm", "answers")}
        return pipe.run(data)  # type: ignore[no-any-return]

    result = evaluate(run, GOLDEN, k=3, metrics=["mrr", "token_f1"])
    (error,) = {case.error for case in result.cases}
    assert error == (
        "TypeError: the pipeline returned Haystack answers (GeneratedAnswer); return "
        "{'answer': out['answers']['answers'][0].data, "
        "'documents': out['answers']['answers'][0].documents}"
    )

    def fixed(query: str) -> dict[str, Any]:
        out = run(query)
        return {
            "answer": out["answers"]["answers"][0].data,
            "documents": out["answers"]["answers"][0].documents,
        }

    result = evaluate(fixed, GOLDEN, k=3, metrics=["mrr", "token_f1"])
    assert result["mrr@3"] == 1.0
    assert result["token_f1"] == 1.0  # the fake generator answers with the top passage


@pytest.mark.usefixtures("litellm_preloaded")
def test_a_budget_spent_before_the_embeddings_names_the_users_limit(
    suite: Suite, judge_server: JudgeServer
) -> None:
    _project(
        suite,
        'k=3, baseline=False, metrics=["answer_relevancy"], judge_max_calls=2, '
        'judge_embedding_model="openai/embed-test"',
    )
    result = suite.run(*_judge_args(judge_server))
    result.assert_outcomes(failed=1)
    Suite.assert_clean(result)
    text = Suite.text(result)
    assert "judge budget exhausted (judge_max_calls=2)" in text
    assert "judge_max_calls=0" not in text
    assert judge_server.count == 2


_QUERY_TAG = """
@pytest.fixture
def pipeline():
    text = "Wrap the search terms in the <query> element of the request"

    def run(query):
        return {"answer": text + ".", "contexts": [{"id": "d1", "text": text + "."}]}

    return run
"""


@pytest.mark.usefixtures("litellm_preloaded")
def test_a_quote_of_a_passage_that_holds_a_prompt_tag_is_found(
    suite: Suite, judge_server: JudgeServer
) -> None:
    # The passage is shown to the judge with "<query" made inert ("&lt;query"), which is the
    # form the judge quotes back: the quote is still the passage's.
    _project(suite, 'k=3, baseline=False, metrics=["faithfulness"]', extra=_QUERY_TAG)
    suite.test(
        """
        from pytest_ragcheck import ragcheck
        @ragcheck("golden.jsonl", k=3, baseline=False, metrics=["faithfulness"])
        def test_rag(ragcheck, pipeline):
            result = ragcheck(pipeline)
            (claim,) = result.cases[0].judge["faithfulness@3"]
            assert "&lt;query>" in claim["quote"]
            assert claim["quote_found"]
            assert result["faithfulness@3"] == 1.0
        """
    )
    result = suite.run(*_judge_args(judge_server))
    result.assert_outcomes(passed=1)
    Suite.assert_clean(result)


# --------------------------------------------------------------------------- judge trust

_WOBBLY = """
@pytest.fixture
def pipeline():
    def run(query):  # every sample pair of the judge disagrees on these
        return [{"id": "d1", "text": "Paris [g=3] [wobble]"}, {"id": "d9", "text": "x [wobble]"}]

    return run
"""


@pytest.mark.usefixtures("litellm_preloaded")
def test_min_judge_kappa_fails_when_abstention_leaves_no_labelled_verdict(
    suite: Suite, judge_server: JudgeServer
) -> None:
    _project(
        suite,
        'k=2, baseline=False, metrics=["llm_precision"], judge_samples=2, '
        'judge_disagreement="abstain", min_judge_kappa=0.5',
        extra=_WOBBLY,
    )
    result = suite.run(*_judge_args(judge_server))
    result.assert_outcomes(failed=1)
    Suite.assert_clean(result)
    assert (
        "min_judge_kappa=0.5 cannot be checked: judge_kappa is undefined: the judge has no "
        "verdict on a labelled document (none was retrieved, the judge failed on each, or "
        "judge_disagreement='abstain' left each out)"
    ) in " ".join(Suite.text(result).split())


# --------------------------------------------------------------------------- ids not matched

_OTHER_IDS = PIPELINE.replace('"id": "d1"', '"id": "chunk-7"').replace(
    '"id": "d2"', '"id": "chunk-9"'
)


def test_unmatched_ids_fail_only_a_test_whose_metrics_read_ids(suite: Suite) -> None:
    """Contexts whose ids match no golden id: fatal for rank metrics (all 0), not for
    answer metrics, which read the answer (the check cried wolf on a passing answer test)."""
    _project(suite, 'k=3, baseline=False, metrics=["token_f1"], min_token_f1=0.8', extra=_OTHER_IDS)
    result = suite.run()
    result.assert_outcomes(passed=1)
    text = suite.text(result)
    assert "No retrieved id matches" not in text
    assert "token_f1" in text

    _project(suite, 'k=3, baseline=False, metrics=["token_f1", "mrr"]', extra=_OTHER_IDS)
    result = suite.run()
    result.assert_outcomes(failed=1)
    assert "No retrieved id matches an id of the golden set (2 cases with hits)" in suite.text(
        result
    )
