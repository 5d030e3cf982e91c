"""Partitions of arbitrary assignments (local recoding): per-class intervals and common ancestors, rendering."""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonset.core.dataset import Dataset
from anonset.core.partition import HierarchyNodes, Intervals, partition_of_assignment
from anonset.hierarchy import Hierarchy
from anonset.metrics import GCP, NCP
from anonset.recheck.columns import SUPPRESSED
from anonset.recheck.verify import classes_of_table
from anonset.release.release import render_partition

JOBS = Hierarchy.from_rows("job", [["nurse", "health", "*"], ["doctor", "health", "*"],
                                   ["clerk", "office", "*"], ["typist", "office", "*"]])


def _dataset() -> Dataset:
    table = pd.DataFrame({
        "age": ["30", "34", "31", "50", "58", "52", "40"],
        "job": ["nurse", "doctor", "nurse", "clerk", "typist", "clerk", "nurse"],
        "note": list("abcdefg"),
    })
    return Dataset(table, {"age": {"role": "quasi", "type": "numeric"}, "job": {"role": "quasi", "hierarchy": JOBS}})


def test_intervals_and_lowest_common_ancestors_by_hand() -> None:
    ds = _dataset()
    row_class = np.array([0, 0, 0, 1, 1, 1, -1])
    part = partition_of_assignment(ds, row_class)
    assert part.sizes.tolist() == [3, 3] and part.n_suppressed == 1
    age = part.values["age"]
    assert isinstance(age, Intervals)
    assert age.lo.tolist() == [30, 50] and age.hi.tolist() == [34, 58]
    job = part.values["job"]
    assert isinstance(job, HierarchyNodes)
    # class 0 holds nurse, doctor -> "health" (level 1); class 1 clerk, typist -> "office" (level 1)
    assert job.levels.tolist() == [1, 1]
    assert [JOBS.labels[1][c] for c in job.codes] == ["health", "office"]
    single = partition_of_assignment(ds, np.array([0, 1, 0, 2, 2, 2, 1]))
    job = single.values["job"]
    assert isinstance(job, HierarchyNodes)
    # class 0 = {nurse, nurse}: the leaf itself; class 1 = {doctor, nurse}: health; class 2 = {clerk, typist, clerk}
    assert job.levels.tolist() == [0, 1, 1]


def test_rendered_release_regroups_into_the_same_classes() -> None:
    ds = _dataset()
    row_class = np.array([0, 0, 0, 1, 1, 1, -1])
    part = partition_of_assignment(ds, row_class)
    table = render_partition(ds, part)
    assert table["age"].tolist() == ["30-34"] * 3 + ["50-58"] * 3 + [SUPPRESSED]
    assert table["job"].tolist() == ["health"] * 3 + ["office"] * 3 + [SUPPRESSED]
    assert table["note"].tolist() == list("abcdefg")
    regrouped = classes_of_table(table.iloc[:6], ("age", "job"))
    assert len(set(regrouped[:3])) == 1 and len(set(regrouped[3:6])) == 1 and regrouped[0] != regrouped[3]
    assert len(render_partition(ds, part, drop_suppressed=True)) == 6


def test_metrics_score_interval_partitions() -> None:
    ds = _dataset()
    part = partition_of_assignment(ds, np.array([0, 0, 0, 1, 1, 1, -1]))
    # age range 30..58 = 28: class widths 4 and 8; job: health and office each 2 of 4 leaves
    # NCP = 3*(4/28 + 2/4) + 3*(8/28 + 2/4) + 1 suppressed row * 2 cells = 3*(12/28) + 3 + 2
    assert abs(NCP().score(part, ds) - (3 * 12 / 28 + 5)) < 1e-12
    assert abs(GCP().score(part, ds) - (3 * 12 / 28 + 5) / (7 * 2)) < 1e-12
