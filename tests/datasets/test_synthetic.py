"""Tests of the built-in synthetic patient register (``anonset.datasets``)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonset.core.dataset import AttributeType, Dataset, Role
from anonset.datasets import patient_register, patient_register_attributes, patient_register_dataset
from anonset.datasets.synthetic import (
    COLUMNS,
    DIAGNOSES,
    EDUCATION_LEVELS,
    MARITAL_STATUSES,
    PREGNANCY_AGES,
    RACES,
)
from anonset.errors import ConfigError
from anonset.io.tables import read_table, write_table

QUASI = ("age", "sex", "zip", "race", "marital_status", "education")


@pytest.fixture(scope="module")
def big() -> pd.DataFrame:
    """A table large enough for the correlations to be clear."""
    return patient_register(60_000, seed=11)


# ---------------------------------------------------------------------------- determinism and shape
def test_same_seed_gives_identical_frame() -> None:
    pd.testing.assert_frame_equal(patient_register(3000, seed=5), patient_register(3000, seed=5))


def test_different_seed_gives_different_frame() -> None:
    a = patient_register(3000, seed=5)
    b = patient_register(3000, seed=6)
    assert list(a.columns) == list(b.columns)
    pd.testing.assert_series_equal(a["patient_id"], b["patient_id"])  # ids are positional
    for column in ("age", "zip", "diagnosis", "length_of_stay"):
        assert (a[column] != b[column]).mean() > 0.5, column


def test_shape_and_columns() -> None:
    for n in (0, 1, 7, 1234):
        frame = patient_register(n)
        assert frame.shape == (n, len(COLUMNS))
        assert tuple(frame.columns) == COLUMNS


def test_negative_size_is_rejected() -> None:
    with pytest.raises(ConfigError, match="n_rows"):
        patient_register(-1)


def test_every_value_is_a_str(big: pd.DataFrame) -> None:
    for column in big.columns:
        assert big[column].dtype == object, column
        assert big[column].map(type).eq(str).all(), column


def test_csv_round_trip_is_exact(tmp_path: Path) -> None:
    frame = patient_register(2000, seed=3)
    path = tmp_path / "register.csv"
    write_table(frame, path)
    back = read_table(path)
    pd.testing.assert_frame_equal(back, frame)
    back_pandas = pd.read_csv(path, dtype=str, keep_default_na=False)
    pd.testing.assert_frame_equal(back_pandas, frame)


# ---------------------------------------------------------------------------- value domains
def test_patient_ids_are_unique_and_formatted() -> None:
    frame = patient_register(500)
    assert frame["patient_id"].is_unique
    assert frame["patient_id"].iloc[0] == "P0000001"
    assert frame["patient_id"].iloc[-1] == "P0000500"
    assert frame["patient_id"].str.fullmatch(r"P\d{7}").all()


def test_age_domain_and_skew(big: pd.DataFrame) -> None:
    assert big["age"].str.fullmatch(r"0|[1-9]\d?").all()  # canonical integers, no padding
    age = big["age"].astype(int)
    assert age.min() == 0 and age.max() <= 99
    assert age.nunique() >= 95
    assert age.median() >= 55  # hospital patients are older than the population
    assert (age >= 65).mean() > 0.4
    assert (age == 0).mean() > (age == 5).mean() * 3  # births


def test_zip_codes_come_from_a_regional_pool(big: pd.DataFrame) -> None:
    z = big["zip"]
    assert z.str.fullmatch(r"\d{5}").all()
    leading_zero = z.str.startswith("0")
    assert 0.2 < leading_zero.mean() < 0.9
    assert "02" in set(z.str[:2])  # e.g. 021xx
    n_zips = z.nunique()
    assert 200 <= n_zips <= 400
    prefixes = z.str[:3]
    assert 5 <= prefixes.nunique() <= 20  # ZIPs share 3-digit prefixes
    counts = z.value_counts()
    assert counts.iloc[0] > 10 * counts.iloc[-1]  # some ZIPs are far more popular


def test_zip_pool_does_not_depend_on_seed() -> None:
    a = set(patient_register(40_000, seed=1)["zip"])
    b = set(patient_register(40_000, seed=2)["zip"])
    assert len(a & b) >= 0.9 * min(len(a), len(b))
    assert all(re.fullmatch(r"\d{5}", v) for v in a | b)


def test_categorical_domains(big: pd.DataFrame) -> None:
    assert set(big["sex"]) == {"F", "M"}
    assert set(big["race"]) == set(RACES)
    assert set(big["marital_status"]) == set(MARITAL_STATUSES)
    assert set(big["education"]) == set(EDUCATION_LEVELS)
    assert set(big["diagnosis"]) == set(DIAGNOSES)
    assert 12 <= len(DIAGNOSES) <= 16
    assert 5 <= len(RACES) <= 6
    assert len(EDUCATION_LEVELS) == 8


def test_length_of_stay_is_a_nonnegative_integer(big: pd.DataFrame) -> None:
    assert big["length_of_stay"].str.fullmatch(r"0|[1-9]\d*").all()
    stay = big["length_of_stay"].astype(int)
    assert stay.min() == 0
    assert 3 <= stay.median() <= 8
    assert stay.max() <= 365


def test_pregnancy_only_for_women_of_childbearing_age(big: pd.DataFrame) -> None:
    pregnant = big[big["diagnosis"] == "Pregnancy"]
    assert len(pregnant) > 100
    assert (pregnant["sex"] == "F").all()
    age = pregnant["age"].astype(int)
    lo, hi = PREGNANCY_AGES
    assert age.min() >= lo and age.max() <= hi
    women_20_35 = big[(big["sex"] == "F") & big["age"].astype(int).between(20, 35)]
    assert (women_20_35["diagnosis"] == "Pregnancy").mean() > 0.2


def test_perinatal_only_for_newborns(big: pd.DataFrame) -> None:
    perinatal = big[big["diagnosis"] == "Perinatal"]
    assert len(perinatal) > 100
    assert (perinatal["age"] == "0").all()


def test_children_are_never_married_and_capped_in_education(big: pd.DataFrame) -> None:
    age = big["age"].astype(int)
    assert (big.loc[age < 16, "marital_status"] == "Never-married").all()
    rank = big["education"].map({v: i for i, v in enumerate(EDUCATION_LEVELS)})
    assert (rank[age < 6] == 0).all()
    assert rank[age < 16].max() <= EDUCATION_LEVELS.index("Lower secondary")
    assert rank[age < 19].max() <= EDUCATION_LEVELS.index("Upper secondary")
    assert rank[age < 22].max() <= EDUCATION_LEVELS.index("Post-secondary")


# ---------------------------------------------------------------------------- correlations
def _share(mask: pd.Series, within: pd.Series) -> float:
    return float(mask[within].mean())


def test_widowed_share_rises_with_age(big: pd.DataFrame) -> None:
    age = big["age"].astype(int)
    widowed = big["marital_status"] == "Widowed"
    middle = _share(widowed, age.between(40, 59))
    old = _share(widowed, age.between(70, 79))
    oldest = _share(widowed, age >= 85)
    assert middle < 0.1
    assert old > 2 * middle
    assert oldest > 1.5 * old
    # and widowhood is more common among women
    women = _share(widowed, (age >= 70) & (big["sex"] == "F"))
    men = _share(widowed, (age >= 70) & (big["sex"] == "M"))
    assert women > 1.5 * men


def test_education_is_lower_in_older_cohorts(big: pd.DataFrame) -> None:
    age = big["age"].astype(int)
    degree = big["education"].isin(["Bachelor", "Master", "Doctorate"])
    assert _share(degree, age.between(30, 44)) > 1.5 * _share(degree, age >= 85)


def test_diagnosis_depends_on_age_and_sex(big: pd.DataFrame) -> None:
    age = big["age"].astype(int)
    circulatory = big["diagnosis"] == "Circulatory"
    assert _share(circulatory, age >= 70) > 5 * _share(circulatory, age < 40)
    neoplasms = big["diagnosis"] == "Neoplasms"
    assert _share(neoplasms, age >= 60) > 3 * _share(neoplasms, age < 40)
    injury = big["diagnosis"] == "Injury"
    young = age.between(15, 35)
    assert _share(injury, young & (big["sex"] == "M")) > 1.3 * _share(
        injury, young & (big["sex"] == "F")
    )


def test_race_depends_on_zip_region(big: pd.DataFrame) -> None:
    prefix = big["zip"].str[:3]
    by_region = pd.crosstab(prefix, big["race"], normalize="index")
    hispanic = by_region["Hispanic"]
    assert hispanic.max() > 4 * hispanic.min()
    white = by_region["White"]
    assert white.max() - white.min() > 0.5


def test_length_of_stay_depends_on_diagnosis_and_age(big: pd.DataFrame) -> None:
    stay = big["length_of_stay"].astype(int)
    mean_by_diagnosis = stay.groupby(big["diagnosis"]).mean()
    assert mean_by_diagnosis["Mental"] > 3 * mean_by_diagnosis["Pregnancy"]
    assert mean_by_diagnosis["Neoplasms"] > 2 * mean_by_diagnosis["Symptoms"]
    age = big["age"].astype(int)
    digestive = big["diagnosis"] == "Digestive"
    assert stay[digestive & (age >= 80)].mean() > 1.3 * stay[digestive & age.between(20, 45)].mean()


# ------------------------------------------------------------------------ attributes and dataset
def test_attribute_roles_and_types() -> None:
    specs = patient_register_attributes(patient_register(500))
    assert set(specs) == set(COLUMNS)
    assert specs["patient_id"].role is Role.IDENTIFIER
    assert specs["diagnosis"].role is Role.SENSITIVE
    assert specs["diagnosis"].type is AttributeType.CATEGORICAL
    assert specs["length_of_stay"].role is Role.INSENSITIVE
    assert specs["length_of_stay"].type is AttributeType.NUMERIC
    assert specs["age"].type is AttributeType.NUMERIC
    assert specs["education"].type is AttributeType.ORDINAL
    for name in QUASI:
        assert specs[name].role is Role.QUASI, name
        assert specs[name].hierarchy is not None, name


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    return patient_register_dataset(2000)


def test_dataset_hierarchies_cover_every_value(dataset: Dataset) -> None:
    assert dataset.n_rows == 2000
    assert dataset.quasi == QUASI
    assert dataset.sensitive == ("diagnosis",)
    for name in (*QUASI, "diagnosis"):
        h = dataset.hierarchy(name)
        assert h is not None, name
        assert h.size(h.max_level) == 1, name
        assert h.n_levels >= 2, name
        for value in pd.unique(dataset.table[name]):
            assert h.leaf_code(str(value)) is not None, (name, value)
        # the encoded codes name the table's values
        codes = dataset.encoded[name].codes
        assert (h.labels[0][codes] == dataset.table[name].to_numpy()).all(), name


def test_hierarchy_shapes(dataset: Dataset) -> None:
    age = dataset.require_hierarchy("age")
    assert age.n_levels == 6  # value, 5, 10, 20, 50 years, *
    zip_h = dataset.require_hierarchy("zip")
    assert zip_h.n_levels >= 4
    leaf = zip_h.leaf_code(str(dataset.table["zip"].iloc[0]))
    assert leaf is not None
    chain = [str(zip_h.labels[j][zip_h.maps[j][leaf]]) for j in range(zip_h.n_levels)]
    assert chain[1][:4] == chain[0][:4] and chain[1] != chain[0]
    assert dataset.require_hierarchy("sex").n_levels == 2
    marital = dataset.require_hierarchy("marital_status")
    assert marital.n_levels == 3
    assert 2 <= marital.size(1) < marital.n_leaves
    education = dataset.require_hierarchy("education")
    assert education.leaves == list(EDUCATION_LEVELS)
    assert education.n_levels >= 3
    diagnosis = dataset.require_hierarchy("diagnosis")
    assert diagnosis.n_levels == 3
    assert 3 <= diagnosis.size(1) < diagnosis.n_leaves


def _class_sizes(dataset: Dataset, levels: list[int]) -> np.ndarray:
    columns = [
        dataset.require_hierarchy(q).generalize(dataset.encoded[q].codes, level)
        for q, level in zip(dataset.quasi, levels, strict=True)
    ]
    _, counts = np.unique(np.column_stack(columns), axis=0, return_counts=True)
    return np.asarray(counts)


def test_not_trivially_k_anonymous_but_anonymous_at_the_root(dataset: Dataset) -> None:
    leaf = _class_sizes(dataset, [0] * len(dataset.quasi))
    assert (leaf < 5).sum() > 1000  # many small classes at the leaf level
    assert (leaf[leaf < 5]).sum() > 0.9 * dataset.n_rows
    root = _class_sizes(dataset, [dataset.require_hierarchy(q).max_level for q in dataset.quasi])
    assert root.tolist() == [dataset.n_rows]
    assert root.min() >= 5


def test_dataset_for_a_subset_of_rows() -> None:
    table = patient_register(300, seed=9).iloc[::7].reset_index(drop=True)
    ds = Dataset(table, patient_register_attributes(table))
    assert ds.n_rows == len(table)
    assert ds.quasi == QUASI
