"""What a release did to each quasi-identifier, as data: its information loss and its values before and after.

:func:`attribute_loss` gives, per quasi-identifier, the mean normalized
certainty penalty of its released cells (Xu et al., "Utility-Based
Anonymization Using Local Recoding", as the ``ncp`` metric scores a cell: a
numeric cell costs the width of its interval over the attribute's range, a
categorical one grows with the leaves under its node, from 0 for a leaf to 1
for the root; a suppressed cell costs 1), so a custodian
sees which attribute paid for the protection.  :func:`value_distributions`
counts each quasi-identifier's values in the input and its labels in the
release, for a report to draw.  Both read a release of any method.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from anonset.metrics.cell_metrics import NCP

if TYPE_CHECKING:
    import pandas as pd

    from anonset.core.dataset import Dataset
    from anonset.core.partition import Partition

__all__ = ["attribute_loss", "value_distributions"]


def attribute_loss(dataset: Dataset, partition: Partition) -> dict[str, float]:
    """Mean NCP of each quasi-identifier's cells over all records of ``dataset`` (0: untouched, 1: all lost).

    The table's NCP (:class:`~anonset.metrics.cell_metrics.NCP`, unweighted) is the records times their sum.
    """
    ncp = NCP()
    n = dataset.n_rows
    if n == 0:
        return {q: 0.0 for q in dataset.quasi}
    return {q: (float(np.dot(partition.sizes, ncp.class_costs(dataset, q, partition.values[q])))
                + partition.n_suppressed) / n for q in dataset.quasi}


def value_distributions(dataset: Dataset, released: pd.DataFrame) -> dict[str, dict[str, dict[str, int]]]:
    """Per quasi-identifier: ``before`` (count of each input value) and ``after`` (count of each released label).

    Values are compared as written; suppressed cells appear as the ``*`` label after.
    """
    assert dataset.table is not None, "value distributions need the input records in memory"
    out: dict[str, dict[str, dict[str, int]]] = {}
    for q in dataset.quasi:
        before = dataset.table[q].astype(str).value_counts(sort=False)
        after = released[q].astype(str).value_counts(sort=False)
        out[q] = {"before": {str(k): int(v) for k, v in before.items()},
                  "after": {str(k): int(v) for k, v in after.items()}}
    return out
