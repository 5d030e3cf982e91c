"""The ``pareto-ea`` method: Dewri et al.'s PBG-EA, an evolutionary search for the front of minimal PBGs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonset.methods.base import Family, Method, Option, Problem, WarmUp
from anonset.methods.pareto.front_options import FRONT_OPTIONS

if TYPE_CHECKING:
    from anonset.methods.pareto.objectives import ParetoResult

__all__ = ["METHOD"]


def _fit(problem: Problem) -> ParetoResult:
    from anonset.methods.pareto.evolutionary import pareto_ea

    options = dict(problem.options)
    objectives = list(options.pop("objectives"))
    return pareto_ea(problem.dataset, problem.engine, objectives, eta=problem.requirements.max_suppression,
                     seed=problem.seed, **options)


METHOD = Method(
    name="pareto-ea",
    ranked=True,
    in_memory=False,
    min_levels=True,
    family=Family.FRONT,
    summary="PBG-EA: an evolutionary search with a box-dominance archive; evaluates a small share of the lattice",
    fit=_fit,
    options=(*FRONT_OPTIONS,
             Option("population", "int", 25, "PBG-EA's population size", low=2),
             Option("iterations", "int", 100, "PBG-EA's generations", low=1),
             Option("p_cross", "float", 0.8, "PBG-EA's crossover probability", low=0, high=1),
             Option("p_mut", "float", None, "PBG-EA's mutation probability (unset: 1 / the number of"
                    " quasi-identifiers)", low=0, high=1,
                    optional=True)),
    randomized=True,
    models=frozenset({"KAnonymity", "DistinctLDiversity"}),
    warm_ups=(WarmUp(max_suppression=0.02, options={"population": 6, "iterations": 3}),),
)
