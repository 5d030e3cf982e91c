"""The ``pareto-exhaustive`` method: the exact front of minimal property based generalizations (Dewri et al.)."""

from __future__ import annotations

from typing import Any

from anonset.methods.base import Family, Method, Option, Problem

__all__ = ["METHOD"]


def _fit(problem: Problem) -> Any:
    from anonset.methods.pareto.exhaustive import pareto_exhaustive

    options = dict(problem.options)
    objectives = list(options.pop("objectives"))
    return pareto_exhaustive(problem.dataset, problem.engine, objectives, eta=problem.requirements.max_suppression,
                             **options)


METHOD = Method(
    name="pareto-exhaustive",
    ranked=True,
    family=Family.FRONT,
    summary="evaluates every lattice node on several properties and keeps the non-dominated ones (exact front)",
    fit=_fit,
    options=(Option("objectives", "names", ("k", "glm"), "at least two properties of the front: privacy (k, l,"
                    " s_k, s_l) and loss (glm, cm)", choices=("k", "l", "s_k", "s_l", "glm", "cm")),
             Option("epsilon", "numbers", None, "box-dominance discretization, one positive number per"
                    " objective (unset: plain dominance)",
                    optional=True, low=0),
             Option("sensitive", "str", None, "the sensitive attribute of l and s_l (default: the only one)",
                    optional=True),
             Option("target", "str", None, "the class label of cm (default: the only target column)",
                    optional=True),),
    in_memory=True,
    models=frozenset({"KAnonymity", "DistinctLDiversity"}),
)
