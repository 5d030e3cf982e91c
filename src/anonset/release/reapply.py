"""A learned recoding applied to new records (``Anonymizer.transform``): their partition, and what it violates.

The guarantee of a fitted release does not carry over to new records by
itself: a full-domain node (a search's, or a front member's) or a grouping's
classes applied to them give a new partition, which is judged again.  These
functions return that partition with the violation in words, or None; the
Anonymizer decides what a violation does (``on_violation``) and builds the
release (:mod:`anonset.release.build`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

import numpy as np
import pandas as pd
import pyarrow as pa

from anonset.core.dataset import Dataset, row_values
from anonset.core.grouping import Grouping, PartitionedGrouping
from anonset.core.partition import HierarchyNodes, Partition, grown_partition
from anonset.core.stats import stats_from_assignment
from anonset.engine.numpy.engine import NumpyEngine
from anonset.errors import ConfigError, DataError, HierarchyError
from anonset.privacy.base import Requirements
from anonset.risk.survey import key_frequencies

__all__ = ["check_fitted_range", "grouping_on_new_records", "new_records", "node_on_new_records"]


def new_records(data: pd.DataFrame | pa.Table | Dataset, fitted: Dataset, source: str) -> Dataset:
    """New records encoded with the attributes and hierarchies the recoding was fitted on.

    A column the fitted dataset did not declare stays undeclared.

    Raises
    ------
    ConfigError
        A dataset of a table in a database (transform needs the records in memory).
    HierarchyError
        A value the fitted recoding does not cover.
    """
    if isinstance(data, Dataset):
        if not data.in_memory:
            raise ConfigError(f"{data.source}: transform() is not supported for tables in a database yet;"
                              " fit on that table instead, or pass the new records as a DataFrame")
        source = data.source
        data = data.arrow if data.arrow is not None else cast(pd.DataFrame, data.table)
    columns = set(map(str, data.column_names if isinstance(data, pa.Table) else data.columns))
    specs = {name: s for name, s in fitted.resolved_specs().items()
             if name in columns and name in fitted.attributes}  # an undeclared column stays undeclared
    try:
        return Dataset(data, specs, source=source)
    except HierarchyError as exc:
        raise HierarchyError(f"new records the recoding fitted on {fitted.source} does not cover: {exc}; or refit"
                             " on data that includes them") from None


def node_on_new_records(dataset: Dataset, learned: Mapping[str, int], requirements: Requirements, *,
                        cells: bool = False, importance: Sequence[str] | None = None
                        ) -> tuple[tuple[int, ...], Partition, str | None]:
    """The learned full-domain node applied to new records: its levels, partition and violation (or None).

    Classes that violate ``requirements`` are suppressed while the budget
    allows (with ``cells``, their records lose single values instead, by
    ``importance``, as the fit's did); beyond it the violation is said and
    every class is kept.
    """
    engine = NumpyEngine(dataset, requirements.request)
    levels = tuple(learned[q] for q in dataset.quasi)
    row_class, stats = engine.row_classes(levels)
    verdict = requirements.judge(stats, dataset.n_rows)
    if verdict.feasible and cells:
        from anonset.methods.local_suppression.grouping import cells_instead_of_records

        partition, _ = cells_instead_of_records(dataset, levels, stats.keys[row_class].astype(np.int64),
                                                requirements.k, importance)
        return levels, partition, None
    if verdict.feasible:
        return levels, Partition.from_node(dataset.quasi, stats, verdict.kept, row_class), None
    message = (f"the learned recoding {dict(learned)} applied to {dataset.source} leaves {verdict.suppressed_rows}"
               f" records in classes violating {requirements.describe()}; the budget allows"
               f" {verdict.budget_rows}")
    kept = np.ones(stats.n_classes, dtype=np.bool_)
    return levels, Partition.from_node(dataset.quasi, stats, kept, row_class), message


def grouping_on_new_records(fitted: Dataset, grouping: Grouping, dataset: Dataset, requirements: Requirements,
                            method: str) -> tuple[Partition, str | None]:
    """New records placed into the fitted classes, the classes' values grown: the partition and its violation.

    A partitioning method suppresses nothing, so any violating class, or
    records that fit no class beyond the budget, is a violation.

    Raises
    ------
    DataError
        A new value outside the range the classes were learned on (:func:`check_fitted_range`).
    """
    check_fitted_range(fitted, dataset)
    row_class = grouping.assign(dataset)
    if isinstance(grouping, PartitionedGrouping):  # the classes keep the values the method gave them
        partition = grouping.partition(dataset, row_class)
        if partition.blanks_match_any:
            return partition, _blank_matches_violation(partition, dataset, requirements, method)
    else:
        partition = grown_partition(fitted, grouping.row_class, dataset, row_class)
    assert partition.row_class is not None
    stats = stats_from_assignment(dataset, partition.row_class, requirements.request)
    verdict = requirements.judge(stats, dataset.n_rows)
    if not (verdict.violating.any() or partition.n_suppressed > verdict.budget_rows):
        return partition, None
    return partition, (f"the learned {method} classes applied to {dataset.source} leave"
                       f" {verdict.suppressed_rows} records in classes violating {requirements.describe()}"
                       + (f" and {partition.n_suppressed} records that fit no class" if partition.n_suppressed
                          else "") + " (a partitioning method suppresses nothing)")


def _blank_matches_violation(partition: Partition, dataset: Dataset, requirements: Requirements,
                             method: str) -> str | None:
    """What the new records' classes violate when a blank (a class's value at the top level) matches any value."""
    keys = np.zeros((partition.n_classes, len(dataset.quasi)), dtype=np.int64)
    for j, q in enumerate(dataset.quasi):
        values = cast(HierarchyNodes, partition.values[q])
        keys[:, j] = np.where(values.levels == 0, values.codes, -1)
    matched = key_frequencies(keys, counts=partition.sizes).fk
    short = int(partition.sizes[matched < requirements.k].sum())
    if not short and not partition.n_suppressed:
        return None
    return (f"the learned {method} classes applied to {dataset.source} leave {short} records matched by fewer than"
            f" {requirements.k} records" + (f" and {partition.n_suppressed} records that fit no class"
                                            if partition.n_suppressed else ""))


def check_fitted_range(fitted: Dataset, new: Dataset) -> None:
    """Refuse new records whose value lies outside the range the classes were learned on.

    A class would have to widen beyond the data it was learned on (a class
    ``57-60`` becoming ``57-150`` for one new record), which is a new
    generalization no check was made for when fitting.
    """
    for q in new.quasi:
        new_values = row_values(new, q)
        fitted_values = row_values(fitted, q)
        if new_values is None or fitted_values is None or not len(fitted_values):
            continue
        lo, hi = float(np.nanmin(fitted_values)), float(np.nanmax(fitted_values))
        outside = np.flatnonzero((new_values < lo) | (new_values > hi))
        if len(outside):
            new_column, fitted_column = new.column(q), fitted.column(q)
            shown = new_column.iloc[outside[:3]].astype(str).tolist()
            low, high = (str(fitted_column.iloc[int(np.nanargmin(fitted_values))]),
                         str(fitted_column.iloc[int(np.nanargmax(fitted_values))]))
            raise DataError(f"{new.source}, column {q!r}: {len(outside)} new record(s) outside the range the classes"
                            f" were learned on ({low} to {high}), e.g. {', '.join(repr(v) for v in shown)}; the"
                            " learned classes cannot take them without widening beyond their data: refit on data"
                            " that includes them, or remove them")
