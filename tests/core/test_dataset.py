"""Dataset: encoding, missing values, numeric and date columns, roles."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonset import DataError, Dataset, Hierarchy, HierarchyError
from anonset.core.dataset import AttributeSpec
from anonset.errors import ConfigError
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
    numbers = dict(zip(ds.hierarchy("d").leaves, ds.encoded["d"].numbers, strict=True))
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


# --------------------------------------------------------------------------- hierarchies in builder form
def test_builder_form_is_built_from_the_rows() -> None:
    """The YAML form works in Python: the dataset builds it from the distinct values, markers aside."""
    df = pd.DataFrame({"edu": ["3", "4", "2", "1", "?", "4"], "age": ["39", "41", None, "52", "39", "60"]})
    ds = Dataset(df, {
        "edu": {"role": "quasi", "missing": ["?"], "hierarchy": {"builder": "ordered", "fanouts": [2, 2]}},
        "age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals", "widths": [10, 20]}},
    })
    # sorted, the "?" branch added by the dataset, no level "1..4" equal to the root
    assert ds.require_hierarchy("edu").rows() == [["1", "1..2", "*"], ["2", "1..2", "*"], ["3", "3..4", "*"],
                                                  ["4", "3..4", "*"], ["?", "?", "*"]]
    assert ds.require_hierarchy("age").rows() == [["39", "30-39", "20-39", "*"], ["41", "40-49", "40-59", "*"],
                                                  ["52", "50-59", "40-59", "*"], ["60", "60-69", "60-79", "*"],
                                                  ["", "", "", "*"]]
    resolved = ds.resolved_specs()
    assert isinstance(resolved["edu"].hierarchy, Hierarchy)  # new rows are encoded with the same hierarchy
    again = Dataset(df.iloc[::-1], resolved)
    assert again.require_hierarchy("edu").rows() == ds.require_hierarchy("edu").rows()


def test_builder_form_follows_the_attributes_order() -> None:
    words = ["Zero", "One", "Two", "Three", "Four", "Five"]
    df = pd.DataFrame({"children": ["Two", "Zero", "Five", "One", "Four", "Three"]})
    spec = AttributeSpec(role="quasi", type="ordinal", order=words, hierarchy={"builder": "ordered", "fanouts": [3]})
    ds = Dataset(df, {"children": spec})
    assert [row[1] for row in ds.require_hierarchy("children").rows()] == ["Zero..Two"] * 3 + ["Three..Five"] * 3


def test_hierarchy_file_path_form(tmp_path: Path) -> None:
    path = tmp_path / "sex.csv"
    path.write_text("M;*\nF;*\n", encoding="utf-8")
    ds = Dataset(pd.DataFrame({"sex": ["F", "M"]}), {"sex": {"role": "quasi", "hierarchy": str(path)}})
    assert ds.require_hierarchy("sex").leaves == ["M", "F"]


@pytest.mark.parametrize(("spec", "message"), [
    ({"role": "quasy"}, r"attribute 'age': unknown attribute role 'quasy'; use one of identifier"),
    ({"type": "numerc"}, r"attribute 'age': unknown attribute type 'numerc'; use one of numeric"),
    ({"roles": "quasi"}, r"attribute 'age': unknown key 'roles'; use role \| type"),
    ({"hierarchy": {"builder": "interval"}}, r"attribute 'age': unknown hierarchy builder 'interval'"),
    ({"hierarchy": 5}, r"attribute 'age': `hierarchy` must be a Hierarchy, a hierarchy file path or a builder"),
])
def test_bad_attribute_specs_name_the_attribute(spec: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Dataset(pd.DataFrame({"age": ["1"]}), {"age": spec})
