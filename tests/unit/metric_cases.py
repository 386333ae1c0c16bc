"""Seeded random retrieval cases for the metric tests (pure functions, engine, references).

Each case has a raw ranking that may repeat ids, graded judgments with 0 and negative grades,
and sometimes no judgments, no relevant document or an empty ranking. Ids include non-ASCII
characters so that tie-breaking by doc id is exercised beyond ASCII.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from pytest_ragcheck.metrics.names import RANK_METRICS

CUTOFFS: tuple[int | None, ...] = (1, 3, 5, 10, None)
#: Every rank metric at every cutoff (``r_precision`` once: it has none).
ALL_NAMES: tuple[str, ...] = (
    *(
        f"{base}@{'all' if k is None else k}"
        for base in RANK_METRICS
        if base != "r_precision"
        for k in CUTOFFS
    ),
    "r_precision",
)

_ALPHABET = ["d", "D", "é", "z", "Ω", "a_"]


@dataclass(frozen=True)
class Case:
    qid: str
    raw: list[str]  # as a retriever might return it: may repeat ids
    grades: dict[str, int]  # may be empty, may hold only 0/negative grades

    @property
    def ranking(self) -> list[str]:
        """Deduplicated, first position kept (what the references are fed)."""
        return list(dict.fromkeys(self.raw))

    def scores(self) -> dict[str, float]:
        """Tie-free scores that reproduce :attr:`ranking` (best first)."""
        docs = self.ranking
        return {doc: float(len(docs) - i) + 0.5 for i, doc in enumerate(docs)}

    def tied_scores(self, rng: random.Random) -> dict[str, float]:
        """Scores with many ties (three levels)."""
        return {doc: float(rng.choice((0, 1, 2))) for doc in self.ranking}


def random_cases(n: int, *, seed: int = 0) -> list[Case]:
    rng = random.Random(seed)
    cases = []
    for q in range(n):
        pool = [f"{rng.choice(_ALPHABET)}{i}" for i in range(rng.randint(0, 40))]
        if not pool:
            raw: list[str] = []
        elif rng.random() < 0.3:  # with repeats
            raw = [rng.choice(pool) for _ in range(rng.randint(0, 30))]
        else:
            raw = rng.sample(pool, rng.randint(0, min(len(pool), 30)))
        judged = rng.sample(pool, min(len(pool), rng.randint(0, 15))) if pool else []
        roll = rng.random()
        if roll < 0.05:
            grades: dict[str, int] = {}
        elif roll < 0.10:
            grades = {d: rng.choice((-2, -1, 0)) for d in judged}  # nothing relevant
        else:
            grades = {d: rng.choice((-1, 0, 0, 1, 1, 2, 3, 4)) for d in judged}
        cases.append(Case(f"q{q}", raw, grades))
    return cases
