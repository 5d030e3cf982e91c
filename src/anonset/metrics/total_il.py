"""Byun et al.'s information loss (DASFAA 2007, Definitions 5 and 6): the one implementation.

The information loss of an equivalence class ``e`` is

.. math::

    IL(e) = |e| \\cdot \\Big(\\sum_{N} w_N \\frac{\\max_e N - \\min_e N}{|N|}
            + \\sum_{C} w_C \\frac{H(\\Lambda(\\cup_e C))}{H(T_C)}\\Big)

where ``|N|`` is a value-compared attribute's range in the data (numeric,
date, ordinal: :func:`anonset.core.dataset.row_values`), ``Λ(∪_e C)`` the
lowest common ancestor of the class's values in ``C``'s hierarchy and ``H``
a node's level (the hierarchy's height for ``T_C``); ``w`` are the attribute
weights (1 without weights).  Total-IL is the sum over classes.

:class:`TotalIL` scores any partition, cell by cell (a suppressed cell costs
1), and bounds the full-domain search; :func:`cluster_information_loss` and
:func:`information_loss` score a row -> cluster assignment (what greedy
k-member minimizes) through the same per-class costs, on the partition
:func:`anonset.core.partition.partition_of_assignment` derives from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.partition import GeneralizedValues, Partition, partition_of_assignment
from anonset.metrics.base import CellMetric
from anonset.metrics.cell_metrics import level_share

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["TotalIL", "cluster_information_loss", "information_loss"]


class TotalIL(CellMetric):
    """Byun et al.'s Total information loss: Σ over classes of |e| · (Σ numeric (max − min)/range + Σ H(Λ)/H(T)).

    Per cell: a numeric interval's share of the attribute's range, or the
    level of the class's common ancestor over the hierarchy's height (the
    LCA's subtree height over the tree's, for equal-depth hierarchies); a
    suppressed cell costs 1.  Summed over all cells (weighted when weights are given).
    """

    name = "total_il"
    direction = "loss"

    def class_costs(self, dataset: Dataset, attribute: str, values: GeneralizedValues) -> NDArray[np.float64]:
        """(max − min)/range, or level / height."""
        return level_share(dataset, attribute, values)

    def combine(self, dataset: Dataset, sums: NDArray[np.float64]) -> float | NDArray[np.float64]:
        """Weighted sum over attributes."""
        return cast("float | NDArray[np.float64]", (sums * self.attribute_weights(dataset)).sum(axis=-1))

    def class_losses(self, partition: Partition, dataset: Dataset) -> NDArray[np.float64]:
        """``IL(e)`` of every released class of ``partition`` (suppressed records are in no class)."""
        w = self.attribute_weights(dataset)
        per_record = np.zeros(partition.n_classes)
        for j, q in enumerate(dataset.quasi):
            per_record += w[j] * self.class_costs(dataset, q, partition.values[q])
        return np.asarray(partition.sizes * per_record, dtype=np.float64)


def cluster_information_loss(dataset: Dataset, labels: NDArray[np.integer[Any]],
                             weights: Mapping[str, float] | None = None) -> NDArray[np.float64]:
    """IL of every cluster of a partition (Definition 5 of Byun et al.).

    Parameters
    ----------
    dataset : Dataset
        The in-memory dataset the partition is of.
    labels : numpy.ndarray
        Cluster id per row, ids ``0 .. c - 1``.
    weights : mapping of str to float, optional
        Attribute weights (1 when not given; :func:`anonset.core.weights.weight_vector`).

    Returns
    -------
    numpy.ndarray
        float64 ``IL(e)`` of cluster ``e`` at index ``e`` (0 for an id with no rows).
    """
    labels = np.asarray(labels, dtype=np.int64)
    if labels.shape != (dataset.n_rows,):
        raise ValueError(f"labels must have one entry per row ({dataset.n_rows}); got shape {labels.shape}")
    if (labels < 0).any():
        raise ValueError("labels must be cluster ids >= 0 (no record is suppressed in a clustering)")
    n_clusters = int(labels.max()) + 1 if len(labels) else 0
    present = np.flatnonzero(np.bincount(labels, minlength=n_clusters))
    partition = partition_of_assignment(dataset, np.searchsorted(present, labels))
    out = np.zeros(n_clusters)
    out[present] = TotalIL(weights).class_losses(partition, dataset)
    return out


def information_loss(dataset: Dataset, labels: NDArray[np.integer[Any]],
                     weights: Mapping[str, float] | None = None) -> float:
    """Total-IL of a partition: the sum of :func:`cluster_information_loss` (Definition 6).

    Parameters
    ----------
    dataset : Dataset
        The in-memory dataset the partition is of.
    labels : numpy.ndarray
        Cluster id per row, ids ``0 .. c - 1``.
    weights : mapping of str to float, optional
        Attribute weights (1 when not given).

    Returns
    -------
    float
        Total information loss; 0 for a partition into identical-record clusters.
    """
    return float(cluster_information_loss(dataset, labels, weights).sum())
