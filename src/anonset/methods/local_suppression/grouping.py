"""Local suppression as a partitioning method: the released keys are its classes, a blank (``*``) matches any value.

:func:`local_suppression` blanks values (:func:`~anonset.methods.local_suppression.blanking.blank_to_k`)
and returns a :class:`CellGrouping`: the records with the same released
values form a class, released at each quasi-identifier's own value (level 0)
or at its top level ``*`` where it was blanked.  A value the input lacks (a
declared missing marker) matches any value too, and is released as ``*``.
The classes may hold fewer than k records; each is shared, a blank matching
any value, by k records or more, and the release is re-checked that way
(:attr:`~anonset.core.partition.Partition.blanks_match_any`).

New records (``assign``) join a class whose shown values they all have (the
class with most records when several match); the new release is re-checked
the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from anonset.core.dataset import Dataset
from anonset.core.partition import GeneralizedValues, HierarchyNodes, Partition
from anonset.errors import ConfigError, InfeasibleError
from anonset.methods.local_suppression.blanking import blank_to_k
from anonset.privacy.base import Requirements
from anonset.risk.survey import combination_keys
from anonset.risk.survey_report import missing_as_negative

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["CellGrouping", "blanked_partition", "cells_instead_of_records", "local_suppression"]


@dataclass(frozen=True, eq=False)
class CellGrouping:
    """The classes of a local-suppression release.

    Attributes
    ----------
    row_class : numpy.ndarray
        (n,) class of each fitted record.
    keys : numpy.ndarray
        (c, d) per class and quasi-identifier: the leaf code shown, −1 blank.
    blanked : numpy.ndarray
        (n, d) the values local suppression blanked (values missing in the input not counted).
    quasi : tuple of str
        The quasi-identifiers, in the order of the columns.
    """

    row_class: NDArray[np.int64]
    keys: NDArray[np.int64]
    blanked: NDArray[np.bool_]
    quasi: tuple[str, ...]

    @property
    def cells(self) -> dict[str, int]:
        """Values blanked per quasi-identifier."""
        return {q: int(n) for q, n in zip(self.quasi, self.blanked.sum(axis=0), strict=True)}

    def assign(self, dataset: Dataset) -> NDArray[np.int64]:
        """Each new record's class: one whose shown values the record has (the largest such), or −1."""
        codes = missing_as_negative(dataset)
        sizes = np.bincount(self.row_class, minlength=len(self.keys))
        out = np.full(len(codes), -1, dtype=np.int64)
        best = np.zeros(len(codes), dtype=np.int64)
        shown = self.keys >= 0
        patterns, pattern_of = np.unique(shown, axis=0, return_inverse=True)
        for p, pattern in enumerate(patterns):
            classes = np.flatnonzero(np.asarray(pattern_of).reshape(-1) == p)  # distinct keys on ``pattern``
            columns = np.flatnonzero(pattern)
            both = combination_keys(np.vstack([self.keys[classes][:, columns], codes[:, columns]]) + 1)
            position = pd.Index(both[:len(classes)]).get_indexer(both[len(classes):])
            holds = (position >= 0) & np.all(codes[:, columns] >= 0, axis=1)
            candidate = np.where(holds, classes[np.maximum(position, 0)], -1)
            larger = holds & (sizes[np.maximum(candidate, 0)] > best)
            out[larger] = candidate[larger]
            best[larger] = sizes[candidate[larger]]
        return out

    def partition(self, dataset: Dataset, row_class: NDArray[np.int64]) -> Partition:
        """The classes' values: each quasi-identifier at its leaf, or at its top level where the class blanks it."""
        return blanked_partition(dataset, self.keys, (0,) * len(self.quasi), row_class)


