"""The ``rv-partitioned`` method: Morton et al.'s partitioned research-value search over the full-domain lattice."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonset.methods.base import Family, Method, Option, Problem, WarmUp
from anonset.methods.full_domain.rv_options import MAX_FREQUENCY_SETS

if TYPE_CHECKING:
    from anonset.methods.full_domain.search import SearchResult

__all__ = ["METHOD"]


def _fit(problem: Problem) -> SearchResult:
    from anonset.methods.full_domain.research_value import rv_partitioned

    return rv_partitioned(problem.dataset, problem.node_engine(), problem.requirements, problem.metric,
                          **problem.options)


METHOD = Method(
    name="rv-partitioned",
    ranked=True,
    family=Family.NODE,
    summary="attribute subsets searched apart, combinations in descending research value (exact, bounded memory)",
    fit=_fit,
    min_levels=True,
    options=(Option("subset_size", "int", 8, "attributes per subset", low=1),
             Option("success_limit", "int", 20, "how many of the best strings the combination step keeps", low=1),
             MAX_FREQUENCY_SETS),
    in_memory=False,
    default_metric="research_value",
    metrics=frozenset({"research_value"}),
    warm_ups=(WarmUp("k-anonymity with suppression", max_suppression=0.02),),
)
