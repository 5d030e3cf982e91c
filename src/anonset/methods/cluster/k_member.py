"""The ``k-member`` method: Byun et al.'s greedy k-member clustering (optionally classification-aware)."""

from __future__ import annotations

from typing import Any

from anonset.methods.base import Family, Method, Option, Problem

__all__ = ["METHOD"]


def _fit(problem: Problem) -> Any:
    from anonset.methods.cluster.grouping import k_member

    return k_member(problem.dataset, problem.requirements, seed=problem.seed, weights=problem.weights,
                    **problem.options)


METHOD = Method(
    name="k-member",
    family=Family.GROUPING,
    summary="greedy k-member clustering: each class grows by the record that adds the least information loss",
    fit=_fit,
    options=(Option("class_penalty", "float", 0.0, "weight of mixing class labels in a cluster (Byun's"
                    " classification-aware variant; 0 = off)", low=0),
             Option("target", "str", None, "the class label column for class_penalty (default: the only"
                    " column with role target)", optional=True)),
    randomized=True,
    models=frozenset({"KAnonymity", "DistinctLDiversity", "EntropyLDiversity"}),
    suppresses=False,
)
