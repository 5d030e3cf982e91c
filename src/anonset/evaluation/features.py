"""Regions become points: each record's generalized quasi-identifiers as 2·d numbers a standard learner reads.

LeFevre et al. map a d-dimensional box to 2·d numbers, the lower and upper
bound per attribute, so that models run unmodified on anonymized data.  Every
quasi-identifier gets a *coordinate* per leaf:

- an attribute compared by value (:func:`anonset.core.dataset.row_values`:
  numeric, date, ordinal): the leaf's number, date or rank;
- any other: the leaf's position in a depth-first order of its hierarchy
  (leaves sorted by their ancestors from the root down), so the leaves under
  any node occupy one contiguous run of positions.

A generalized value then becomes the interval of coordinates it covers: an
``Intervals`` value is its ``[lo, hi]`` (the point ``(m, m)`` for a class
released as one number ``m``, as microaggregation releases it: what the
learner is shown); a hierarchy node the smallest and
largest coordinate of the leaves under it.  An original record is the point
``(c, c)`` per attribute, so original and anonymized data live in the same
feature space.  A suppressed record (or one that fits no class) gets the whole
domain, as a fully generalized record would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from anonset.core.dataset import Dataset, row_values
from anonset.core.partition import HierarchyNodes, Intervals, Partition

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["feature_names", "level_features", "original_features", "partition_features"]


def feature_names(dataset: Dataset) -> list[str]:
    """``q.lo``, ``q.hi`` for every quasi-identifier ``q``, in dataset order."""
    return [f"{q}.{end}" for q in dataset.quasi for end in ("lo", "hi")]


def _leaf_coordinates(dataset: Dataset, name: str) -> NDArray[np.float64]:
    """Coordinate of each leaf code of a quasi-identifier (its number, or its depth-first position)."""
    enc = dataset.encoded[name]
    if row_values(dataset, name) is not None:
        assert enc.numbers is not None
        return np.asarray(enc.numbers, dtype=np.float64)  # NaN only for leaves no record holds
    h = dataset.require_hierarchy(name)
    path = np.column_stack([np.asarray(h.maps[lv], dtype=np.int64) for lv in range(h.max_level, -1, -1)])
    order = np.lexsort(path.T[::-1])
    position = np.empty(h.n_leaves, dtype=np.float64)
    position[order] = np.arange(h.n_leaves)
    return position


def _node_bounds(dataset: Dataset, name: str, coords: NDArray[np.float64],
                 level: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Smallest and largest leaf coordinate under every node of one hierarchy level."""
    h = dataset.require_hierarchy(name)
    nodes = np.asarray(h.maps[level], dtype=np.int64)
    n_nodes = int(nodes.max()) + 1 if len(nodes) else 0
    lo = np.full(n_nodes, np.inf)
    hi = np.full(n_nodes, -np.inf)
    np.fmin.at(lo, nodes, coords[: len(nodes)])
    np.fmax.at(hi, nodes, coords[: len(nodes)])
    return lo, hi


def original_features(dataset: Dataset) -> NDArray[np.float64]:
    """(n, 2d) float64: every record as the point ``(c, c)`` per quasi-identifier."""
    out = np.empty((dataset.n_rows, 2 * len(dataset.quasi)))
    for j, q in enumerate(dataset.quasi):
        c = _leaf_coordinates(dataset, q)[dataset.encoded[q].row_codes()]
        out[:, 2 * j] = c
        out[:, 2 * j + 1] = c
    return out


def partition_features(dataset: Dataset, partition: Partition,
                       row_class: NDArray[np.integer[Any]]) -> NDArray[np.float64]:
    """(m, 2d) float64: each record as the box of its class (``row_class`` indexes ``partition``; −1 = whole domain).

    Parameters
    ----------
    dataset : Dataset
        The dataset the partition's values refer to (its hierarchies and numbers).
    partition : Partition
        Classes with their generalized values.
    row_class : numpy.ndarray
        (m,) class of each record to map, −1 when it is suppressed or fits no class.
    """
    row_class = np.asarray(row_class, dtype=np.int64)
    out = np.empty((len(row_class), 2 * len(dataset.quasi)))
    inside = row_class >= 0
    for j, q in enumerate(dataset.quasi):
        coords = _leaf_coordinates(dataset, q)
        values = partition.values[q]
        if isinstance(values, Intervals) and values.shown is not None:
            lo = hi = np.where(np.isnan(values.shown), values.lo, values.shown)
        elif isinstance(values, Intervals):
            lo, hi = np.asarray(values.lo, dtype=np.float64), np.asarray(values.hi, dtype=np.float64)
        else:
            assert isinstance(values, HierarchyNodes)
            lo = np.empty(partition.n_classes)
            hi = np.empty(partition.n_classes)
            for level in np.unique(values.levels):
                at = values.levels == level
                node_lo, node_hi = _node_bounds(dataset, q, coords, int(level))
                lo[at] = node_lo[values.codes[at]]
                hi[at] = node_hi[values.codes[at]]
        out[:, 2 * j] = np.where(inside, lo[np.maximum(row_class, 0)] if len(lo) else 0.0, np.nanmin(coords))
        out[:, 2 * j + 1] = np.where(inside, hi[np.maximum(row_class, 0)] if len(hi) else 0.0, np.nanmax(coords))
    return out


def level_features(dataset: Dataset, levels: tuple[int, ...]) -> NDArray[np.float64]:
    """(n, 2d) float64: every record of ``dataset`` generalized to a full-domain node, as boxes."""
    out = np.empty((dataset.n_rows, 2 * len(dataset.quasi)))
    for j, (q, level) in enumerate(zip(dataset.quasi, levels, strict=True)):
        coords = _leaf_coordinates(dataset, q)
        leaves = dataset.encoded[q].row_codes()
        node = np.asarray(dataset.require_hierarchy(q).maps[level], dtype=np.int64)[leaves]
        node_lo, node_hi = _node_bounds(dataset, q, coords, level)
        out[:, 2 * j] = node_lo[node]
        out[:, 2 * j + 1] = node_hi[node]
    return out
