"""The ``optimal`` method: the exact optimum of the utility metric over the full-domain lattice, with pruning."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonset.methods.base import Family, Method, Option, Problem, WarmUp

if TYPE_CHECKING:
    from anonset.methods.full_domain.search import SearchResult

__all__ = ["METHOD"]


def _fit(problem: Problem) -> SearchResult:
    from anonset.methods.full_domain.search import optimal_search

    return optimal_search(problem.dataset, problem.node_engine(), problem.requirements, problem.metric,
                          **problem.options)


METHOD = Method(
    name="optimal",
    family=Family.NODE,
    summary="exact optimum of the metric over the full-domain lattice, pruned by monotone bounds (as in ARX)",
    fit=_fit,
    options=(Option("assume_practical_monotonicity", "bool", False,
                    "prune as if l-diversity and t-closeness with a suppression budget were monotone (ARX's optional"
                    " assumption): sometimes fewer checks, but it can miss the optimum (see docs/config.md); the"
                    " summary says when it was used"),),
    in_memory=False,
    warm_ups=(WarmUp("k-anonymity with suppression", max_suppression=0.02, seconds=2.2),
              WarmUp("entropy l-diversity", ("KAnonymity", "EntropyLDiversity"), 0.02),
              WarmUp("δ-disclosure", ("KAnonymity", "DeltaDisclosure"), 0.02),
              WarmUp("t-closeness (equal)", ("KAnonymity", "TCloseness"), 0.02),
              WarmUp("t-closeness (ordered)", ("KAnonymity", "TCloseness"), 0.02, sensitive="length_of_stay",
                     distance="ordered")),
)
