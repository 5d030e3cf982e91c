"""The ``rv-local`` method: Morton et al.'s local research-value search over the full-domain lattice."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonset.methods.base import Family, Method, Problem, WarmUp

if TYPE_CHECKING:
    from anonset.methods.full_domain.search import SearchResult

__all__ = ["METHOD"]


def _fit(problem: Problem) -> SearchResult:
    from anonset.methods.full_domain.research_value import rv_local

    return rv_local(problem.dataset, problem.node_engine(), problem.requirements, problem.metric, **problem.options)


METHOD = Method(
    name="rv-local",
    ranked=True,
    family=Family.NODE,
    summary="one binary-search pointer per attribute, moved in lockstep (fast, not exact)",
    fit=_fit,
    min_levels=True,
    in_memory=False,
    default_metric="research_value",
    metrics=frozenset({"research_value"}),
    warm_ups=(WarmUp("k-anonymity with suppression", max_suppression=0.02),),
)
