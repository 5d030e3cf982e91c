"""The ``xu-bottom-up`` method: Xu et al.'s bottom-up utility-based local recoding (NCP)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonset.methods.base import Family, Method, Option, Problem, WarmUp

if TYPE_CHECKING:
    from anonset.methods.cluster.grouping import ClusterGrouping

__all__ = ["METHOD"]


def _fit(problem: Problem) -> ClusterGrouping:
    from anonset.methods.cluster.grouping import xu_bottom_up_method

    return xu_bottom_up_method(problem.dataset, problem.requirements, seed=problem.seed, weights=problem.weights,
                               **problem.options)


METHOD = Method(
    name="xu-bottom-up",
    family=Family.GROUPING,
    summary="bottom-up local recoding: merge the group that costs least to merge until every group is valid",
    fit=_fit,
    options=(Option("split", "bool", True, "split groups of 2k or more records (the paper's step); false only to"
                    " measure what splitting brings"),
             Option("merge_cost", "str", "union", "the partner an open group merges with: union minimizes"
                    " the merged group's NCP (the paper's rule), increase how much the merge raises the table's NCP",
                    choices=("union", "increase"))),
    randomized=True,
    models=frozenset({"KAnonymity", "KMap", "DistinctLDiversity", "EntropyLDiversity"}),
    suppresses=False,
    warm_ups=(WarmUp("k-anonymity", seconds=2.5), WarmUp("distinct l-diversity", ("KAnonymity", "DistinctLDiversity")),
              WarmUp("entropy l-diversity", ("KAnonymity", "EntropyLDiversity")),
              WarmUp("merge cost increase", options={"merge_cost": "increase"})),
)