def blanked_partition(dataset: Dataset, keys: NDArray[np.int64], levels: tuple[int, ...],
                      row_class: NDArray[np.int64]) -> Partition:
    """The partition of classes shown at ``levels`` with blanks: ``keys`` (c, d) the code at each level, −1 blank.

    Only the classes ``row_class`` holds records of are in it (renumbered in
    class order); a blank is the attribute's top level, and matches any value.
    """
    used = row_class >= 0
    present = np.unique(row_class[used])
    renumber = np.full(len(keys), -1, dtype=np.int64)
    renumber[present] = np.arange(len(present))
    classes = np.where(used, renumber[np.maximum(row_class, 0)], -1)
    values: dict[str, GeneralizedValues] = {}
    for j, q in enumerate(dataset.quasi):
        h = dataset.require_hierarchy(q)
        key = keys[present, j]
        top = key < 0
        shown = np.where(top, h.max_level, levels[j]).astype(np.int16)
        codes = np.where(top, h.maps[h.max_level][0], np.maximum(key, 0)).astype(np.int32)
        values[q] = HierarchyNodes(shown, codes)
    sizes = np.bincount(classes[classes >= 0], minlength=len(present)).astype(np.int64)
    return Partition(values=values, sizes=sizes, n_suppressed=int((classes < 0).sum()), row_class=classes,
                     blanks_match_any=True)


def cells_instead_of_records(dataset: Dataset, levels: tuple[int, ...], codes: NDArray[np.int64], k: int,
                             importance: Sequence[str] | None = None) -> tuple[Partition, dict[str, int]]:
    """A full-domain node's records with single values blanked instead of whole records suppressed.

    ``codes`` (n, d): each record's code at ``levels``.  The values of the
    records whose key fewer than k records share are blanked (sdcMicro's
    heuristic, :func:`blank_to_k`, by ``importance``) until every record
    matches k, a blank matching any value; returns the partition (every
    record released) and the values blanked per quasi-identifier.
    """
    rank = _importance_rank(dataset, importance)
    blanking = blank_to_k(codes, k, importance=rank)
    released = np.where(blanking.blanked, -1, codes)
    _, first, row_class = np.unique(combination_keys(released + 1), return_index=True, return_inverse=True)
    partition = blanked_partition(dataset, released[first], levels, np.asarray(row_class, dtype=np.int64).reshape(-1))
    counts = blanking.blanked.sum(axis=0)
    return partition, {q: int(n) for q, n in zip(dataset.quasi, counts, strict=True)}


def _importance_rank(dataset: Dataset, importance: Sequence[str] | None) -> list[int] | None:
    """Each quasi-identifier's rank in ``importance`` (1: kept longest), or None for sdcMicro's default order."""
    if importance is None:
        return None
    order = [str(a) for a in importance]
    if sorted(order) != sorted(dataset.quasi):
        raise ConfigError(f"local suppression's importance must list every quasi-identifier once, from the one"
                          f" to keep longest; got {order}, quasi-identifiers are {', '.join(dataset.quasi)}")
    return [order.index(q) + 1 for q in dataset.quasi]


def local_suppression(dataset: Dataset, requirements: Requirements, importance: Sequence[str] | None = None,
                      strata: Sequence[str] | None = None) -> CellGrouping:
    """Blank the fewest important values until every record's key is shared by k records (see the module docstring).

    ``importance``: the quasi-identifiers from the one to keep longest to the
    one to blank first (default: fewer distinct values kept longer);
    ``strata``: columns whose every combination is made k-anonymous on its own.

    Raises
    ------
    ConfigError
        An importance that is not every quasi-identifier once, a stratum
        column that is not in the table, or a quasi-identifier without a
        hierarchy (its top level is the blank).
    InfeasibleError
        A stratum with fewer than k records.
    """
    for q in dataset.quasi:
        dataset.require_hierarchy(q)
    k = requirements.k
    rank = _importance_rank(dataset, importance)
    groups = None
    if strata:
        missing = [c for c in strata if c not in dataset.columns]
        if missing:
            raise ConfigError(f"{dataset.source}: stratum column {missing[0]!r} is not in the table; columns are"
                              f" {', '.join(dataset.columns)}")
        frame = pd.DataFrame({c: dataset.column(c).astype(str).to_numpy() for c in strata})
        groups = frame.groupby(list(strata), sort=True).ngroup().to_numpy(dtype=np.int64)
    codes = missing_as_negative(dataset)
    try:
        blanking = blank_to_k(codes, k, importance=rank, strata=groups)
    except ValueError as exc:
        raise InfeasibleError(f"{dataset.source}: local suppression cannot reach {k}-anonymity: {exc}") from None
    released = np.where(blanking.blanked, -1, codes)
    _, first, row_class = np.unique(combination_keys(released + 1), return_index=True, return_inverse=True)
    return CellGrouping(np.asarray(row_class, dtype=np.int64).reshape(-1), released[first], blanking.blanked,
                        dataset.quasi)
