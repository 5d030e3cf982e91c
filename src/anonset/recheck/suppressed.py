"""What the suppressed records may disclose, and the rule that keeps them from disclosing it.

A suppressed record keeps its row, with ``*`` in every quasi-identifier, so
the suppressed records are released as one group that looks the same on the
quasi-identifiers.  Whoever learns that a person's record was suppressed (for
instance because that person's values appear nowhere else in the release, or
because a report lists which combinations were suppressed) links the person
to that group, exactly as to any released class.  The group's sensitive
values are then as exposed as a class's: six suppressed records that all say
``hiv`` tell the reader that diagnosis.

The rule (:func:`suppressed_group_violations`): the suppressed records,
judged together as one class, must satisfy every privacy model of the
release (at least k records, l-diverse, t-close, ...).  When they do not,
their sensitive values are withheld too: released as ``*``, like their
quasi-identifiers, and the release says so in a warning.  Insensitive
columns, which the configuration declares safe to release as they are, stay.
The independent re-check (:mod:`anonset.recheck.verify`) judges the
released group again from the released values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from anonset.core.stats import ClassStats, stats_from_assignment

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset
    from anonset.privacy.base import Requirements

__all__ = ["group_of_rows", "suppressed_group_violations", "withheld_warning"]


def group_of_rows(dataset: Dataset, rows: NDArray[np.bool_], requirements: Requirements) -> ClassStats:
    """The statistics the requirements need of the records ``rows`` (a boolean mask), as one class."""
    return stats_from_assignment(dataset, np.where(rows, 0, -1).astype(np.int64), requirements.request)


def suppressed_group_violations(dataset: Dataset, group: ClassStats, requirements: Requirements) -> list[str]:
    """The models the suppressed records break as one group, when releasing their sensitive values would expose them.

    Empty when there is nothing to withhold: no suppressed record, or no
    sensitive column (the other columns are released as they are by
    declaration).

    Parameters
    ----------
    dataset : Dataset
        The input (its sensitive columns).
    group : ClassStats
        The suppressed records as one class (empty when none is suppressed),
        e.g. :func:`group_of_rows`, or the violating classes of a node merged
        (:meth:`ClassStats.merged`).
    requirements : Requirements
        What the release satisfies.
    """
    if not dataset.sensitive or group.n_classes == 0 or group.n_rows == 0:
        return []
    return requirements.violated_by_group(group)


def withheld_warning(suppressed: int, columns: tuple[str, ...], violated: list[str]) -> str:
    """The warning of a release that withheld the suppressed records' sensitive values."""
    names = ", ".join(repr(c) for c in columns)
    whose = "the suppressed record" if suppressed == 1 else f"the {suppressed:,} suppressed records"
    group = "alone it would" if suppressed == 1 else "as one group they would"
    return (f"the sensitive values ({names}) of {whose} are withheld too (released as *): {group} break"
            f" {' and '.join(violated)}, so anyone who learns that a person was suppressed would learn them")
