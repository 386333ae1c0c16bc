"""A golden set that grows: the pull request that adds cases keeps its regression check.

The baseline in __ragcheck__/test_growing_golden_set/ was recorded on the 225 Cranfield
queries of golden/cranfield.jsonl. This change adds the five questions in NEW_CASES. ragcheck
stores a content hash per case, so the run is compared with the baseline on the 225 cases both
share (same id, same query and judgments), and the five new ones are reported, not failed:

    note: golden set changed since the baseline: 5 added (new-1, new-2, new-3, new-4, new-5);
          compared on the 225 shared case(s)

A worse retriever still fails here (try RAGCHECK_EXAMPLE_VARIANT=weak). Editing a case's query
or judgments reports it as edited and leaves it out of the comparison; editing only its tags
changes nothing. Once the new cases are reviewed, record them with the command that names this
test only:

    pytest "example_suite/test_growing_golden_set.py::test_growing_golden_set" --snapshot-update
"""

from __future__ import annotations

import json
from pathlib import Path

from pytest_ragcheck import ragcheck

GOLDEN = Path(__file__).parent / "golden" / "cranfield.jsonl"

#: Questions written for this change, judged against the Cranfield abstracts (grade 3: the
#: abstract answers it; 1: related).
NEW_CASES = [
    {
        "id": "new-1",
        "query": "how far can the overpressure of a sonic boom be reduced by shaping the aircraft?",
        "relevance": {"758": 3, "809": 1, "811": 1, "1243": 1},
        "tags": ["supersonic"],
    },
    {
        "id": "new-2",
        "query": "how does the drag of long slender bodies change with reynolds number?",
        "relevance": {"1214": 3},
    },
    {
        "id": "new-3",
        "query": "general instability of ring-stiffened cylinders under external hydrostatic pressure",
        "relevance": {"1129": 3, "1132": 3, "1133": 2, "1068": 1},
        "tags": ["structures"],
    },
    {
        "id": "new-4",
        "query": "skin friction of a turbulent boundary layer with foreign gas injected through the wall",
        "relevance": {"1237": 3, "125": 2, "1199": 1},
        "tags": ["boundary-layer"],
    },
    {
        "id": "new-5",
        "query": "discharge coefficients of flow nozzles and venturi meters",
        "relevance": {"964": 3, "965": 3},
    },
]


def committed_cases() -> list[dict[str, object]]:
    with GOLDEN.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


# `cases=` takes a list as well as a path: the committed file plus the cases this change adds.
@ragcheck(
    cases=[*committed_cases(), *NEW_CASES],
    k=10,
    metrics=["mrr@10", "recall@10", "ndcg@10"],
)
def test_growing_golden_set(ragcheck, retriever):
    result = ragcheck(retriever)
    assert len(result.cases) == 230
