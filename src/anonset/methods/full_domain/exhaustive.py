"""The ``exhaustive`` method: every node of the full-domain lattice is evaluated; the reference for the searches."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonset.methods.base import Family, Method, Problem, WarmUp

if TYPE_CHECKING:
    from anonset.methods.full_domain.search import SearchResult

__all__ = ["METHOD"]


def _fit(problem: Problem) -> SearchResult:
    from anonset.methods.full_domain.search import exhaustive_search

    return exhaustive_search(problem.dataset, problem.node_engine(), problem.requirements, problem.metric)


METHOD = Method(
    name="exhaustive",
    family=Family.NODE,
    summary="evaluates every node of the full-domain lattice and keeps the best (the reference for the others)",
    fit=_fit,
    in_memory=False,
    min_levels=True,
    warm_ups=(WarmUp("k-anonymity with suppression", max_suppression=0.02),),
)
