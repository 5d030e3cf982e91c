"""Per-cell utility metrics: GLM (Iyengar), NCP and GCP (Xu et al.), precision (Sweeney).

- ``glm``: per cell (leaves under the value − 1) / (leaves of the attribute − 1),
  (hi − lo) / (max − min) for a numeric interval, 1 for a suppressed cell;
  the score is the weighted sum over all cells (Dewri et al.'s reading).
- ``ncp``: Xu et al.'s weighted certainty penalty summed over all records:
  numeric attributes (z − y) / (max − min) of the table (for a hierarchy node:
  the extent of the numeric leaves under it, capped at 1), categorical
  size(u) / |A| with a single leaf costing 0 (size 1 → 0); suppressed cells 1.
- ``gcp``: NCP normalized to [0, 1] by n · Σ w (Ghinita et al.'s global certainty penalty).
- ``precision``: Sweeney's Prec = 1 − Σ (level / height) / (n · d); a value
  metric (higher is better); suppressed cells count as fully generalized.

Byun et al.'s ``total_il``, built on the same per-class costs as precision
(:func:`level_share`), lives in :mod:`anonset.metrics.total_il`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np

from anonset.core.dataset import AttributeType, Dataset
from anonset.core.partition import GeneralizedValues, HierarchyNodes
from anonset.metrics.base import CellMetric, interval_share, node_facts, node_index, value_range

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["GCP", "GLM", "NCP", "Precision", "level_share"]


class GLM(CellMetric):
    """Iyengar's general loss metric, summed over cells."""

    name = "glm"
    direction = "loss"

    def class_costs(self, dataset: Dataset, attribute: str, values: GeneralizedValues) -> NDArray[np.float64]:
        """(leaves − 1) / (|D| − 1), or the interval share."""
        if isinstance(values, HierarchyNodes):
            leaves = node_facts(dataset, attribute)[1][node_index(dataset, attribute, values)]
            total = dataset.require_hierarchy(attribute).n_leaves
            return (leaves - 1.0) / (total - 1.0) if total > 1 else np.zeros(len(leaves))
        return interval_share(dataset, attribute, values)

    def combine(self, dataset: Dataset, sums: NDArray[np.float64]) -> float | NDArray[np.float64]:
        """Weighted sum of per-attribute sums."""
        return cast("float | NDArray[np.float64]", (sums * self.attribute_weights(dataset)).sum(axis=-1))


class NCP(CellMetric):
    """Xu et al.'s (weighted) normalized certainty penalty of the whole table."""

    name = "ncp"
    direction = "loss"

    def class_costs(self, dataset: Dataset, attribute: str, values: GeneralizedValues) -> NDArray[np.float64]:
        """Per-class NCP of one attribute."""
        if not isinstance(values, HierarchyNodes):
            return interval_share(dataset, attribute, values)
        _, leaves, lo, hi = node_facts(dataset, attribute)
        idx = node_index(dataset, attribute, values)
        if dataset.specs[attribute].type in (AttributeType.NUMERIC, AttributeType.DATE):
            low, high = value_range(dataset, attribute)
            span = high - low
            width = np.nan_to_num(hi[idx] - lo[idx], nan=span)
            return np.minimum(width / span, 1.0) if span > 0 else np.zeros(len(idx))
        total = dataset.require_hierarchy(attribute).n_leaves
        n_leaves = leaves[idx]
        return np.where(n_leaves > 1, n_leaves / total, 0.0)

    def combine(self, dataset: Dataset, sums: NDArray[np.float64]) -> float | NDArray[np.float64]:
        """Weighted sum over attributes."""
        return cast("float | NDArray[np.float64]", (sums * self.attribute_weights(dataset)).sum(axis=-1))


class GCP(NCP):
    """Global certainty penalty: NCP / (n · Σ w), in [0, 1]."""

    name = "gcp"

    def combine(self, dataset: Dataset, sums: NDArray[np.float64]) -> float | NDArray[np.float64]:
        """NCP normalized by n · Σ w."""
        w = self.attribute_weights(dataset)
        return cast("float | NDArray[np.float64]", (sums * w).sum(axis=-1) / (dataset.n_rows * w.sum()))


class Precision(CellMetric):
    """Sweeney's precision: 1 − mean over cells of level / height (higher is better)."""

    name = "precision"
    direction = "value"

    def class_costs(self, dataset: Dataset, attribute: str, values: GeneralizedValues) -> NDArray[np.float64]:
        """level / height of the hierarchy (interval share for intervals)."""
        return level_share(dataset, attribute, values)

    def combine(self, dataset: Dataset, sums: NDArray[np.float64]) -> float | NDArray[np.float64]:
        """1 − weighted mean cost."""
        w = self.attribute_weights(dataset)
        return cast("float | NDArray[np.float64]", 1.0 - (sums * w).sum(axis=-1) / (dataset.n_rows * w.sum()))


def level_share(dataset: Dataset, attribute: str, values: GeneralizedValues) -> NDArray[np.float64]:
    """Per class: the node's level over the hierarchy's height, or an interval's share of the range."""
    if isinstance(values, HierarchyNodes):
        height = dataset.require_hierarchy(attribute).max_level
        return values.levels.astype(np.float64) / height if height > 0 else np.zeros(len(values.levels))
    return interval_share(dataset, attribute, values)
