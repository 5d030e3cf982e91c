"""ARX's ambiguity metric: how many combinations of original values each released record could stand for.

A released class's generalized values cover, per quasi-identifier, a number
of the attribute's original values: the leaves under a hierarchy node, or
the width ``hi − lo`` of an interval (1 for a single value).  The class's
**area** is the product of these over the quasi-identifiers.  Ambiguity
(Nergiz and Clifton's, as ARX 3.9.2 computes it, ``MetricSDNMAmbiguity``) is
the sum over records of their class's area, a suppressed record counting
the whole domain (the product of the domain sizes: leaves of each
hierarchy, the range of an interval-only attribute).  The ungeneralized
table scores its number of records; every record suppressed, records ×
domain.

The interval-only attributes follow ARX's interval domain shares (the width
of the range); ARX has no other kind of numeric attribute.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.partition import HierarchyNodes, Partition
from anonset.metrics.base import Metric, node_facts, node_index, value_range

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Ambiguity", "class_areas", "domain_area"]


def _domain_size(dataset: Dataset, attribute: str) -> float:
    hierarchy = dataset.hierarchy(attribute)
    if hierarchy is not None:
        return float(hierarchy.n_leaves)
    lo, hi = value_range(dataset, attribute)
    return max(hi - lo, 1.0)


def class_areas(partition: Partition, dataset: Dataset) -> NDArray[np.float64]:
    """(classes,) the product over quasi-identifiers of the original values each class's value covers."""
    area = np.ones(partition.n_classes)
    for attribute in dataset.quasi:
        values = partition.values[attribute]
        if isinstance(values, HierarchyNodes):
            covered = node_facts(dataset, attribute)[1][node_index(dataset, attribute, values)]
        else:
            covered = np.maximum(values.hi - values.lo, 1.0)
        area *= covered
    return area


def domain_area(dataset: Dataset) -> float:
    """The product of the quasi-identifiers' domain sizes: the area of a suppressed record."""
    return float(np.prod([_domain_size(dataset, q) for q in dataset.quasi]))


class Ambiguity(Metric):
    """Σ over records of their class's area; a suppressed record counts the whole domain (see the module)."""

    name = "ambiguity"
    direction = "loss"
    additive = True

    def score(self, partition: Partition, dataset: Dataset) -> float:
        """Σ size × area over classes + suppressed × domain."""
        released = float(np.dot(partition.sizes.astype(np.float64), class_areas(partition, dataset)))
        return released + partition.n_suppressed * domain_area(dataset)
