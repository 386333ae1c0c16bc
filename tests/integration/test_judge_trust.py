"""A judge you can trust, through real pytest sessions, real litellm and the local judge server.

The server answers from markers in the chunk texts (``tests/judge_server.py``): ``[g=N]`` is
the grade it gives, ``[flip]`` makes it get the chunk wrong, ``[wobble]`` makes its repeated
samples disagree and ``[echo]`` makes its reason repeat the API key it was sent. The human
labels live in the golden set, so every figure below is known before the run.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

import pytest
from harness import SERIAL_ONLY, Suite
from judge_fixtures import JUDGE_MODEL
from judge_server import JudgeServer
from kappa_reference import fleiss_cohen_everitt, quadratic_weights

from pytest_ragcheck.common.redact import MARKER
from pytest_ragcheck.judge.agreement import Z95

KEY = "sk-ragcheck-echo-0123456789abcdefXYZ"

#: (doc id, human grade or None for unlabelled, the grade the judge gives, judge gets it wrong)
Doc = tuple[str, int | None, int, bool]


def _project(
    suite: Suite,
    docs: dict[str, list[Doc]],
    marker: str,
    *,
    source: str | None = None,
    extra_cases: list[dict[str, Any]] | None = None,
) -> None:
    """One case per query of ``docs`` (graded relevance from the human grades), the ranking
    as given, and a test module with one ``@ragcheck(marker)`` test (or ``source``)."""
    cases = [
        {
            "id": f"q{i}",
            "query": query,
            "relevance": {d: label for d, label, _, _ in ranked if label is not None},
        }
        for i, (query, ranked) in enumerate(docs.items(), 1)
    ]
    rankings: dict[str, list[dict[str, str]]] = {
        query: [
            {"id": d, "text": f"{d} [g={grade}]" + (" [flip]" if wrong else "")}
            for d, _, grade, wrong in ranked
        ]
        for query, ranked in docs.items()
    }
    for case in extra_cases or []:
        rankings[case["query"]] = case.pop("hits")
        cases.append(case)
    suite.make(
        source
        or (
            "from pytest_ragcheck import ragcheck\n\n"
            f"@ragcheck({marker})\n"
            "def test_judge(ragcheck, retriever):\n"
            "    ragcheck(retriever)\n"
        ),
        cases=cases,
        rankings=rankings,
    )


def _args(server: JudgeServer, *more: str) -> list[str]:
    return [
        f"--ragcheck-judge-model={JUDGE_MODEL}",
        f"--ragcheck-judge-api-base={server.url}",
        *more,
    ]


@pytest.fixture(scope="module")
def litellm_preloaded() -> None:
    """Import litellm once here: in-process runs would otherwise import it anew each time."""
    from pytest_ragcheck.judge.client import import_litellm

    import_litellm()


@pytest.fixture(autouse=True)
def _no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


pytestmark = pytest.mark.usefixtures("litellm_preloaded")

#: 12 labelled documents (6 relevant, 6 not) and 2 unlabelled ones; the judge follows the
#: marker grade, which disagrees with the people on a3, b2 (relevant for them, grade 0 from
#: the judge) and b5 (not relevant for them, grade 2).
AGREEMENT: dict[str, list[Doc]] = {
    "what is alpha": [
        ("a1", 3, 3, False),
        ("a2", 0, 0, False),
        ("a3", 2, 0, False),
        ("u1", None, 2, False),
        ("a4", 1, 1, False),
        ("a5", 0, 0, False),
        ("a6", 0, 0, False),
    ],
    "what is beta": [
        ("b1", 2, 3, False),
        ("b2", 1, 0, False),
        ("b3", 0, 0, False),
        ("u2", None, 0, False),
        ("b4", 3, 3, False),
        ("b5", 0, 2, False),
        ("b6", 0, 0, False),
    ],
}


@SERIAL_ONLY
def test_kappa_interval_and_confusion_matrix_equal_an_independent_computation(
    suite: Suite, run_mode: list[str], judge_server: JudgeServer
) -> None:
    from sklearn.metrics import cohen_kappa_score  # here: ~2 s to import, for this test only

    _project(
        suite,
        AGREEMENT,
        '"golden.jsonl", k=7, metrics=["llm_relevancy", "llm_ndcg"], baseline=False',
    )
    result = suite.run(
        *run_mode, *_args(judge_server), "--ragcheck-report=r.json", "--junitxml=j.xml"
    )
    result.assert_outcomes(passed=1)
    Suite.assert_clean(result)
    labelled = [d for ranked in AGREEMENT.values() for d in ranked if d[1] is not None]
    human = [int(label >= 1) for _, label, _, _ in labelled]  # type: ignore[operator]
    judge = [int(grade >= 1) for _, _, grade, _ in labelled]
    # people relevant: a1 a3 a4 b1 b2 b4 -> judge yes, no, yes, yes, no, yes; not: only b5 yes
    confusion = {"tp": 4, "fp": 1, "fn": 2, "tn": 5}
    kappa, se = fleiss_cohen_everitt([[5, 1], [2, 4]])
    assert kappa == pytest.approx(cohen_kappa_score(human, judge), abs=1e-12)

    (test,) = suite.read_json("r.json")["tests"]
    metrics = {m["name"]: m for m in test["metrics"]}
    assert metrics["judge_kappa"]["value"] == pytest.approx(kappa, abs=1e-12)
    assert metrics["judge_kappa"]["kind"] == "judge"
    agreement = test["judge"]["agreement"]
    for question in agreement["questions"]:  # relevance verdicts and grades >= 1 agree here
        assert question["pairs"] == 12
        assert question["confusion"] == confusion
        assert question["base_rate"] == pytest.approx(0.5)
        assert question["kappa"] == pytest.approx(kappa, abs=1e-12)
        assert question["ci"] == pytest.approx([kappa - Z95 * se, kappa + Z95 * se], abs=1e-12)
    weighted = agreement["questions"][1]["weighted"]
    grades = [grade for _, _, grade, _ in labelled]
    human_grades = [label for _, label, _, _ in labelled]
    assert weighted["kappa"] == pytest.approx(
        cohen_kappa_score(human_grades, grades, labels=[0, 1, 2, 3], weights="quadratic"),
        abs=1e-12,
    )
    matrix = [[0] * 4 for _ in range(4)]
    for h, g in zip(human_grades, grades, strict=True):
        matrix[h][g] += 1  # type: ignore[index]
    assert weighted["se"] == pytest.approx(
        fleiss_cohen_everitt(matrix, quadratic_weights(4))[1], abs=1e-12
    )
    # judged@7: q1 and q2 each have 6 labelled documents among their 7
    assert metrics["judged@7"]["value"] == pytest.approx(6 / 7)
    assert "judged@7" not in test["config"]["metrics"]  # shown without being asked for
    props = suite.junit_properties("j.xml")["test_judge"]
    assert float(props["ragcheck.judge_kappa"]) == pytest.approx(kappa, abs=1e-6)
    text = Suite.text(result)
    assert "judge_kappa" in text
    assert "12 pairs" in text
    assert "TP 4 FP 1 FN 2 TN 5" in text


#: 10 labelled documents, 5 relevant; the judge gets 2 of each class wrong: 40 % flipped.
FLIPPED: dict[str, list[Doc]] = {
    "what is gamma": [
        (f"g{i}", grade, grade, i in (1, 2, 6, 7))
        for i, grade in enumerate([2, 3, 1, 0, 0, 2, 0, 0, 3, 0])
    ]
}


# Not about processes: pytest-xdist is covered by
# test_proposals_hold_exactly_the_unlabelled_judged_documents and
# test_judge_plugin.py::test_record_then_replay_from_the_cache_without_litellm[xdist].
@SERIAL_ONLY
def test_a_judge_that_flips_40_percent_fails_min_judge_kappa(
    suite: Suite, run_mode: list[str], judge_server: JudgeServer
) -> None:
    _project(
        suite,
        FLIPPED,
        '"golden.jsonl", k=10, metrics=["ndcg", "llm_relevancy"], baseline=False, '
        "min_ndcg=0.8, min_judge_kappa=0.6",
    )
    result = suite.run(*run_mode, *_args(judge_server))
    result.assert_outcomes(failed=1)
    Suite.assert_clean(result)
    text = Suite.text(result)
    # p_o = 6/10, p_e = 1/2: κ = 0.2, while the retriever passes its floor (nDCG@10 0.841)
    violated = text.split("Thresholds violated:\n", 1)[1]
    assert violated.startswith(
        "  judge_kappa: 0.200 < 0.600 (floor)\n"
        "    95% CI [-0.407, 0.807], 10 pairs, base rate 50%, TP 3 FP 2 FN 2 TN 3\n"
        "    the judge, not the retriever, is the problem: its relevance verdicts disagree"
    )
    assert "ndcg@10: 0.841" not in text


WOBBLY: dict[str, list[Doc]] = {
    "what is delta": [
        ("d1", 2, 2, False),
        ("d2", 0, 0, False),
        ("d3", 1, 1, False),
        ("d4", 0, 2, False),
        ("d5", None, 3, False),
    ]
}


@SERIAL_ONLY
@pytest.mark.parametrize("disagreement", ["vote", "abstain"])
def test_abstain_leaves_out_exactly_the_items_whose_samples_disagree(
    suite: Suite, run_mode: list[str], judge_server: JudgeServer, disagreement: str
) -> None:
    docs = {"what is delta": list(WOBBLY["what is delta"])}
    _project(
        suite,
        docs,
        '"golden.jsonl", k=5, metrics=["llm_relevancy"], baseline=False, judge_samples=2, '
        f"judge_disagreement={disagreement!r}",
    )
    # d2 and d4 wobble: every second answer about them is wrong
    conftest = (suite.path / "conftest.py").read_text()
    for doc in ("d2 [g=0]", "d4 [g=2]"):
        conftest = conftest.replace(doc, f"{doc} [wobble]")
    (suite.path / "conftest.py").write_text(conftest)
    result = suite.run(*run_mode, *_args(judge_server), "--ragcheck-report=r.json")
    result.assert_outcomes(passed=1)
    (test,) = suite.read_json("r.json")["tests"]
    (case,) = test["cases"]
    entries = case["judge"]["llm_relevancy@5"]
    abstained = [e["rank"] for e in entries if e.get("abstained")]
    values = {m["name"]: m["value"] for m in test["metrics"]}
    assert values["judge_consistency"] == pytest.approx(3 / 5)
    assert test["judge"]["samples"]["items"] == 5
    text = Suite.text(result)
    if disagreement == "abstain":
        assert abstained == [2, 4]
        assert values["llm_relevancy@5"] == pytest.approx(3 / 3)  # d1, d3, d5: all yes
        assert "2 of 5 judged items left out because their 2 samples disagree" in text
    else:
        assert abstained == []
        # a 1-1 tie is "no": d1 yes, d2 no, d3 yes, d4 no, d5 yes
        assert values["llm_relevancy@5"] == pytest.approx(3 / 5)
        assert "left out" not in text


def test_proposals_hold_exactly_the_unlabelled_judged_documents(
    suite: Suite, run_mode: list[str], judge_server: JudgeServer
) -> None:
    source = """
    from pytest_ragcheck import ragcheck
    @ragcheck("golden.jsonl", k=7, metrics=["llm_relevancy"], baseline=False)
    def test_verdicts(ragcheck, retriever):
        ragcheck(retriever)

    @ragcheck("golden.jsonl", k=3, metrics=["llm_ndcg", "mrr"], baseline=False)
    def test_grades(ragcheck, retriever):
        ragcheck(retriever)
    """
    spans = {
        "id": "s1",
        "query": "text spans",
        "expected_texts": ["epsilon"],
        "hits": [{"id": "t1", "text": "epsilon [g=2]"}],
    }
    _project(suite, AGREEMENT, "", source=textwrap.dedent(source), extra_cases=[spans])
    golden = (suite.path / "golden.jsonl").read_bytes()
    out = suite.path / "out" / "proposals.jsonl"
    result = suite.run(*run_mode, *_args(judge_server), f"--ragcheck-propose-labels={out}")
    result.assert_outcomes(passed=2)
    Suite.assert_clean(result)
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    # u1 (rank 4 of q1) and u2 (rank 4 of q2) have no label; text-span cases have none at all.
    # test_grades (k=3) never sees u1/u2, so only their verdicts are proposed; t1 gets both.
    assert [(x["case_id"], x["doc_id"]) for x in lines] == [
        ("q1", "u1"),
        ("q2", "u2"),
        ("s1", "t1"),
    ]
    assert lines[0] == {
        "golden": "golden.jsonl",
        "case_id": "q1",
        "query": "what is alpha",
        "doc_id": "u1",
        "rank": 4,
        "text": "u1 [g=2]",
        "judge_model": JUDGE_MODEL,
        "verdict": "yes",
        "reason": "grade marker 2",
    }
    assert lines[1]["verdict"] == "no"
    assert "grade" not in lines[1]
    assert (lines[2]["verdict"], lines[2]["grade"]) == ("yes", 2)
    assert (suite.path / "golden.jsonl").read_bytes() == golden  # never edited
    assert (
        f"ragcheck label proposals: 3 unlabelled document(s) of 3 case(s) to review in {out}"
        in (Suite.text(result))
    )


# Not about processes: pytest-xdist is covered by
# test_proposals_hold_exactly_the_unlabelled_judged_documents and
# test_judge_plugin.py::test_record_then_replay_from_the_cache_without_litellm[xdist].
@SERIAL_ONLY
def test_an_echoed_key_appears_in_no_output(
    suite: Suite,
    run_mode: list[str],
    judge_server: JudgeServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = """
    from pytest_ragcheck import ragcheck
    @ragcheck("golden.jsonl", k=7, metrics=["llm_relevancy"], baseline=False)
    def test_first(ragcheck, retriever):
        ragcheck(retriever)

    @ragcheck("golden.jsonl", k=7, metrics=["llm_ndcg"], baseline=False)
    def test_second(ragcheck, retriever):
        ragcheck(retriever)
    """
    _project(suite, AGREEMENT, "", source=textwrap.dedent(source))
    conftest = (suite.path / "conftest.py").read_text().replace("u1 [g=2]", "u1 [g=2] [echo]")
    (suite.path / "conftest.py").write_text(conftest)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(suite.path / "step-summary.md"))
    # the gateway rejects the first request and repeats the key in its error text
    judge_server.inject("echo_key", 1)
    result = suite.run(
        *run_mode,
        *_args(judge_server),
        "--ragcheck-report=r.json,r.md,r.html",
        "--junitxml=j.xml",
        "--ragcheck-propose-labels=proposals.jsonl",
    )
    result.assert_outcomes(passed=1, failed=1)
    assert {r.headers["authorization"] for r in judge_server.requests} == {f"Bearer {KEY}"}
    text = Suite.text(result)
    assert KEY not in text
    assert f"Incorrect API key provided: {MARKER}" in text
    written = [p for p in suite.path.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    outputs = {"j.xml", "r.json", "r.md", "r.html", "step-summary.md", "proposals.jsonl"}
    assert outputs <= {p.name for p in written}
    assert any(".ragcheck" in p.parts for p in written)  # the verdict cache
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path
    assert f"key {MARKER}" in (suite.path / "r.json").read_text()  # the echoing reason
    assert MARKER in (suite.path / "j.xml").read_text()  # the failure message


# ---- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        (
            'metrics=["llm_relevancy"], judge_samples=3, judge_disagreement="abstian"',
            "judge_disagreement must be one of 'vote', 'abstain', got 'abstian' (did you mean 'abstain'?)",
        ),
        (
            'metrics=["llm_relevancy"], min_judge_consistency=0.9',
            "judge_consistency (min_judge_consistency) measures how often repeated judge samples "
            "agree: it needs a judge metric (e.g. llm_relevancy) and judge_samples >= 2",
        ),
        ("min_judge_kappa=0.6", "judge_kappa compares the judge's relevance verdicts"),
    ],
)
def test_bad_keywords_are_usage_errors(suite: Suite, judge_server: JudgeServer, marker, message):
    _project(suite, FLIPPED, f'"golden.jsonl", baseline=False, {marker}')
    result = suite.run(*_args(judge_server))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in Suite.text(result)
    assert judge_server.count == 0


def test_an_unwritable_proposals_path_is_a_usage_error(suite: Suite, judge_server: JudgeServer):
    _project(suite, FLIPPED, '"golden.jsonl", baseline=False, metrics=["llm_relevancy"]')
    (suite.path / "notes.txt").write_text("a file, not a folder\n")
    result = suite.run(*_args(judge_server), "--ragcheck-propose-labels=notes.txt/p.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = Suite.text(result)
    assert (
        "--ragcheck-propose-labels / ragcheck_propose_labels=notes.txt/p.jsonl: cannot write"
        in text
    )
    assert f"{suite.path / 'notes.txt'} is not a folder" in text
    assert judge_server.count == 0


def test_labels_of_one_class_leave_a_gated_kappa_undefined_and_fail(
    suite: Suite, judge_server: JudgeServer
) -> None:
    docs: dict[str, list[Doc]] = {"what is eta": [("e1", 1, 1, False), ("e2", 2, 0, False)]}
    _project(
        suite,
        docs,
        '"golden.jsonl", k=2, metrics=["llm_relevancy"], baseline=False, min_judge_kappa=0.6',
    )
    result = suite.run(*_args(judge_server))
    result.assert_outcomes(failed=1)
    Suite.assert_clean(result)
    text = Suite.text(result)
    assert "min_judge_kappa=0.6 cannot be checked: judge_kappa is undefined: all 2 labelled" in text
    assert "label some not relevant documents among the retrieved ones" in text
    assert "nan" not in text.lower()
