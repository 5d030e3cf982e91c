"""The ``microaggregation`` method: MDAV's groups of k to 2k − 1 records, numbers released as each group's mean."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonset.methods.base import Family, Method, Option, Problem, WarmUp

if TYPE_CHECKING:
    from anonset.methods.microaggregation.grouping import AggregatedGrouping

__all__ = ["METHOD"]


def _fit(problem: Problem) -> AggregatedGrouping:
    from anonset.methods.microaggregation.grouping import microaggregate

    return microaggregate(problem.dataset, problem.requirements, **problem.options)


METHOD = Method(
    name="microaggregation",
    family=Family.GROUPING,
    summary="microaggregation (MDAV, as in \"Practical data-oriented microaggregation for statistical disclosure"
            " control\"): groups of k to 2k - 1 nearby records, numeric quasi-identifiers released as each group's"
            " mean, the others as what the group shares",
    fit=_fit,
    options=(Option("algorithm", "str", "mdav", "how the groups are formed: mdav (maximum distance to average"
                    " vector, sdcMicro's mdav), or individual-ranking (one attribute sorted and cut k at a time,"
                    " sdcMicro's onedims)", choices=("mdav", "individual-ranking")),
             Option("attributes", "names", None, "the numeric quasi-identifiers to aggregate (unset: every numeric"
                    " one); the other quasi-identifiers are released as what each group shares", optional=True),
             Option("statistic", "str", "mean", "the number each group is released as", choices=("mean", "median")),
             Option("strata", "names", None, "columns whose every combination is grouped on its own, so they keep"
                    " their values (unset: the whole table)", optional=True)),
    models=frozenset({"KAnonymity"}),
    suppresses=False,
    warm_ups=(WarmUp(kernels="mdav", seconds=3.0),),
)
