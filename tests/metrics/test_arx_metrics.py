"""Ambiguity and KL-divergence as ARX computes them, on a table small enough to work out by hand.

Two quasi-identifiers: ``a`` with leaves x, y under ``*`` (2 leaves) and
``b`` with leaves 1, 2 under ``12`` and 3, 4 under ``34``, those under
``*`` (4 leaves); a domain of 2 × 4 = 8 combinations.  The six records are
(x,1) twice, (x,2), (y,3), (y,4) twice: input frequencies 1/3, 1/6, 1/6, 1/3.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import Dataset
from anonset.core.partition import Partition
from anonset.engine.numpy.engine import NumpyEngine
from anonset.hierarchy import Hierarchy
from anonset.metrics import METRICS, Ambiguity, KLDivergence, make_metric
from anonset.metrics.descriptions import describe_metric
from anonset.privacy import KAnonymity, Requirements

A = Hierarchy.from_rows("a", [["x", "*"], ["y", "*"]])
B = Hierarchy.from_rows("b", [["1", "12", "*"], ["2", "12", "*"], ["3", "34", "*"], ["4", "34", "*"]])
TABLE = pd.DataFrame({"a": ["x", "x", "x", "y", "y", "y"], "b": ["1", "1", "2", "3", "4", "4"]})


def _partition(levels: tuple[int, int], k: int, budget: float = 0.0) -> tuple[Partition, Dataset]:
    dataset = Dataset(TABLE, {"a": {"role": "quasi", "hierarchy": A}, "b": {"role": "quasi", "hierarchy": B}})
    requirements = Requirements([KAnonymity(k)], budget)
    row_class, stats = NumpyEngine(dataset).row_classes(levels)
    verdict = requirements.judge(stats, dataset.n_rows)
    return Partition.from_node(dataset.quasi, stats, verdict.kept, row_class), dataset


@pytest.mark.parametrize(("levels", "k", "budget", "ambiguity", "kl"), [
    # nothing generalized: every record stands for itself (area 1), the release is the input's distribution
    ((0, 0), 1, 0.0, 6.0, 0.0),
    # (x,12) and (y,34), 3 records each over 1 x 2 combinations: q = 3/6/2 = 1/4 for every record;
    # Σ over records p log2(p / q) = 4 x 1/3 log2(4/3) + 2 x 1/6 log2(2/3)
    ((0, 1), 3, 0.0, 3 * 2 + 3 * 2, 4 / 3 * math.log2(4 / 3) + 1 / 3 * math.log2(2 / 3)),
    # one class of 6 over the whole domain of 8: q = 1/8; 4 x 1/3 log2(8/3) + 2 x 1/6 log2(4/3)
    ((1, 2), 6, 0.0, 6 * 8, 4 / 3 * math.log2(8 / 3) + 1 / 3 * math.log2(4 / 3)),
    # 2-anonymity at the bottom with 2 records suppressed ((x,2) and (y,3)): kept records q = p (0 each);
    # suppressed ones count the domain: ambiguity 2 + 2 + 2 x 8, q = 2/6/8 = 1/24, 2 x 1/6 log2((1/6) / (1/24))
    ((0, 0), 2, 0.34, 2 + 2 + 2 * 8, 2 / 6 * math.log2(4)),
])
def test_hand_computed_figures(levels: tuple[int, int], k: int, budget: float, ambiguity: float, kl: float) -> None:
    partition, dataset = _partition(levels, k, budget)
    assert Ambiguity().score(partition, dataset) == pytest.approx(ambiguity, rel=1e-12)
    assert KLDivergence().score(partition, dataset) == pytest.approx(kl, rel=1e-12, abs=1e-15)


def test_an_interval_covers_its_width() -> None:
    # age without a hierarchy, released as intervals: [20, 30] covers 10, a single value 1; the domain is 45 - 20
    table = pd.DataFrame({"age": ["20", "30", "30", "45"]})
    dataset = Dataset(table, {"age": {"role": "quasi", "type": "numeric"}})
    from anonset.core.partition import Intervals

    partition = Partition(values={"age": Intervals(np.array([20.0, 45.0]), np.array([30.0, 45.0]))},
                          sizes=np.array([3, 1]), n_suppressed=0, row_class=np.array([0, 0, 0, 1]))
    assert Ambiguity().score(partition, dataset) == 3 * 10 + 1 * 1
    suppressed = Partition(values={"age": Intervals(np.array([20.0]), np.array([30.0]))}, sizes=np.array([3]),
                           n_suppressed=1, row_class=np.array([0, 0, 0, -1]))
    assert Ambiguity().score(suppressed, dataset) == 3 * 10 + 1 * 25


def test_both_are_registered_described_and_reported() -> None:
    assert METRICS["ambiguity"] is Ambiguity and METRICS["kl_divergence"] is KLDivergence
    assert isinstance(make_metric("ambiguity"), Ambiguity)
    for name in ("ambiguity", "kl_divergence"):
        assert describe_metric(name).better == "lower"
    with pytest.raises(ValueError, match="record-level detail"):
        partition, dataset = _partition((0, 1), 3)
        KLDivergence().score(Partition(partition.values, partition.sizes, partition.n_suppressed), dataset)
