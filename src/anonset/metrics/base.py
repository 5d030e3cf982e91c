"""The utility-metric contract.

A metric scores a :class:`~anonset.partition.Partition` of a dataset and
declares its direction (``loss``: lower is better; ``value``: higher is
better).  Metrics whose score is built from per-cell costs that depend only on
the generalized value (:class:`CellMetric`) also give the full-domain search a
lower bound from the node's levels alone: a suppressed cell costs the maximum
(1), so the costs of the generalization alone never exceed a node's true
costs, and they never decrease towards more general nodes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.partition import GeneralizedValues, HierarchyNodes, Intervals, Partition
from anonset.core.weights import weight_vector
from anonset.errors import ConfigError

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.engine.base import Engine

__all__ = ["CellMetric", "Metric"]


class Metric(ABC):
    """A utility metric over partitions."""

    name: str = ""
    direction: str = "loss"  # or "value"
    #: True when the score needs record-level detail (``Partition.row_class``).
    needs_rows: bool = False
    #: True when the score of a partition is the sum of its parts' scores, each part scored against the whole
    #: table (its hierarchies and ranges): a sum over classes.  Such a metric is added up over Spark's fragments.
    additive: bool = False

    @abstractmethod
    def score(self, partition: Partition, dataset: Dataset) -> float:
        """The metric's value for a partition of ``dataset``."""

    def prepare(self, dataset: Dataset, engine: Engine) -> None:
        """Compute, through ``engine``, what scoring needs beyond the dataset (default: nothing).

        The Anonymizer calls it with the engine of the run before the search
        and before any score, so a metric never has to find an engine itself:
        research value's ``auto`` weights need contingency tables, which for a
        table in a database only its engine can count.
        """
        del dataset, engine

    def objective(self, score: float) -> float:
        """The score as a quantity to minimize."""
        return score if self.direction == "loss" else -score

    def node_bounds(self, dataset: Dataset, levels: NDArray[np.int64]) -> NDArray[np.float64] | None:
        """Lower bounds of the objective for full-domain nodes (rows of ``levels``), or None."""
        return None


class CellMetric(Metric):
    """A metric aggregated from per-cell costs in [0, 1] that depend on the generalized value only.

    Subclasses give the per-class cost of one attribute (:meth:`class_costs`)
    and how per-attribute cost sums combine into the score (:meth:`combine`,
    which must be non-decreasing in every sum for loss metrics and
    non-increasing for value metrics).  A suppressed cell costs 1.
    """

    def __init__(self, weights: Mapping[str, float] | None = None):
        self.weights = dict(weights) if weights else None

    def attribute_weights(self, dataset: Dataset) -> NDArray[np.float64]:
        """Weight per quasi-identifier (1 each unless given), checked by :func:`anonset.core.weights.weight_vector`."""
        return weight_vector(dataset.quasi, self.weights, dataset.source, f"metric {self.name}")

    @abstractmethod
    def class_costs(self, dataset: Dataset, attribute: str, values: GeneralizedValues) -> NDArray[np.float64]:
        """Per-class cost in [0, 1] of the attribute's generalized values."""

    @abstractmethod
    def combine(self, dataset: Dataset, sums: NDArray[np.float64]) -> float | NDArray[np.float64]:
        """Score from per-attribute cost sums over all n cells (last axis = attributes)."""

    def minimum_costs(self, dataset: Dataset) -> NDArray[np.float64]:
        """Smallest possible per-cell cost per attribute (used by normalizations)."""
        return np.zeros(len(dataset.quasi))

    def score(self, partition: Partition, dataset: Dataset) -> float:
        """Combine per-attribute sums of cell costs; suppressed cells cost 1."""
        sums = np.array([
            float(np.dot(partition.sizes, self.class_costs(dataset, q, partition.values[q]))) + partition.n_suppressed
            for q in dataset.quasi
        ])
        return float(self.combine(dataset, sums))

    def node_bounds(self, dataset: Dataset, levels: NDArray[np.int64]) -> NDArray[np.float64]:
        """Objective from the generalization costs alone (no suppression), for each node."""
        sums = np.zeros(levels.shape, dtype=np.float64)
        for j, q in enumerate(dataset.quasi):
            per_level = self.level_sums(dataset, q)
            sums[:, j] = per_level[levels[:, j]]
        bound = np.asarray(self.combine(dataset, sums), dtype=np.float64)
        return bound if self.direction == "loss" else -bound

    def level_sums(self, dataset: Dataset, attribute: str) -> NDArray[np.float64]:
        """Sum over all records of the cell cost when the attribute is at each level."""
        key = ("level_sums", type(self).__name__, attribute)
        cached = dataset.cache.get(key)
        if cached is not None:
            return cast("NDArray[np.float64]", cached)
        h = dataset.require_hierarchy(attribute)
        counts = dataset.encoded[attribute].counts()
        out = np.empty(h.n_levels)
        for level in range(h.n_levels):
            codes = np.arange(h.size(level), dtype=np.int32)
            cost = self.class_costs(dataset, attribute, HierarchyNodes(np.full(len(codes), level, np.int16), codes))
            out[level] = float(np.dot(counts, cost[h.maps[level]]))
        dataset.cache[key] = out
        return out


