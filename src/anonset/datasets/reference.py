"""Loaders for the reference data the papers use (read from a path; never shipped with anonset).

``read_adult_raw`` reads the UCI ``adult.data`` file (no header, ``", "``
separated, ``?`` for missing values) and keeps the 30,162 complete records
the papers use.  ``adult_morton`` configures it as Morton et al. did: age and
education-num numeric with interval hierarchies, workclass and marital-status
with three-level taxonomies, the other four categorical attributes with two
levels (value, ``*``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from anonset.core.dataset import AttributeSpec, AttributeType, Dataset, Role
from anonset.core.hierarchy import Hierarchy
from anonset.core.hierarchy_builders import interval_hierarchy
from anonset.core.hierarchy_csv import read_taxonomy
from anonset.errors import DataError

__all__ = ["ADULT_COLUMNS", "adult_morton", "read_adult_raw"]

ADULT_COLUMNS = (
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
    "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country", "income",
)


def read_adult_raw(path: str | Path, complete_only: bool = True) -> pd.DataFrame:
    """The UCI ``adult.data`` file as strings; with ``complete_only`` the records without ``?``."""
    p = Path(path)
    if not p.exists():
        raise DataError(f"{p}: file not found; point to the UCI adult.data file")
    frame = pd.read_csv(p, header=None, names=list(ADULT_COLUMNS), sep=",", skipinitialspace=True, dtype=str,
                        keep_default_na=False)
    frame = frame[frame["age"] != ""]
    if complete_only:
        frame = frame[~(frame == "?").any(axis=1)]
    return frame.reset_index(drop=True)


def adult_morton(adult_dir: str | Path) -> Dataset:
    """Adult configured as in Morton et al. (8 quasi-identifiers, 30,162 records).

    Age: intervals of 5, 10, 20 and 40 years; education-num: 2, 4 and 8;
    workclass and marital-status: the taxonomies in ``taxonomies/`` (three
    levels, short branches padded); occupation, race, sex, native-country:
    value then ``*``.  Lattice: 6 · 5 · 3 · 3 · 2 · 2 · 2 · 2 = 4,320 strings.
    """
    root = Path(adult_dir)
    table = read_adult_raw(root / "adult.data")
    ages = pd.unique(table["age"])
    years = pd.unique(table["education-num"])
    attrs: dict[str, AttributeSpec] = {
        "age": AttributeSpec(role=Role.QUASI, type=AttributeType.NUMERIC,
                             hierarchy=interval_hierarchy("age", ages, widths=[5, 10, 20, 40])),
        "workclass": AttributeSpec(role=Role.QUASI, hierarchy=read_taxonomy(root / "taxonomies" / "workclass.txt",
                                                                          "workclass")),
        "education-num": AttributeSpec(role=Role.QUASI, type=AttributeType.NUMERIC,
                                       hierarchy=interval_hierarchy("education-num", years, widths=[2, 4, 8])),
        "marital-status": AttributeSpec(role=Role.QUASI, hierarchy=read_taxonomy(
            root / "taxonomies" / "marital_status.txt", "marital-status")),
    }
    for column in ("occupation", "race", "sex", "native-country"):
        flat = Hierarchy.flat(column, sorted(pd.unique(table[column])))
        attrs[column] = AttributeSpec(role=Role.QUASI, hierarchy=flat)
    return Dataset(table, attrs, source=str(root / "adult.data"))
