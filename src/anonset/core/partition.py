"""``Partition``: what every anonymization method produces and every metric scores.

A partition assigns records to equivalence classes (``row_class``, −1 for a
suppressed record) and gives each class, per quasi-identifier, a generalized
value: a node of the attribute's hierarchy (:class:`HierarchyNodes`) or a
numeric interval (:class:`Intervals`).  Inside a full-domain search a
partition may be built from class statistics alone (``row_class`` is then
``None``); metrics that need record-level detail say so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonset.core.dataset import Dataset, row_values
from anonset.core.stats import ClassStats

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["GeneralizedValues", "HierarchyNodes", "Intervals", "Partition", "grown_partition",
           "partition_of_assignment"]


@dataclass(frozen=True, eq=False)
class HierarchyNodes:
    """Per class, a node of the attribute's hierarchy: its level and its code at that level."""

    levels: NDArray[np.int16]
    codes: NDArray[np.int32]

    def take(self, index: NDArray[np.int64]) -> HierarchyNodes:
        """The values of the selected classes."""
        return HierarchyNodes(self.levels[index], self.codes[index])


@dataclass(frozen=True, eq=False)
class Intervals:
    """Per class, a closed numeric interval ``[lo, hi]``; optionally the one number released in its place.

    ``shown`` is set when a class is released as one number standing for its
    records (microaggregation: the group's mean or median) rather than as
    its range; ``[lo, hi]`` is then the range of the values the number
    replaced, which the loss metrics score.  NaN in ``shown``: the class
    holds no value of the attribute (released as ``*``).
    """

    lo: NDArray[np.float64]
    hi: NDArray[np.float64]
    shown: NDArray[np.float64] | None = None

    def take(self, index: NDArray[np.int64]) -> Intervals:
        """The values of the selected classes."""
        return Intervals(self.lo[index], self.hi[index], None if self.shown is None else self.shown[index])


GeneralizedValues = HierarchyNodes | Intervals


@dataclass(frozen=True, eq=False)
class Partition:
    """Equivalence classes of a release with their generalized values.

    Attributes
    ----------
    values : mapping of str to GeneralizedValues
        Per quasi-identifier, one generalized value per (released) class.
    sizes : numpy.ndarray
        (c,) int64 records per released class.
    n_suppressed : int
        Records suppressed (in no class).
    row_class : numpy.ndarray or None
        (n,) int64 class of each record, −1 when suppressed.
    blanks_match_any : bool
        A quasi-identifier released at its top level (``*``) in some classes
        only is a blanked value, which matches any value (local suppression):
        a record is then indistinguishable from every record that agrees
        with it wherever both show a value, and k is judged on those
        records, not on the identical rows alone.
    """

    values: Mapping[str, GeneralizedValues]
    sizes: NDArray[np.int64]
    n_suppressed: int
    row_class: NDArray[np.int64] | None = None
    blanks_match_any: bool = False

    @property
    def n_classes(self) -> int:
        """Number of released classes."""
        return len(self.sizes)

    @property
    def n_rows(self) -> int:
        """All records, suppressed ones included."""
        return int(self.sizes.sum()) + self.n_suppressed

    @classmethod
    def from_node(cls, quasi: tuple[str, ...], stats: ClassStats, kept: NDArray[np.bool_],
                  row_class: NDArray[np.int64] | None = None) -> Partition:
        """The partition of a full-domain node: classes of ``stats`` with ``kept`` True are released.

        ``row_class`` indexes ``stats``'s classes; it is renumbered to the kept classes.
        """
        assert stats.levels is not None
        index = np.flatnonzero(kept)
        values = {
            q: HierarchyNodes(np.full(len(index), stats.levels[j], dtype=np.int16), stats.keys[index, j])
            for j, q in enumerate(quasi)
        }
        rc = None
        if row_class is not None:
            new_id = np.full(stats.n_classes, -1, dtype=np.int64)
            new_id[index] = np.arange(len(index))
            rc = new_id[row_class]
        n_supp = int(stats.sizes[~kept].sum())
        return cls(values=values, sizes=stats.sizes[index], n_suppressed=n_supp, row_class=rc)


