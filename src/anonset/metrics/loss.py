"""ARX's default "Loss" metric, defined so that its figures are comparable with ARX's.

Per cell, the share of the attribute's domain covered by the generalized value:
leaves under the hierarchy node / leaves of the hierarchy (leaves of the
hierarchy, not distinct values in the data), or (hi − lo) / (max − min) for an
interval; a suppressed cell costs 1.  Per attribute
``L_j = (Σ share − n/|D_j|) / (n − n/|D_j|)`` (the minimum, every value at leaf
level, maps to 0); overall ``Π (1 + L_j)^(w_j / Σw) − 1``, with equal weights
``1/d``.  This reproduces ARX 3.9's scores on Adult (0.57315 for k = 5).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.partition import GeneralizedValues, HierarchyNodes
from anonset.metrics.base import CellMetric, interval_share, node_facts, node_index

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Loss"]


class Loss(CellMetric):
    """ARX's Loss: geometric mean of normalized per-attribute domain shares."""

    name = "loss"
    direction = "loss"

    def class_costs(self, dataset: Dataset, attribute: str, values: GeneralizedValues) -> NDArray[np.float64]:
        """Share of the domain covered by each class's value."""
        if isinstance(values, HierarchyNodes):
            leaves = node_facts(dataset, attribute)[1]
            h = dataset.require_hierarchy(attribute)
            return cast("NDArray[np.float64]", leaves[node_index(dataset, attribute, values)] / h.n_leaves)
        return interval_share(dataset, attribute, values)

    def minimum_costs(self, dataset: Dataset) -> NDArray[np.float64]:
        """1/|D_j| for hierarchy attributes, 0 for interval-only ones."""
        out = np.zeros(len(dataset.quasi))
        for j, q in enumerate(dataset.quasi):
            h = dataset.hierarchy(q)
            out[j] = 1.0 / h.n_leaves if h is not None else 0.0
        return out

    def combine(self, dataset: Dataset, sums: NDArray[np.float64]) -> float | NDArray[np.float64]:
        """Π (1 + L_j)^(w_j/Σw) − 1."""
        n = dataset.n_rows
        floor = n * self.minimum_costs(dataset)
        denom = np.where(n - floor > 0, n - floor, 1.0)
        per_attr = np.clip((sums - floor) / denom, 0.0, 1.0)
        w = self.attribute_weights(dataset)
        w = w / w.sum()
        return cast("float | NDArray[np.float64]", np.exp((np.log1p(per_attr) * w).sum(axis=-1)) - 1.0)

    def per_attribute(self, dataset: Dataset, sums: NDArray[np.float64]) -> NDArray[np.float64]:
        """L_j per attribute."""
        n = dataset.n_rows
        floor = n * self.minimum_costs(dataset)
        return cast("NDArray[np.float64]", np.clip((sums - floor) / np.where(n - floor > 0, n - floor, 1.0), 0.0, 1.0))
