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

* ``golden/facets.jsonl`` — twelve queries with several facets, each with its judgments and
  the **subtopics** written by hand below (:data:`FACETS`: which relevant abstracts cover which
  facet of the question, read from their titles and abstracts), for the diversity metrics.
* ``data/sources.json`` — an **illustrative** source URL for every abstract, for the authority
  metrics. Cranfield has no URLs: these are made up on reserved ``.example`` domains (a
  report server, a journal, a university archive, a blog, a paper mirror), assigned by
  document id. They say nothing about where the abstracts really come from.

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

#: Query id -> subtopic -> the relevant abstracts that cover it (written by hand; an abstract
#: may cover several facets). Every id must be judged relevant to its query (checked).
FACETS: dict[str, dict[str, list[str]]] = {
    "2": {
        "panel flutter": ["15", "285", "390", "391", "658", "856", "857", "858", "859", "864", "948"],
        "thermal stress and heated structures": ["12", "51", "184", "497", "858", "859", "877"],
        "wing and control-surface flutter": ["14", "52", "202", "380", "442", "643"],
        "scale models": ["51", "102", "184"],
        "overviews of high-speed aeroelasticity": ["12", "746"],
    },
    "79": {
        "measured derivatives": ["597", "598", "708", "713"],
        "theory (newtonian)": ["597", "688"],
    },
    "82": {
        "kuchemann's method": ["676"],
        "multhopp's method": ["677"],
        "swept-wing experiments": ["205", "678", "679"],
    },
    "84": {
        "laminar heat transfer": ["294", "354", "406", "522", "962", "1192", "1213"],
        "turbulent heat transfer": ["142", "294", "406", "522"],
        "cones, yaw and bluntness": ["142", "294", "354", "522", "1192", "1213"],
        "heating-rate formulae": ["142", "606"],
    },
    "101": {
        "incremental (flow) theory": ["817", "818", "825"],
        "deformation theory": ["818", "819"],
        "stability and plastic buckling": ["820", "824", "825"],
    },
    "104": {
        "inelastic analysis": ["833", "834", "837"],
        "thermal cycling and non-uniform temperature": ["835", "836", "837"],
    },
    "116": {
        "the conical nose": ["360", "605", "922"],
        "the cylindrical afterbody": ["605", "922", "927"],
        "pressures on bodies at incidence": ["360", "492", "927"],
    },
    "145": {
        "experiments": ["763", "838", "839", "1045"],
        "small-deflection theory": ["743", "763", "841", "852"],
        "effect of internal pressure": ["763", "838", "839", "1045"],
    },
    "152": {
        "calculation methods": ["572", "1076", "1077"],
        "measurements": ["569", "655"],
        "displacement and leading-edge bluntness": ["572", "655", "1076"],
    },
    "188": {
        "jet-noise excitation": ["721", "722", "725", "909", "911"],
        "structural response and vibration": ["722", "725", "728", "729", "911"],
        "fatigue under random loading": ["75", "723", "724", "726"],
    },
    "209": {
        "laminar separation": ["55", "187", "487", "1228", "1383", "1385"],
        "turbulent separation": ["45", "187", "1106"],
        "jet plumes and base flows": ["487", "1350", "1351"],
        "hypersonic separated regions and heating": ["45", "55", "316", "1106", "1356"],
    },
    "224": {
        "departure from equilibrium": ["656", "1157", "1274", "1319"],
        "viscous effects and testing time": ["1313", "1317"],
        "temperature measurements": ["1157", "1316", "1318"],
    },
}

#: Illustrative sources (see the module's docstring): document id modulo 20 -> URL pattern.
SOURCES: list[tuple[int, str]] = [
    (8, "https://nasa-reports.example/citations/{id}"),
    (11, "https://aiaa-journal.example/doi/10.0000/cranfield.{id}"),
    (13, "https://university-archive.example/reports/{id}"),
    (14, "https://university-archive.example/theses/{id}"),
    (17, "https://aero-blog.example/posts/{id}"),
    (20, "https://paper-mirror.example/free/{id}.pdf"),
]


def source_of(doc_id: str) -> str:
    bucket = int(doc_id) % 20
    return next(url for limit, url in SOURCES if bucket < limit).format(id=doc_id)


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
    facets = [
        {
            "id": qid,
            "query": next(q["text"] for q in queries if q["id"] == qid),
            "relevance": next(c["relevance"] for c in cases if c["id"] == qid),
            "subtopics": subtopics,
        }
        for qid, subtopics in FACETS.items()
    ]
    with (SOURCE / "corpus.jsonl").open(encoding="utf-8") as handle:
        ids = [json.loads(line)["id"] for line in handle]
    sources = json.dumps({doc: source_of(doc) for doc in ids}, indent=0) + "\n"
    return {
        GOLDEN / "cranfield.jsonl": jsonl(cases),
        GOLDEN / "facets.jsonl": jsonl(facets),
        HERE / "sources.json": sources,
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


def check_facets() -> list[str]:
    """Problems with :data:`FACETS`: an abstract not judged relevant to its query."""
    qrels = read_qrels()
    return [
        f"FACETS[{qid!r}][{name!r}]: {doc} is not judged relevant to query {qid}"
        for qid, subtopics in FACETS.items()
        for name, docs in subtopics.items()
        for doc in docs
        if qrels[qid].get(doc, 0) < 1
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check, write nothing")
    args = parser.parse_args(argv)
    problems = check_handwritten() + check_facets()
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