def partition_of_assignment(dataset: Dataset, row_class: NDArray[np.integer[Any]]) -> Partition:
    """The partition of any row -> class assignment (−1 = suppressed), as local-recoding methods produce.

    Each class's generalized value is, for a quasi-identifier compared by
    value (numeric, date, ordinal: :func:`anonset.core.dataset.row_values`), the
    interval ``[min, max]`` of its values (ranks for an ordinal one), and for
    any other, the lowest common ancestor of its values in the attribute's
    hierarchy (the lowest
    level at which they all share one node).  Computed with one sort of the
    rows by class and segment reductions, no per-class Python loop.
    """
    classes = np.asarray(row_class, dtype=np.int64)
    kept = np.flatnonzero(classes >= 0)
    n_classes = int(classes.max()) + 1 if len(kept) else 0
    order = kept[np.argsort(classes[kept], kind="stable")]
    sizes = np.bincount(classes[kept], minlength=n_classes).astype(np.int64)
    if (sizes == 0).any():
        raise ValueError("class ids must be 0..c-1 with every class non-empty")
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]) if n_classes else np.zeros(0, dtype=np.int64)
    values: dict[str, GeneralizedValues] = {}
    for q in dataset.quasi:
        col = dataset.encoded[q]
        codes = col.row_codes()[order]
        by_value = row_values(dataset, q)
        if by_value is not None:
            numbers = by_value[order]
            values[q] = Intervals(np.minimum.reduceat(numbers, starts) if n_classes else np.zeros(0),
                                  np.maximum.reduceat(numbers, starts) if n_classes else np.zeros(0))
            continue
        h = dataset.require_hierarchy(q)
        lca_level = np.full(n_classes, h.max_level, dtype=np.int16)
        lca_code = np.zeros(n_classes, dtype=np.int32)
        found = np.zeros(n_classes, dtype=np.bool_)
        for level in range(h.n_levels):
            at_level = h.maps[level][codes]
            low = np.minimum.reduceat(at_level, starts) if n_classes else at_level[:0]
            high = np.maximum.reduceat(at_level, starts) if n_classes else at_level[:0]
            uniform = (low == high) & ~found
            lca_level[uniform] = level
            lca_code[uniform] = low[uniform]
            found |= uniform
        values[q] = HierarchyNodes(lca_level, lca_code)
    return Partition(values=values, sizes=sizes, n_suppressed=int((classes < 0).sum()), row_class=classes)


def grown_partition(fitted: Dataset, fitted_class: NDArray[np.integer[Any]], new: Dataset,
                    new_class: NDArray[np.integer[Any]]) -> Partition:
    """The partition of new records placed into fitted classes, each class grown by the records it took.

    A class's generalized value for the new records covers its fitted records
    and the new records it took (the interval of both, the lowest common
    ancestor of both).  Only classes that took a new record are in the
    result, renumbered ``0 .. c - 1`` in class-id order; ``row_class``
    refers to the new records (−1 stays suppressed).

    Parameters
    ----------
    fitted : Dataset
        The records the classes were formed on (in memory).
    fitted_class : numpy.ndarray
        (n,) class of each fitted record.
    new : Dataset
        The new records, with the fitted quasi-identifiers and hierarchies.
    new_class : numpy.ndarray
        (m,) class of each new record, −1 when suppressed.
    """
    if fitted.table is None or new.table is None:
        raise ValueError("grown_partition needs both datasets in memory")
    quasi = list(fitted.quasi)
    both = pd.concat([fitted.table[quasi], new.table[quasi]], ignore_index=True)
    specs = {q: s for q, s in fitted.resolved_specs().items() if q in fitted.quasi}
    combined = Dataset(both, specs, source=new.source)
    new_class = np.asarray(new_class, dtype=np.int64)
    whole = partition_of_assignment(combined, np.concatenate([np.asarray(fitted_class, dtype=np.int64), new_class]))
    taken = np.unique(new_class[new_class >= 0])
    renumber = np.full(whole.n_classes, -1, dtype=np.int64)
    renumber[taken] = np.arange(len(taken))
    row_class = np.where(new_class >= 0, renumber[np.maximum(new_class, 0)], -1)
    sizes = np.bincount(row_class[row_class >= 0], minlength=len(taken)).astype(np.int64)
    values = {q: v.take(taken) for q, v in whole.values.items()}
    return Partition(values=values, sizes=sizes, n_suppressed=int((row_class < 0).sum()), row_class=row_class)
