"""Dataset: encoding, missing values, numeric and date columns, roles."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonset import DataError, Dataset, Hierarchy, HierarchyError
from anonset.hierarchy import date_hierarchy

AGES = Hierarchy.from_rows("age", [["39", "30-39", "*"], ["40", "40-49", "*"], ["41", "40-49", "*"]])


def test_quasi_identifiers_are_encoded_as_hierarchy_leaf_codes() -> None:
    df = pd.DataFrame({"age": ["41", "39", "41", "40"], "note": ["a", "b", "c", "d"]})
    ds = Dataset(df, {"age": {"role": "quasi", "type": "numeric", "hierarchy": AGES}})
    assert ds.quasi == ("age",)
    assert ds.encoded["age"].codes.tolist() == [2, 0, 2, 1]  # leaf order of the hierarchy: 39, 40, 41
    assert ds.encoded["age"].numbers.tolist() == [39.0, 40.0, 41.0]
    assert ds.specs["note"].role.value == "insensitive"  # columns nobody named pass through


def test_numeric_values_match_leaves_by_value() -> None:
    df = pd.DataFrame({"age": ["39.0", "40", "41.00"]})
    ds = Dataset(df, {"age": {"role": "quasi", "type": "numeric", "hierarchy": AGES}})
    assert ds.encoded["age"].codes.tolist() == [0, 1, 2]


def test_strings_that_look_like_numbers_stay_strings() -> None:
    zips = Hierarchy.from_rows("zip", [["007", "00*", "*"], ["070", "07*", "*"]])
    df = pd.DataFrame({"zip": ["007", "070", "007"]})
    ds = Dataset(df, {"zip": {"role": "quasi", "hierarchy": zips}})
    assert ds.encoded["zip"].codes.tolist() == [0, 1, 0]
    with pytest.raises(HierarchyError, match="'7'"):
        Dataset(pd.DataFrame({"zip": ["7"]}), {"zip": {"role": "quasi", "hierarchy": zips}})


def test_missing_markers_form_their_own_value() -> None:
    df = pd.DataFrame({"age": ["39", "?", "40", None]})
    ds = Dataset(df, {"age": {"role": "quasi", "type": "numeric", "hierarchy": AGES, "missing": ("", "?")}})
    h = ds.hierarchy("age")
    assert set(h.leaves) == {"39", "40", "41", "", "?"}
    # a marker's branch stays itself up to the root
    q = h.leaf_code("?")
    assert h.labels[1][h.maps[1][q]] == "?" and h.labels[2][h.maps[2][q]] == "*"
    assert np.isnan(ds.encoded["age"].numbers[q])
    with pytest.raises(DataError, match="missing"):
        Dataset(df, {"age": {"role": "quasi", "hierarchy": AGES, "missing": ("", "?"), "missing_policy": "error"}})


def test_non_numeric_value_in_numeric_column() -> None:
    with pytest.raises(DataError, match="'abc'"):
        Dataset(pd.DataFrame({"x": ["1", "abc"]}), {"x": {"role": "sensitive", "type": "numeric"}})


def test_date_columns_get_day_numbers() -> None:
    values = ["2021-03-04", "2021-03-20", "2019-12-31"]
    df = pd.DataFrame({"d": values})
    ds = Dataset(df, {"d": {"role": "quasi", "type": "date", "hierarchy": date_hierarchy("d", values)}})
    numbers = dict(zip(ds.hierarchy("d").leaves, ds.encoded["d"].numbers))
    # 2021-03-04 is day 18,690 after 1970-01-01 (51 years incl. 13 leap days = 18,628; + 62)
    assert numbers["2021-03-04"] == 18690
    assert numbers["2021-03-20"] - numbers["2021-03-04"] == 16


def test_empty_table_and_duplicate_columns_are_errors() -> None:
    with pytest.raises(DataError, match="no rows"):
        Dataset(pd.DataFrame({"a": []}), {"a": {"role": "quasi"}})
    dup = pd.DataFrame([[1, 2]], columns=["a", "a"])
    with pytest.raises(DataError, match="duplicate column"):
        Dataset(dup, {})


def test_a_profiled_dataset_equals_the_in_memory_one() -> None:
    """Value counts alone (what a database GROUP BY returns) give the same encoding facts."""
    from anonset import TableProfile
    from anonset.datasets import patient_register, patient_register_attributes

    table = patient_register(2000, seed=3)
    attrs = patient_register_attributes(table)
    memory = Dataset(table, attrs)
    values = {}
    for column in list(memory.quasi) + list(memory.sensitive):
        counts = table[column].value_counts()
        values[column] = (counts.index.to_numpy(dtype=object), counts.to_numpy())
    profiled = Dataset.from_profile(TableProfile(tuple(table.columns), len(table), values), attrs, source="db")
    assert profiled.n_rows == memory.n_rows and profiled.quasi == memory.quasi
    for column in values:
        a, b = memory.encoded[column], profiled.encoded[column]
        assert list(a.categories) == list(b.categories)
        np.testing.assert_array_equal(a.counts(), b.counts())
        assert b.codes is None
    with pytest.raises(DataError, match="database"):
        profiled.qi_codes()
