"""The ``optimal`` method: the exact optimum of the utility metric over the full-domain lattice, with pruning.

With ``levels`` (one generalization level per quasi-identifier) it releases that
node instead, judged like any other: a node chosen in the workbench's lattice
view, or one of a report's alternatives, written as a config ``anonset
anonymize`` runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from anonset.errors import ConfigError, InfeasibleError
from anonset.methods.base import Family, Method, Option, Problem, WarmUp

if TYPE_CHECKING:
    from anonset.methods.full_domain.search import SearchResult

__all__ = ["METHOD"]


def _fit(problem: Problem) -> SearchResult:
    from anonset.methods.full_domain.search import fixed_node, optimal_search

    options = dict(problem.options)
    given = options.pop("levels", None)
    if options.pop("suppression") == "cells":
        _cells_models(problem)
    options.pop("importance")
    if given is None:
        return optimal_search(problem.dataset, problem.node_engine(), problem.requirements, problem.metric,
                              **options)
    levels = _node(problem, given)
    try:
        result = fixed_node(problem.dataset, problem.node_engine(), problem.requirements, problem.metric, levels)
    except InfeasibleError:
        raise InfeasibleError(f"the node given in method.levels ({_words(given)}) does not satisfy"
                              f" {problem.requirements.describe()} within the suppression budget; choose a more"
                              " general node, or leave levels out to search for the best one") from None
    result.details["strategy"] = "the node given in method.levels (no search)"
    return result


def _cells_models(problem: Problem) -> None:
    """Refuse, in one line, a model that blanked values cannot be judged by (k-anonymity alone can)."""
    others = [m.describe() for m in problem.requirements.models if type(m).__name__ != "KAnonymity"]
    if others:
        raise ConfigError(f"suppression: cells releases blanked values, each matching any value, which k-anonymity"
                          f" alone is judged by; {others[0]} is not: suppress whole records (the default) or drop it")


def _node(problem: Problem, given: Mapping[str, int]) -> tuple[int, ...]:
    """``given`` as a node of the dataset's lattice; a ConfigError naming what does not fit."""
    quasi = problem.dataset.quasi
    unknown = sorted(set(given) - set(quasi))
    missing = [q for q in quasi if q not in given]
    if unknown or missing:
        raise ConfigError(f"method.levels must give a level for each quasi-identifier ({', '.join(quasi)})"
                          + (f"; not quasi-identifiers: {', '.join(unknown)}" if unknown else "")
                          + (f"; missing: {', '.join(missing)}" if missing else ""))
    for q, hierarchy in zip(quasi, problem.dataset.hierarchies, strict=True):
        if not 0 <= given[q] <= hierarchy.max_level:
            raise ConfigError(f"method.levels: {q} has level {given[q]}, but its hierarchy has levels 0 to"
                              f" {hierarchy.max_level}")
        floor = problem.dataset.specs[q].min_level
        if given[q] < floor:
            raise ConfigError(f"method.levels: {q} has level {given[q]}, below its min_level {floor}; give a level"
                              f" from {floor} to {hierarchy.max_level}")
    return tuple(int(given[q]) for q in quasi)


def _words(levels: Mapping[str, int]) -> str:
    return ", ".join(f"{q} {level}" for q, level in levels.items())


def _is_levels(value: Any) -> bool:
    """A mapping of names to whole numbers of at least 0."""
    return isinstance(value, Mapping) and all(
        isinstance(q, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0 for q, v in value.items())


METHOD = Method(
    name="optimal",
    family=Family.NODE,
    summary="exact optimum of the metric over the full-domain lattice, pruned by monotone bounds (as in ARX)",
    fit=_fit,
    options=(Option("assume_practical_monotonicity", "bool", False,
                    "prune as if l-diversity and t-closeness with a suppression budget were monotone (ARX's optional"
                    " assumption): sometimes fewer checks, but it can miss the optimum (see docs/config.md); the"
                    " summary says when it was used"),
             Option("levels", "any", None,
                    "release this node instead of the optimum (a level per quasi-identifier, e.g. a node chosen in"
                    " the workbench): judged like any other, refused when it does not meet the requirements",
                    optional=True, accepts=_is_levels, shape="a mapping of each quasi-identifier to its level"),
             Option("suppression", "str", "records", "what the suppression budget removes from the records of classes"
                    " below k: whole records (released as *), or single values (cells: sdcMicro's local suppression at"
                    " the node, a blank matching any value, k-anonymity only)", choices=("records", "cells")),
             Option("importance", "names", None, "with suppression: cells, the quasi-identifiers from the one to keep"
                    " longest to the one to blank first (unset: fewer distinct values are kept longer)",
                    optional=True)),
    in_memory=False,
    min_levels=True,
    warm_ups=(WarmUp("k-anonymity with suppression", max_suppression=0.02, seconds=2.2),
              WarmUp("entropy l-diversity", ("KAnonymity", "EntropyLDiversity"), 0.02),
              WarmUp("δ-disclosure", ("KAnonymity", "DeltaDisclosure"), 0.02),
              WarmUp("t-closeness (equal)", ("KAnonymity", "TCloseness"), 0.02),
              WarmUp("t-closeness (ordered)", ("KAnonymity", "TCloseness"), 0.02, sensitive="length_of_stay",
                     distance="ordered")),
)
