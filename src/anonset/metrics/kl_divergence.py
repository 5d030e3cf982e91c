"""ARX's KL-divergence metric: how far the release's distribution of quasi-identifier combinations is from the input's.

The release is read as a distribution over the combinations of original
values: a class spreads its records evenly over its area (the combinations
its generalized values cover, :func:`~anonset.metrics.ambiguity.class_areas`),
and the suppressed records spread over the whole domain.  With ``n``
records, a record's input frequency ``p`` (the share of records with its
exact combination of quasi-identifier values) and its output frequency
``q = size / n / area`` of its class (``suppressed / n / domain`` when
suppressed), the metric is ``Σ p · log2(p / q)``.

This is ARX 3.9.2's ``MetricSDNMKLDivergence``, kept as ARX computes it so
that the figures compare: the sum runs over **records**, not over distinct
combinations, so a combination held by ``c`` records contributes ``c``
times (Kifer and Gehrke's divergence sums over combinations once; the
ordering of releases of one table by the two can differ).  0 for the
ungeneralized table; lower is better.  It needs each record's class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.partition import Partition
from anonset.engine.numpy.engine import leaf_combinations
from anonset.metrics.ambiguity import class_areas, domain_area
from anonset.metrics.base import Metric

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["KLDivergence"]


class KLDivergence(Metric):
    """Σ over records of ``p · log2(p / q)``, as ARX sums it (see the module)."""

    name = "kl_divergence"
    direction = "loss"
    needs_rows = True

    def score(self, partition: Partition, dataset: Dataset) -> float:
        """ARX's KL-divergence of the release from the input (0: nothing generalized or suppressed)."""
        if partition.row_class is None:
            raise ValueError("kl_divergence needs record-level detail (Partition.row_class)")
        n = dataset.n_rows
        if n == 0:
            return 0.0
        held, combination = _combinations(dataset)
        share = held / n  # each combination's input frequency p
        # Σ_records p·log2(p/q) = Σ_records p·log2(p) − Σ_records p·log2(q), the first summed per combination
        # (held records each), the second per class (q is the class's; slot 0 the suppressed records')
        p_of_record = share[combination]
        del combination
        mass = np.bincount(partition.row_class + 1, weights=p_of_record, minlength=partition.n_classes + 1)
        total = float(np.sum(held * share * np.log2(share)))
        q = partition.sizes / n / class_areas(partition, dataset)
        total -= float(np.sum(mass[1:] * np.log2(q)))
        if partition.n_suppressed:
            total -= float(mass[0]) * float(np.log2(partition.n_suppressed / n / domain_area(dataset)))
        return total


def _combinations(dataset: Dataset) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """How many records hold each combination of quasi-identifier codes, and each record's combination (the
    numpy engine's own grouping while one counted at the leaves lives)."""
    combination = leaf_combinations(dataset)
    return np.bincount(combination), combination
