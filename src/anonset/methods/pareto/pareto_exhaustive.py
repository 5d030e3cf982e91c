"""The ``pareto-exhaustive`` method: the exact front of minimal property based generalizations (Dewri et al.)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonset.methods.base import Family, Method, Problem, WarmUp
from anonset.methods.pareto.front_options import FRONT_OPTIONS

if TYPE_CHECKING:
    from anonset.methods.pareto.objectives import ParetoResult

__all__ = ["METHOD"]


def _fit(problem: Problem) -> ParetoResult:
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
    options=FRONT_OPTIONS,
    in_memory=False,
    min_levels=True,
    models=frozenset({"KAnonymity", "DistinctLDiversity"}),
    warm_ups=(WarmUp(max_suppression=0.02),),
)
