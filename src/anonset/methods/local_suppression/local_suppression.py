"""The ``local-suppression`` method: sdcMicro's local suppression, single values blanked until k-anonymity holds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anonset.methods.base import Family, Method, Option, Problem

if TYPE_CHECKING:
    from anonset.methods.local_suppression.grouping import CellGrouping

__all__ = ["METHOD"]


def _fit(problem: Problem) -> CellGrouping:
    from anonset.methods.local_suppression.grouping import local_suppression

    return local_suppression(problem.dataset, problem.requirements, **problem.options)


METHOD = Method(
    name="local-suppression",
    family=Family.GROUPING,
    summary="local suppression (sdcMicro's heuristic): the least important values blanked, record by record, until"
            " every record's values are shared by k records, a blank matching any value",
    fit=_fit,
    options=(Option("importance", "names", None, "the quasi-identifiers from the one to keep longest to the one to"
                    " blank first (unset: fewer distinct values are kept longer)", optional=True),
             Option("strata", "names", None, "columns whose every combination is made k-anonymous on its own"
                    " (unset: the whole table)", optional=True)),
    models=frozenset({"KAnonymity"}),
    suppresses=False,
    blanks_match_any=True,
)
