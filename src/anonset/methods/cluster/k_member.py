"""The ``k-member`` method: Byun et al.'s greedy k-member clustering (optionally classification-aware)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonset.methods.base import Family, Method, Option, Problem, WarmUp

if TYPE_CHECKING:
    from anonset.methods.cluster.grouping import ClusterGrouping

__all__ = ["METHOD"]


def _fit(problem: Problem) -> ClusterGrouping:
    from anonset.methods.cluster.grouping import k_member

    return k_member(problem.dataset, problem.requirements, seed=problem.seed, weights=problem.weights,
                    **problem.options)


METHOD = Method(
    name="k-member",
    family=Family.GROUPING,
    summary="greedy k-member clustering: each class grows by the record that adds the least information loss",
    fit=_fit,
    options=(Option("class_penalty", "float", 0.0, "Byun et al.'s classification-aware variant: information"
                    " loss added to a candidate whose class label differs from the cluster's majority label (0: plain"
                    " k-member); needs a column with role target", low=0),
             Option("target", "str", None, "the class-label column of class_penalty when several"
                    " columns have role target (unset: the only one)", optional=True)),
    randomized=True,
    models=frozenset({"KAnonymity", "KMap", "DistinctLDiversity", "EntropyLDiversity"}),
    suppresses=False,
    warm_ups=(WarmUp("k-anonymity", seconds=11.0), WarmUp("distinct l-diversity", ("KAnonymity", "DistinctLDiversity")),
              WarmUp("entropy l-diversity", ("KAnonymity", "EntropyLDiversity"))),
)
