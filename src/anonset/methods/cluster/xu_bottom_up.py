"""The ``xu-bottom-up`` method: Xu et al.'s bottom-up utility-based local recoding (NCP)."""

from __future__ import annotations

from typing import Any

from anonset.methods.base import Family, Method, Option, Problem

__all__ = ["METHOD"]


def _fit(problem: Problem) -> Any:
    from anonset.methods.cluster.grouping import xu_bottom_up_method

    return xu_bottom_up_method(problem.dataset, problem.requirements, seed=problem.seed, weights=problem.weights,
                               **problem.options)


METHOD = Method(
    name="xu-bottom-up",
    family=Family.GROUPING,
    summary="bottom-up local recoding: merge the group that costs least to merge until every group is valid",
    fit=_fit,
    options=(Option("split", "bool", True, "split groups of 2k or more records after merging"),
             Option("merge_cost", "str", "union", "cost of a merge: the merged group's NCP (union, the paper's"
                    " rule) or its increase", choices=("union", "increase"))),
    randomized=True,
    models=frozenset({"KAnonymity", "DistinctLDiversity", "EntropyLDiversity"}),
    suppresses=False,
)
