"""Tests of the merge of a failing fragment and the default fragments (anonset.methods.mondrian.fragments).

Without Spark: the statistics of each fragment as a whole are written by hand (and checked against
those counted from the records' fragments), as the driver's one Spark job counts them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import Dataset
from anonset.core.stats import ClassStats, StatsRequest, stats_from_assignment
from anonset.errors import InfeasibleError
from anonset.hierarchy import Hierarchy
from anonset.methods.mondrian.cut_tree import Cut, fragments_of
from anonset.methods.mondrian.fragments import FRAGMENT_ROWS, default_fragments, merge_failing
from anonset.privacy.base import Requirements
from anonset.privacy.kanonymity import KAnonymity
from anonset.privacy.ldiversity import DistinctLDiversity

#: c: a1, a2 -> A (0 at level 1); b1, b2 -> B (1); -> *.
A, B = 0, 1
#: age <= 40, then c in A or B (fragments 0 and 1); age > 40: c in A or B (fragments 2 and 3).
TREE = Cut("age", threshold=40.0, children=(Cut("c", level=1, keys=(A, B), children=(Cut(), Cut())),
                                            Cut("c", level=1, keys=(A, B), children=(Cut(), Cut()))))


def _table(s: list[str]) -> Dataset:
    """Eight records; their fragments by TREE are 0 0 1 1 2 3 2 3."""
    h = Hierarchy.from_rows("c", [["a1", "A", "*"], ["a2", "A", "*"], ["b1", "B", "*"], ["b2", "B", "*"]])
    table = pd.DataFrame({"age": ["25", "30", "35", "40", "45", "50", "55", "60"],
                          "c": ["a1", "a2", "b1", "b2", "a1", "b1", "a2", "b2"], "s": s})
    return Dataset(table, {"age": {"role": "quasi", "type": "numeric"}, "c": {"role": "quasi", "hierarchy": h},
                           "s": {"role": "sensitive"}})


def _stats(sizes: list[int], histogram: list[list[int]] | None = None) -> ClassStats:
    n = len(sizes)
    return ClassStats(sizes=np.array(sizes, dtype=np.int64), keys=np.zeros((n, 0), dtype=np.int32),
                      histograms={} if histogram is None else {"s": np.array(histogram, dtype=np.int64)},
                      sums={}, sumsq={})


def test_a_fragment_too_small_is_merged_with_its_sibling() -> None:
    # Cut by age only: fragments of 2 (age <= 30) and 6 records.  Under 3-anonymity fragment 0 fails;
    # its parent is the root, so the table is one fragment again.
    tree = Cut("age", threshold=30.0, children=(Cut(), Cut()))
    assert merge_failing(tree, _stats([2, 6]), Requirements([KAnonymity(3)]), 8) == Cut()
    assert merge_failing(tree, _stats([2, 6]), Requirements([KAnonymity(2)]), 8) is tree
    # TREE has fragments of 2 records each: under 3-anonymity all four fail, both c cuts are undone, and the
    # two halves of 4 records pass
    merged = merge_failing(TREE, _stats([2, 2, 2, 2]), Requirements([KAnonymity(3)]), 8)
    assert merged == Cut("age", threshold=40.0, children=(Cut(), Cut()))
    # under 5-anonymity the halves fail as well: the root cut is undone too, and 8 records pass
    assert merge_failing(TREE, _stats([2, 2, 2, 2]), Requirements([KAnonymity(5)]), 8) == Cut()


def test_only_the_failing_fragment_is_merged() -> None:
    # s by record:      x  x  x  y  x  x  y  y
    # fragments:        0  0  1  1  2  3  2  3   -> fragment 0 holds {x, x}: not distinct 2-diverse;
    # 1 {x, y}, 2 {x, y}, 3 {x, y} are.  Undoing the left c cut merges 0 and 1 into {x, x, x, y} (diverse);
    # the right c cut stays: fragments 0 (age <= 40), 1 and 2.
    ds = _table(["x", "x", "x", "y", "x", "x", "y", "y"])
    requirements = Requirements([KAnonymity(2), DistinctLDiversity("s", 2)])
    assert fragments_of(TREE, ds).tolist() == [0, 0, 1, 1, 2, 3, 2, 3]
    stats = _stats([2, 2, 2, 2], [[2, 0], [1, 1], [1, 1], [1, 1]])  # s codes: x 0, y 1
    counted = stats_from_assignment(ds, fragments_of(TREE, ds), StatsRequest(histograms=frozenset({"s"})))
    assert counted.sizes.tolist() == stats.sizes.tolist()
    assert counted.histograms["s"].tolist() == stats.histograms["s"].tolist()
    merged = merge_failing(TREE, stats, requirements, ds.n_rows)
    assert merged == Cut("age", threshold=40.0, children=(Cut(), TREE.children[1]))
    assert fragments_of(merged, ds).tolist() == [0, 0, 0, 0, 1, 2, 1, 2]


def test_a_table_that_fails_as_a_whole_is_infeasible() -> None:
    with pytest.raises(InfeasibleError, match=r"^the whole table \(8 records\) does not satisfy 9-anonymity, so no"
                                              r" Mondrian partition can"):
        merge_failing(TREE, _stats([2, 2, 2, 2]), Requirements([KAnonymity(9)]), 8)
    with pytest.raises(InfeasibleError, match="distinct 2-diversity"):
        merge_failing(Cut(), _stats([8], [[8, 0]]), Requirements([KAnonymity(2), DistinctLDiversity("s", 2)]), 8)


def test_default_fragments() -> None:
    # three per task slot, at least one per FRAGMENT_ROWS records, at least one
    assert default_fragments(2, 1000) == 6
    assert default_fragments(2, 10 * FRAGMENT_ROWS + 1) == 11
    assert default_fragments(0, 0) == 1
