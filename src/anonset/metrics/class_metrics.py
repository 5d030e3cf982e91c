"""Metrics of the class structure: discernibility, average class size, non-uniform entropy, classification.

- ``discernibility`` (Bayardo and Agrawal): Σ |E|² over released classes plus
  |D| for every suppressed record.
- ``aecs``: average equivalence class size normalized by k,
  (released records / classes) / k (LeFevre et al.'s C_AVG).
- ``non_uniform_entropy``: Σ over cells of log2(count of records whose value
  falls under the cell's generalized value / count of records with the
  cell's original value), counts taken in the input; a suppressed cell is
  generalized to the root.  Needs record-level detail.
- ``cm`` (Iyengar's classification metric): the share of records suppressed
  or outside their class's majority label of the target column.  Needs
  record-level detail.
"""

from __future__ import annotations

import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.partition import HierarchyNodes, Intervals, Partition
from anonset.core.targets import the_target
from anonset.metrics.base import Metric, node_facts

__all__ = ["AverageClassSize", "ClassificationMetric", "Discernibility", "NonUniformEntropy"]


class Discernibility(Metric):
    """Discernibility metric: Σ|E|² + |D| per suppressed record."""

    name = "discernibility"
    direction = "loss"

    def score(self, partition: Partition, dataset: Dataset) -> float:
        """Σ|E|² + n · suppressed."""
        sizes = partition.sizes.astype(np.float64)
        return float((sizes * sizes).sum() + partition.n_suppressed * float(partition.n_rows))


class AverageClassSize(Metric):
    """(released records / released classes) / k; 1 is ideal."""

    name = "aecs"
    direction = "loss"

    def __init__(self, k: int = 1):
        self.k = max(int(k), 1)

    def score(self, partition: Partition, dataset: Dataset) -> float:
        """Normalized average class size (inf when every record is suppressed)."""
        if partition.n_classes == 0:
            return float("inf")
        return float(partition.sizes.sum() / partition.n_classes / self.k)


class NonUniformEntropy(Metric):
    """Information lost per cell, in bits, with frequencies taken in the input."""

    name = "non_uniform_entropy"
    direction = "loss"
    needs_rows = True

    def score(self, partition: Partition, dataset: Dataset) -> float:
        """Σ_cells log2(count(generalized) / count(original)).

        Summed as Σ_classes |E|·log2(count(E's value)) + suppressed·log2(n)
        − Σ_values count·log2(count), per attribute: every record of a class
        has the same generalized value, and every record of a value the same
        original count, so no per-record array is built.
        """
        if partition.row_class is None:
            raise ValueError("non_uniform_entropy needs record-level detail (Partition.row_class)")
        n = dataset.n_rows
        if n == 0:
            return 0.0
        sizes = partition.sizes.astype(np.float64)
        total = 0.0
        for q in dataset.quasi:
            col = dataset.encoded[q]
            leaf_counts = col.counts().astype(np.float64)
            values = partition.values[q]
            # records in each class's generalized value, counted over the distinct values (not the records)
            if isinstance(values, HierarchyNodes):
                h = dataset.require_hierarchy(q)
                offset = node_facts(dataset, q)[0]
                node_counts = np.concatenate([np.bincount(h.maps[j], weights=leaf_counts, minlength=h.size(j))
                                              for j in range(h.n_levels)])
                per_class = node_counts[offset[values.levels.astype(np.int64)] + values.codes]
            elif isinstance(values, Intervals):
                assert col.numbers is not None
                order = np.argsort(col.numbers, kind="stable")  # missing (NaN) last, as no interval holds it
                ordered = col.numbers[order]
                below = np.concatenate([[0.0], np.cumsum(leaf_counts[order])])
                per_class = (below[np.searchsorted(ordered, values.hi, side="right")]
                             - below[np.searchsorted(ordered, values.lo, side="left")])
            else:
                per_class = np.full(partition.n_classes, float(n))
            held = leaf_counts[leaf_counts > 0]
            total += (float(np.sum(sizes * np.log2(per_class))) + partition.n_suppressed * float(np.log2(n))
                      - float(np.sum(held * np.log2(held))))
        return total


class ClassificationMetric(Metric):
    """Iyengar's classification metric: the share of records whose class label is not their class's majority.

    A record costs 1 when it is suppressed or when its value of the target
    attribute differs from the most frequent value in its equivalence class;
    the sum is divided by the number of records.  The target is the column
    named, which must have role ``target``, or else the only column with that
    role (:func:`anonset.core.targets.the_target`): with none, or several and
    none named, scoring is a ``ConfigError``.  (A release reports ``cm`` on
    its own only when exactly one column has role target:
    :func:`anonset.metrics.reported_metrics`.)  With a single target value it
    is always 0 and says nothing.
    """

    name = "cm"
    direction = "loss"
    needs_rows = True

    def __init__(self, target: str | None = None):
        self.target = target

    def score(self, partition: Partition, dataset: Dataset) -> float:
        """(suppressed + minority records) / n."""
        if partition.row_class is None:
            raise ValueError("cm needs record-level detail (Partition.row_class)")
        target = the_target(dataset, self.target, "metric cm")
        labels, codes = np.unique(dataset.column(target).astype(str).to_numpy(), return_inverse=True)
        rc = partition.row_class
        kept = rc >= 0
        m = len(labels)
        counts = np.bincount(rc[kept] * m + codes.reshape(-1)[kept], minlength=partition.n_classes * m)
        majority = counts.reshape(partition.n_classes, m).max(axis=1).sum() if partition.n_classes else 0
        return float(dataset.n_rows - majority) / dataset.n_rows

