"""Build the example suite's golden sets from the Cranfield collection in ``data/cranfield/``.

    python example_suite/data/make_golden.py           # (re)write the golden files
    python example_suite/data/make_golden.py --check   # exit 1 if they are out of date

Writes, from ``queries.jsonl`` + ``qrels.tsv`` (225 queries, graded 0-4, higher = more relevant):

* ``golden/cranfield.jsonl`` — one ragcheck case per query: ``id``, ``query``, ``relevance``
  (every judged document with its grade, grade-0 "judged not relevant" rows included, so the
  grades reach nDCG) and ``tags``: a length bucket (``short`` <= 12 words, ``long`` >= 23,
  else ``medium``) plus topic tags from keywords in the query (``boundary-layer``,
  ``heat-transfer``, ``structures``, ...).
* ``golden/cranfield_beir/`` — the same judgments as a BEIR-style folder (``queries.jsonl`` +
  ``qrels/test.tsv``). Its ``corpus.jsonl`` is left out on purpose: the retriever reads
  ``data/cranfield/corpus.jsonl`` and ragcheck never needs the corpus.

It also checks ``golden/handwritten.jsonl`` (written by hand, not generated): every
``expected_texts`` span must occur in some Cranfield abstract, so a typo cannot silently make a
case unanswerable.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "cranfield"
GOLDEN = HERE.parent / "golden"

#: Topic tags: a query gets every tag whose pattern occurs in it.
TOPICS: dict[str, str] = {
    "boundary-layer": r"boundary[- ]layer",
    "heat-transfer": r"\bheat|thermal|temperature",
    "structures": r"buckl|shell|stress|panel|creep|beam|deflection|vibrat|elastic",
    "flutter": r"flutter",
    "hypersonic": r"hypersonic",
    "supersonic": r"supersonic",
    "transonic": r"transonic",
    "shock": r"\bshock",
}
SHORT_MAX_WORDS = 12
LONG_MIN_WORDS = 23


def tags_for(query: str) -> list[str]:
    words = len(re.findall(r"[a-z0-9]+", query.lower()))
    length = (
        "short" if words <= SHORT_MAX_WORDS else "long" if words >= LONG_MIN_WORDS else "medium"
    )
    topics = [tag for tag, pattern in TOPICS.items() if re.search(pattern, query.lower())]
    return [length, *topics]


def read_queries() -> list[dict[str, str]]:
    with (SOURCE / "queries.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def read_qrels() -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with (SOURCE / "qrels.tsv").open(encoding="utf-8") as handle:
        next(handle)  # header: qid docid grade
        for line in handle:
            qid, docid, grade = line.split("\t")
            qrels.setdefault(qid, {})[docid] = int(grade)
    return qrels


def jsonl(rows: list[dict[str, object]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def build() -> dict[Path, str]:
    """Every generated file and its exact content."""
    queries = read_queries()
    qrels = read_qrels()
    cases: list[dict[str, object]] = []
    beir_queries: list[dict[str, object]] = []
    qrels_lines = ["query-id\tcorpus-id\tscore\n"]
    for query in queries:
        qid = query["id"]
        grades = dict(sorted(qrels[qid].items(), key=lambda item: (-item[1], int(item[0]))))
        cases.append(
            {
                "id": qid,
                "query": query["text"],
                "relevance": grades,
                "tags": tags_for(query["text"]),
            }
        )
        beir_queries.append({"_id": qid, "text": query["text"]})
        qrels_lines += [f"{qid}\t{docid}\t{grade}\n" for docid, grade in grades.items()]
    return {
        GOLDEN / "cranfield.jsonl": jsonl(cases),
        GOLDEN / "cranfield_beir" / "queries.jsonl": jsonl(beir_queries),
        GOLDEN / "cranfield_beir" / "qrels" / "test.tsv": "".join(qrels_lines),
    }


def _normalize(text: str) -> str:
    """ragcheck's span matching: NFKC, case-folded, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def check_handwritten() -> list[str]:
    """Problems with ``golden/handwritten.jsonl``: spans that occur in no abstract."""
    with (SOURCE / "corpus.jsonl").open(encoding="utf-8") as handle:
        texts = [_normalize(json.loads(line)["text"]) for line in handle]
    problems = []
    path = GOLDEN / "handwritten.jsonl"
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            case = json.loads(line)
            for span in case.get("expected_texts", []):
                if not any(_normalize(span) in text for text in texts):
                    problems.append(f"{path.name}:{number}: span not in any abstract: {span!r}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check, write nothing")
    args = parser.parse_args(argv)
    problems = check_handwritten()
    for path, content in build().items():
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current == content:
            continue
        if args.check:
            problems.append(f"{path.relative_to(HERE.parent)} is out of date")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
            print(f"wrote {path.relative_to(HERE.parent)}")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
