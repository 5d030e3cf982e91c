"""Metrics added up over parts of the records (anonset.metrics.partial), as distributed Mondrian's fragments do.

A table is split into parts by a quasi-identifier (as the first cuts split it), each part partitioned
alone; the parts' partial sums, added up, must give the metrics of the whole release scored on the
whole table, and the metrics that cannot be added up are named with the reason.
"""

from __future__ import annotations

import numpy as np
import pytest

from anonset.core.dataset import Dataset
from anonset.core.hierarchy_builders import masking_hierarchy
from anonset.core.partition import partition_of_assignment
from anonset.datasets.synthetic import patient_register
from anonset.methods.mondrian.regions import mondrian
from anonset.metrics import reported_metrics
from anonset.metrics.partial import combine_partial_sums, partial_sums
from anonset.privacy.base import Requirements
from anonset.privacy.kanonymity import KAnonymity


def test_partial_sums_add_up_to_the_release_metrics() -> None:
    table = patient_register(900, seed=4)[["age", "sex", "zip", "race", "diagnosis"]]
    whole = Dataset(table, {"age": {"role": "quasi", "type": "numeric"}, "sex": {"role": "quasi"},
                            "zip": {"role": "quasi", "hierarchy": masking_hierarchy("zip", table["zip"])},
                            "race": {"role": "quasi"}, "diagnosis": {"role": "target"}})
    requirements = Requirements([KAnonymity(5)])
    metrics = reported_metrics(whole, requirements.k)
    specs = whole.resolved_specs()
    row_class = np.full(whole.n_rows, -1, dtype=np.int64)
    parts = []
    for value in sorted(table["sex"].unique()):
        rows = np.flatnonzero((table["sex"] == value).to_numpy())
        part = Dataset(table.iloc[rows].reset_index(drop=True), specs)
        classes = mondrian(part, requirements).row_class
        row_class[rows] = classes + (row_class.max() + 1)
        parts.append(partial_sums(partition_of_assignment(part, classes), part, whole, metrics))
    assert len(parts) == 2 and (row_class >= 0).all()
    scores, omitted = combine_partial_sums(metrics, whole, parts)
    partition = partition_of_assignment(whole, row_class)
    for m in metrics:
        if m.name in scores:
            assert scores[m.name] == pytest.approx(m.score(partition, whole), rel=1e-9), m.name
    assert {"loss", "ncp", "gcp", "glm", "precision", "total_il", "discernibility", "aecs", "cm"} <= set(scores)
    assert set(omitted) == {"non_uniform_entropy", "kl_divergence"}
    assert "no fragment holds" in omitted["non_uniform_entropy"] and "no fragment holds" in omitted["kl_divergence"]
    assert sum(p["rows"] for p in parts) == whole.n_rows
