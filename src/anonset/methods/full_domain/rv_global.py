"""The ``rv-global`` method: Morton et al.'s global research-value search over the full-domain lattice."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonset.methods.base import Family, Method, Problem, WarmUp
from anonset.methods.full_domain.rv_options import MAX_FREQUENCY_SETS

if TYPE_CHECKING:
    from anonset.methods.full_domain.search import SearchResult

__all__ = ["METHOD"]


def _fit(problem: Problem) -> SearchResult:
    from anonset.methods.full_domain.research_value import rv_global

    return rv_global(problem.dataset, problem.node_engine(), problem.requirements, problem.metric, **problem.options)


METHOD = Method(
    name="rv-global",
    ranked=True,
    family=Family.NODE,
    summary="binary search over the generalization strings sorted by research value (exact)",
    fit=_fit,
    min_levels=True,
    options=(MAX_FREQUENCY_SETS,),
    in_memory=False,
    default_metric="research_value",
    metrics=frozenset({"research_value"}),
    warm_ups=(WarmUp("k-anonymity with suppression", max_suppression=0.02),),
)
