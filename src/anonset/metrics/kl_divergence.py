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

import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.partition import Partition
from anonset.metrics.ambiguity import class_areas, domain_area
from anonset.metrics.base import Metric
from anonset.risk.survey import combination_keys

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
        codes = np.stack([np.asarray(dataset.encoded[q].row_codes(), dtype=np.int64) for q in dataset.quasi], axis=1)
        # each record's combination as one integer (a sort of integers, not of rows of codes)
        _, combination, held = np.unique(combination_keys(codes - min(int(codes.min()), 0)), return_inverse=True,
                                         return_counts=True)
        p = held[combination.reshape(-1)] / n
        rc = partition.row_class
        kept = rc >= 0
        q = np.empty(n)
        q[kept] = (partition.sizes / n / class_areas(partition, dataset))[rc[kept]]
        q[~kept] = partition.n_suppressed / n / domain_area(dataset)
        return float(np.sum(p * np.log2(p / q)))
