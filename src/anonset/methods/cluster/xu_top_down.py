"""The ``xu-top-down`` method: Xu et al.'s top-down utility-based local recoding (NCP)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonset.methods.base import Family, Method, Option, Problem, WarmUp

if TYPE_CHECKING:
    from anonset.methods.cluster.grouping import ClusterGrouping

__all__ = ["METHOD"]


def _fit(problem: Problem) -> ClusterGrouping:
    from anonset.methods.cluster.grouping import xu_top_down_method

    return xu_top_down_method(problem.dataset, problem.requirements, seed=problem.seed, weights=problem.weights,
                              **problem.options)


METHOD = Method(
    name="xu-top-down",
    family=Family.GROUPING,
    summary="top-down local recoding: split the table by the two records farthest apart while classes stay valid",
    fit=_fit,
    options=(Option("rounds", "int", 3, "rounds of the far-apart-seed search per split", low=1),),
    randomized=True,
    models=frozenset({"KAnonymity", "KMap", "DistinctLDiversity", "EntropyLDiversity"}),
    suppresses=False,
    warm_ups=(WarmUp("k-anonymity", seconds=6.1), WarmUp("distinct l-diversity", ("KAnonymity", "DistinctLDiversity")),
              WarmUp("entropy l-diversity", ("KAnonymity", "EntropyLDiversity"))),
)
