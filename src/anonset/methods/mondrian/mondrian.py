"""The ``mondrian`` method: LeFevre et al.'s multidimensional partitioning, with workload-aware split criteria."""

from __future__ import annotations

from typing import Any

from anonset.methods.base import Family, Method, Option, Problem

__all__ = ["METHOD"]


def _fit(problem: Problem) -> Any:
    from anonset.methods.mondrian.regions import mondrian

    return mondrian(problem.dataset, problem.requirements, seed=problem.seed, weights=problem.weights,
                    **problem.options)


def _criterion(value: Any) -> bool:
    """A criterion name, or an object with the split criterion's ``candidates`` method."""
    if isinstance(value, str):
        return value in CRITERIA
    return callable(getattr(value, "candidates", None))


def _targets(value: Any) -> bool:
    """A column name or a non-empty list of them."""
    if isinstance(value, str):
        return True
    return isinstance(value, (list, tuple)) and bool(value) and all(isinstance(v, str) for v in value)


def _selections(value: Any) -> bool:
    """A list of predicates (each checked by the selection criterion)."""
    return isinstance(value, (list, tuple))


#: The split criteria by name.
CRITERIA = ("median", "infogain", "lsd", "selection")

METHOD = Method(
    name="mondrian",
    family=Family.GROUPING,
    summary="multidimensional partitioning: cut regions at the median (or by a workload criterion) while the"
            " halves stay valid",
    fit=_fit,
    options=(Option("strict", "bool", True, "strict partitioning (regions never share a value); false allows"
                    " relaxed cuts of repeated values"),
             Option("criterion", "any", "median", f"split criterion: {' | '.join(CRITERIA)}", accepts=_criterion,
                    shape=f"one of {' | '.join(CRITERIA)}"),
             Option("targets", "any", None, "target columns the criterion serves (infogain, lsd)",
                    optional=True, accepts=_targets, shape="a column name or a list of them"),
             Option("selections", "any", None, "selection predicates the selection criterion serves",
                    optional=True, accepts=_selections, shape="a list of predicates")),
    suppresses=False,
)