def node_facts(
    dataset: Dataset, attribute: str,
) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Flattened facts of every node of an attribute's hierarchy.

    Returns ``offset`` (per level, start of its nodes), ``leaves`` (leaves under
    each node), ``lo`` and ``hi`` (smallest and largest numeric leaf value
    under each node; NaN when the leaves are not numbers).
    """
    key = ("node_facts", attribute)
    cached = dataset.cache.get(key)
    if cached is not None:
        return cast("tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]", cached)
    h = dataset.require_hierarchy(attribute)
    offset = np.zeros(h.n_levels + 1, dtype=np.int64)
    for j in range(h.n_levels):
        offset[j + 1] = offset[j] + h.size(j)
    leaves = np.concatenate(h.leaf_counts).astype(np.float64)
    numbers = dataset.encoded[attribute].numbers
    lo = np.full(offset[-1], np.nan)
    hi = np.full(offset[-1], np.nan)
    if numbers is not None:
        for j in range(h.n_levels):
            size = h.size(j)
            block_lo = np.full(size, np.inf)
            block_hi = np.full(size, -np.inf)
            valid = ~np.isnan(numbers)
            np.minimum.at(block_lo, h.maps[j][valid], numbers[valid])
            np.maximum.at(block_hi, h.maps[j][valid], numbers[valid])
            block_lo[~np.isfinite(block_lo)] = np.nan
            block_hi[~np.isfinite(block_hi)] = np.nan
            lo[offset[j]:offset[j + 1]] = block_lo
            hi[offset[j]:offset[j + 1]] = block_hi
    facts = (offset, leaves, lo, hi)
    dataset.cache[key] = facts
    return facts


def node_index(dataset: Dataset, attribute: str, values: HierarchyNodes) -> NDArray[np.int64]:
    """Index into :func:`node_facts` arrays of each class's node."""
    offset = node_facts(dataset, attribute)[0]
    return offset[values.levels.astype(np.int64)] + values.codes


def value_range(dataset: Dataset, attribute: str) -> tuple[float, float]:
    """Smallest and largest numeric value of an attribute in the data."""
    col = dataset.encoded[attribute]
    if col.numbers is None:
        raise ConfigError(f"attribute {attribute!r} is not numeric, so it has no range")
    present = col.numbers[col.counts() > 0]
    present = present[~np.isnan(present)]
    return float(present.min()), float(present.max())


def interval_share(dataset: Dataset, attribute: str, values: Intervals) -> NDArray[np.float64]:
    """(hi − lo) / (max − min) of the attribute's data range, capped at 1."""
    lo, hi = value_range(dataset, attribute)
    span = hi - lo
    if span <= 0:
        return np.zeros(len(values.lo))
    return np.minimum((values.hi - values.lo) / span, 1.0)
