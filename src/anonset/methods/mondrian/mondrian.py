"""The ``mondrian`` method: LeFevre et al.'s multidimensional partitioning, with workload-aware split criteria."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anonset.errors import ConfigError
from anonset.methods.base import Distribution, Family, Method, Option, Problem, WarmUp

if TYPE_CHECKING:
    from anonset.methods.mondrian.regions import MondrianTree

__all__ = ["DISTRIBUTION", "METHOD"]


#: How Mondrian runs distributed (``engine: spark``; the release flow is :mod:`anonset.distributed.mondrian`):
#: the driver's options, and what no fragment can judge alone.
DISTRIBUTION = Distribution(
    options=(Option("fragments", "int", None, "engine: spark only: fragments the driver cuts the table into, each"
                    " partitioned on a worker (unset: 3 per task slot, at least one per 1,000,000 records)",
                    low=1, optional=True),
             Option("sample_rows", "int", None, "engine: spark only: records sampled to the driver to choose the"
                    " first cuts (unset: 1,000,000)", low=1, optional=True)),
    refuses={"TCloseness": "compares every class with the whole table's distribution, which no fragment holds;"
                           " use engine: numpy, or l-diversity instead",
             "BetaLikeness": "compares every class with the whole table's distribution, which no fragment holds;"
                             " use engine: numpy",
             "DeltaDisclosure": "compares every class with the whole table's distribution, which no fragment"
                                " holds; use engine: numpy",
             "KMap": "derives its class size from the whole table's number of records, which no fragment holds;"
                     " use engine: numpy, or k-anonymity with the k it derives"},
)


def _fit(problem: Problem) -> MondrianTree:
    from anonset.methods.mondrian.regions import mondrian

    options = dict(problem.options)
    for name in DISTRIBUTION.option_names():
        if options.pop(name, None) is not None:
            raise ConfigError(f"mondrian: option {name!r} applies to engine: spark (distributed Mondrian); drop it"
                              " to run in memory")
    return mondrian(problem.dataset, problem.requirements, seed=problem.seed, weights=problem.weights, **options)


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
#: The predicate of the warm-ups of the selection criterion.
SELECTION = ({"age": [40, 60]},)

METHOD = Method(
    name="mondrian",
    family=Family.GROUPING,
    summary="multidimensional partitioning: cut regions at the median (or by a workload criterion) while the"
            " halves stay valid",
    fit=_fit,
    options=(Option("strict", "bool", True, "strict Mondrian (records with equal values never divided by"
                    " a numeric split); false: relaxed"),
             Option("criterion", "any", "median", "median (largest normalized range, cut at the median), infogain"
                    " (least weighted class entropy of the targets), lsd (least summed squared error of numeric"
                    " targets), selection (least imprecision of the selections, then the targets' criterion)",
                    accepts=_criterion,
                    shape=f"one of {' | '.join(CRITERIA)}"),
             Option("targets", "any", None, "the target column(s) of infogain, lsd and selection"
                    " (several: their criteria are summed; unset: the columns with role target)",
                    optional=True, accepts=_targets, shape="a column name or a list of them"),
             Option("selections", "any", None, "the selection criterion's predicates: a list of"
                    " {attribute: [lo, hi] or [label, ...]} rectangles (numeric ranges closed; labels are leaves or"
                    " hierarchy nodes)",
                    optional=True, accepts=_selections, shape="a list of predicates")),
    # every per-class model; the release-level risk models (average risk, uniqueness) are refused: a region is
    # judged alone, and a figure of the whole release cannot be judged one region at a time
    models=frozenset({"KAnonymity", "HighestRisk", "KMap", "DistinctLDiversity", "EntropyLDiversity",
                      "RecursiveCLDiversity", "TCloseness", "SquaredErrorDiversity", "BetaLikeness",
                      "DeltaDisclosure"}),
    suppresses=False,
    distributed=DISTRIBUTION,  # its options (fragments, sample_rows) come after the options above
    # one run per choice that selects other kernels: median under k alone (its own kernel, compiled apart), strict or
    # relaxed; any other criterion (every criterion and every set of per-class models is one type to the general
    # kernel: infogain compiles it, the others run their preparation and judges) (seconds: each run after those
    # before it in its set, on an empty cache, python-svc 2-core machine, 2026-11-27)
    warm_ups=(WarmUp("median", kernels="median", seconds=5.4),
              WarmUp("median relaxed", options={"strict": False}, kernels="median", seconds=0.1),
              WarmUp("infogain", options={"criterion": "infogain"}, targets=("diagnosis",), seconds=29.0),
              WarmUp("lsd", options={"criterion": "lsd"}, targets=("length_of_stay",), seconds=0.1),
              WarmUp("selection", options={"criterion": "selection", "selections": SELECTION},
                     targets=("diagnosis",), seconds=0.1),
              WarmUp("entropy l-diversity", ("KAnonymity", "EntropyLDiversity"), seconds=0.1),
              WarmUp("t-closeness (equal)", ("KAnonymity", "TCloseness"), seconds=0.1)),
)
