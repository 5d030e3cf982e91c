"""The ``mondrian`` method: LeFevre et al.'s multidimensional partitioning, with workload-aware split criteria."""

from __future__ import annotations

from typing import Any

from anonset.errors import ConfigError
from anonset.methods.base import Family, Method, Option, Problem

__all__ = ["METHOD"]


def _fit(problem: Problem) -> Any:
    from anonset.methods.mondrian.regions import mondrian

    return mondrian(problem.dataset, problem.requirements, seed=problem.seed, weights=problem.weights,
                    **problem.options)


def _criterion(value: Any) -> None:
    from anonset.methods.mondrian.split import SplitCriterion

    if isinstance(value, str):
        if value not in CRITERIA:
            raise ConfigError(f"method 'mondrian': option 'criterion' must be one of {' | '.join(CRITERIA)};"
                              f" got {value!r}")
    elif not isinstance(value, SplitCriterion):
        raise ConfigError(f"method 'mondrian': option 'criterion' must be one of {' | '.join(CRITERIA)} (or a"
                          f" SplitCriterion object); got {value!r}")


def _targets(value: Any) -> None:
    if isinstance(value, str):
        return
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"method 'mondrian': option 'targets' must be a column name or a list of them; got {value!r}")


def _selections(value: Any) -> None:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise ConfigError("method 'mondrian': option 'selections' must be a list of predicates such as"
                          f" [{{age: [20, 39], sex: [M]}}]; got {value!r}")


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
