"""The ``rv-hybrid`` method: Morton et al.'s hybrid research-value search over the full-domain lattice."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonset.methods.base import Family, Method, Problem, WarmUp
from anonset.methods.full_domain.rv_options import MAX_FREQUENCY_SETS

if TYPE_CHECKING:
    from anonset.methods.full_domain.search import SearchResult

__all__ = ["METHOD"]


def _fit(problem: Problem) -> SearchResult:
    from anonset.methods.full_domain.research_value import rv_hybrid

    return rv_hybrid(problem.dataset, problem.node_engine(), problem.requirements, problem.metric, **problem.options)


METHOD = Method(
    name="rv-hybrid",
    ranked=True,
    family=Family.NODE,
    summary="local probes prune the list, then the global search runs on the rest (exact)",
    fit=_fit,
    min_levels=True,
    options=(MAX_FREQUENCY_SETS,),
    in_memory=False,
    default_metric="research_value",
    metrics=frozenset({"research_value"}),
    warm_ups=(WarmUp("k-anonymity with suppression", max_suppression=0.02),),
)
