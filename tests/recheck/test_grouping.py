"""The re-check's grouping of released values: numbered as np.unique would, four bytes a record while it can."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonset.recheck.verify import _factorized, _grouped, _ranks, classes_of_table


@pytest.mark.parametrize("seed", range(5))
def test_ranks_of_hashed_keys_are_np_uniques_inverse(seed: int) -> None:
    """Arrow's hashing plus a sort of the distinct keys numbers every key as sorting all of them does."""
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, [5, 1_000, 2**62][seed % 3], size=rng.integers(0, 3_000)).astype(np.int64)
    first, distinct = _factorized(keys)
    assert first.dtype == np.int32 and distinct.dtype == np.int64
    assert np.array_equal(distinct[first], keys)  # first appearance order, every key found again
    assert np.array_equal(_ranks(first, distinct), np.unique(keys, return_inverse=True)[1].reshape(-1))


def test_classes_of_a_released_table_are_its_distinct_rows_in_sorted_order() -> None:
    """Rows with the same released texts share a class; classes are numbered by their texts, column by column."""
    table = pd.DataFrame({"age": pd.Categorical(["30-39", "*", "20-29", "30-39", "*", "20-29"]),
                          "zip": ["021*", "*", "021*", "100*", "*", "021*"]})
    classes = classes_of_table(table, ("age", "zip"))
    assert classes.dtype == np.int64
    assert classes.tolist() == [2, 0, 1, 3, 0, 1]  # ("*","*") < ("20-29","021*") < ("30-39","021*") < ("30-39","100*")
    row_class, all_star = _grouped(table, ("age", "zip"))
    assert row_class.dtype == np.int32 and all_star.tolist() == [False, True, False, False, True, False]
