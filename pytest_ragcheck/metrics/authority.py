"""Source-authority metrics (SPEC §12): how much of the top k comes from sources one trusts.

Each hit's source (its URL, source or domain) is weighed by an authority table
(:mod:`pytest_ragcheck.metrics.authority_table`). ``authority@k`` is the mean weight of the hits in
the top k, ``untrusted@k`` the share of them weighing less than ``trusted_min``; both are 0
for a case with no hits. The denominator is the number of hits in the top k (``min(k, n)``),
so a short list is judged on what it returned, as ``judged@k`` is.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_ragcheck.metrics.authority_table import AuthorityTable, Match
from pytest_ragcheck.metrics.reference import _check_k

__all__ = ["AuthorityColumns", "authority", "untrusted"]


class AuthorityColumns:
    """One case's weighed sources, and a method per metric (the registry's ``engine``)."""

    __slots__ = ("matches", "trusted_min")

    def __init__(self, matches: Sequence[Match], trusted_min: float) -> None:
        self.matches = matches
        self.trusted_min = trusted_min

    def top(self, k: int | None) -> Sequence[Match]:
        return self.matches if k is None else self.matches[:k]

    def authority(self, k: int | None) -> float:
        top = self.top(k)
        return sum(m.weight for m in top) / len(top) if top else 0.0

    def untrusted(self, k: int | None) -> float:
        top = self.top(k)
        return sum(1 for m in top if m.weight < self.trusted_min) / len(top) if top else 0.0


def _columns(sources: Sequence[str], table: AuthorityTable, trusted_min: float) -> AuthorityColumns:
    if isinstance(sources, str):
        raise TypeError("sources must be a sequence of the hits' sources in rank order, not a str")
    return AuthorityColumns([table.weigh(source) for source in sources], trusted_min)


def authority(sources: Sequence[str], table: AuthorityTable, k: int | None = None) -> float:
    """Mean weight of the sources of the top k hits (0 when there is none)."""
    return _columns(sources, table, 0.5).authority(_check_k(k))


def untrusted(
    sources: Sequence[str],
    table: AuthorityTable,
    k: int | None = None,
    *,
    trusted_min: float = 0.5,
) -> float:
    """Share of the top k hits whose source weighs less than ``trusted_min``."""
    return _columns(sources, table, trusted_min).untrusted(_check_k(k))
