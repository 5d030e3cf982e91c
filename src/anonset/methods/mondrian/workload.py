"""Building a Mondrian split criterion from a workload: the data, the targets, the selections, and k.

The factories of :data:`anonset.methods.mondrian.regions.CRITERIA` (``median``,
``infogain``, ``lsd``, ``selection``) each take a :class:`Workload`, check
its targets and selections with one-line errors, and return a criterion.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from anonset.core.attribute_space import AttributeSpace
from anonset.core.dataset import AttributeType, Dataset, Role
from anonset.core.selections import RANGE_TYPES, Predicate, compile_selections
from anonset.core.targets import target_columns
from anonset.errors import ConfigError
from anonset.methods.mondrian.criteria import InfoGainCriterion, LSDCriterion
from anonset.methods.mondrian.selection import SelectionCriterion
from anonset.methods.mondrian.split import MedianCriterion, SplitCriterion

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Workload", "class_codes", "infogain_criterion", "lsd_criterion", "median_criterion", "numeric_targets",
           "selection_criterion"]


@dataclass(frozen=True, eq=False)
class Workload:
    """What a criterion is built from: the data, the targets and selections asked for, and k.

    Attributes
    ----------
    dataset : Dataset
        The in-memory dataset.
    space : AttributeSpace
        Its quasi-identifiers as Mondrian splits them.
    targets : tuple of str or None
        Target columns named by the caller; None for the columns with role ``target``.
    selections : tuple of Predicate or None
        Selection predicates named by the caller.
    min_size : int
        The k of k-anonymity (1 without it): cuts leaving fewer records are no candidates.
    """

    dataset: Dataset
    space: AttributeSpace
    targets: tuple[str, ...] | None
    selections: tuple[Predicate, ...] | None
    min_size: int = 1


def _target_names(work: Workload) -> tuple[str, ...]:
    """The targets named, or else every column with role target.

    A named target may be any column but a quasi-identifier, a sensitive attribute or an identifier
    (Mondrian's own rule: an insensitive column may serve); unnamed ones are
    :func:`anonset.core.targets.target_columns`.
    """
    ds = work.dataset
    if work.targets is None:
        return target_columns(ds)
    for name in work.targets:
        if name not in ds.specs:
            raise ConfigError(f"mondrian: target {name!r} is not a column; columns are {', '.join(ds.specs)}")
        role = ds.specs[name].role
        if role in (Role.QUASI, Role.SENSITIVE, Role.IDENTIFIER):
            raise ConfigError(f"mondrian: target {name!r} is a {role.value} attribute; a target must be neither"
                              " a quasi-identifier nor sensitive (give it role target)")
    return work.targets


def _is_numeric(dataset: Dataset, name: str) -> bool:
    return dataset.specs[name].type in RANGE_TYPES


def class_codes(dataset: Dataset, targets: Sequence[str]) -> NDArray[np.int64]:
    """(t, n) int64 class codes of categorical targets, read from the raw table (each value a class, missing too).

    Raises
    ------
    ConfigError
        A numeric or date target, or a target with a single class.
    """
    assert dataset.table is not None
    out = np.zeros((len(targets), dataset.n_rows), dtype=np.int64)
    for t, name in enumerate(targets):
        if _is_numeric(dataset, name):
            raise ConfigError(f"mondrian: infogain needs categorical targets; {name!r} is"
                              f" {dataset.specs[name].type.value} (use criterion lsd, or declare it categorical)")
        uniques, codes = np.unique(dataset.table[name].astype(str).to_numpy(), return_inverse=True)
        if len(uniques) < 2:
            raise ConfigError(f"mondrian: target {name!r} has a single class ({uniques[0]!r}); InfoGain needs"
                              " at least two (choose another target)")
        out[t] = codes.reshape(-1)
    return out


def numeric_targets(dataset: Dataset, targets: Sequence[str]) -> NDArray[np.float64]:
    """(t, n) float64 values of numeric targets, read from the raw table.

    Raises
    ------
    ConfigError
        A target not declared numeric, or a value that is not a number.
    """
    assert dataset.table is not None
    out = np.zeros((len(targets), dataset.n_rows))
    for t, name in enumerate(targets):
        if dataset.specs[name].type is not AttributeType.NUMERIC:
            raise ConfigError(f"mondrian: lsd needs numeric targets; {name!r} is"
                              f" {dataset.specs[name].type.value} (declare it with type numeric, or use infogain)")
        raw = dataset.table[name]
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(values))
        if len(bad):
            raise ConfigError(f"mondrian: numeric target {name!r} has the non-numeric value {raw.iloc[bad[0]]!r}"
                              f" (row {bad[0]}); clean the column or drop those rows")
        out[t] = values
    return out


def _refuse_unused(work: Workload, criterion: str, targets: bool, selections: bool) -> None:
    if not targets and work.targets is not None:
        raise ConfigError(f"mondrian: criterion {criterion} uses no targets; drop targets or use infogain, lsd"
                          " or selection")
    if not selections and work.selections is not None:
        raise ConfigError(f"mondrian: criterion {criterion} uses no selections; drop selections or use"
                          " criterion selection")


def median_criterion(work: Workload) -> MedianCriterion:
    """Median Mondrian (no targets, no selections)."""
    _refuse_unused(work, "median", targets=False, selections=False)
    return MedianCriterion()


def infogain_criterion(work: Workload) -> InfoGainCriterion:
    """InfoGain Mondrian for the workload's categorical targets (at least one)."""
    _refuse_unused(work, "infogain", targets=True, selections=False)
    names = _target_names(work)
    if not names:
        raise ConfigError("mondrian: criterion infogain needs a categorical target; name it in targets or give a"
                          " column role target (or use criterion median)")
    return InfoGainCriterion(class_codes(work.dataset, names), work.min_size)


def lsd_criterion(work: Workload) -> LSDCriterion:
    """LSD Mondrian for the workload's numeric targets (at least one)."""
    _refuse_unused(work, "lsd", targets=True, selections=False)
    names = _target_names(work)
    if not names:
        raise ConfigError("mondrian: criterion lsd needs a numeric target; name it in targets or give a numeric"
                          " column role target (or use criterion median)")
    return LSDCriterion(numeric_targets(work.dataset, names), work.min_size)


def selection_criterion(work: Workload) -> SelectionCriterion:
    """Selection Mondrian, handing over to InfoGain (categorical targets), LSD (numeric) or median (none)."""
    if not work.selections:
        raise ConfigError("mondrian: criterion selection needs at least one predicate in selections, such as"
                          " [{age: [20, 39], sex: [M]}]")
    compiled = compile_selections(work.dataset, work.space, work.selections)
    names = _target_names(work)
    then: SplitCriterion
    if not names:
        then = MedianCriterion()
    elif all(_is_numeric(work.dataset, t) for t in names):
        then = LSDCriterion(numeric_targets(work.dataset, names), work.min_size)
    elif not any(_is_numeric(work.dataset, t) for t in names):
        then = InfoGainCriterion(class_codes(work.dataset, names), work.min_size)
    else:
        raise ConfigError(f"mondrian: targets {', '.join(names)} mix numeric and categorical columns; selection"
                          " continues with one criterion (infogain or lsd): name targets of one kind")
    return SelectionCriterion(compiled, then, work.min_size)
