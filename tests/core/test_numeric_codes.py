"""Codes that pandas read as numbers: a ZIP code as ``1903.0`` or ``1903`` (for ``01903``) is refused, not masked.

Found in a notebook: ``pd.read_csv`` read a ZIP column as float64 (``1903.0``,
``NaN``), the masking builder built leaves such as ``'1010.0'``, and ZIP
ended up as ``*``, with nothing said.  A code column (categorical or ordinal)
whose values arrive as numbers is refused with one line saying to read it as
text, unless its values are whole numbers that a given hierarchy lists.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from anonset import Anonymizer, DataError, Dataset, Hierarchy, KAnonymity, Requirements, read_table

ZIPS = ["01903", "01904", "10010", "10011"]


def admissions(n: int = 200) -> str:
    """A CSV text with ZIP codes (two with a leading zero, some blank), ages and a diagnosis."""
    rng = np.random.default_rng(0)
    zips = rng.choice([*ZIPS, ""], n)
    return "zip,age,diagnosis\n" + "".join(f"{z},{a},flu\n" for z, a in zip(zips, rng.integers(20, 80, n), strict=True))


def attributes(hierarchy: object = None) -> dict[str, object]:
    return {"zip": {"role": "quasi", "hierarchy": hierarchy or {"builder": "masking"}},
            "age": {"role": "quasi", "type": "numeric", "hierarchy": {"builder": "intervals", "widths": [10, 60]}},
            "diagnosis": {"role": "sensitive"}}


def fit(frame: pd.DataFrame | pa.Table, attrs: dict[str, object]) -> pd.DataFrame:
    release = Anonymizer(attrs, Requirements([KAnonymity(5)], 0.05)).fit(frame).release_
    assert release.table is not None
    return release.table


def test_a_zip_code_read_as_float_is_refused_in_one_line() -> None:
    frame = pd.read_csv(io.StringIO(admissions()))
    assert frame["zip"].dtype == np.float64  # what a notebook gets
    with pytest.raises(DataError) as caught:
        fit(frame, attributes())
    message = str(caught.value)
    assert "column 'zip'" in message and "decimal number" in message and "dtype=str" in message
    assert "\n" not in message


def test_a_zip_code_read_as_integer_with_lost_zeros_is_refused() -> None:
    frame = pd.read_csv(io.StringIO(admissions())).dropna()
    frame["zip"] = frame["zip"].astype(np.int64)  # 1903, 10010: four and five digits
    with pytest.raises(DataError, match="leading zeros are lost"):
        fit(frame, attributes())
    # the same refusal for an Arrow table of integers
    with pytest.raises(DataError, match="leading zeros are lost"):
        fit(pa.Table.from_pandas(frame, preserve_index=False), attributes())


def test_read_as_text_the_same_column_is_masked_as_written(tmp_path: Path) -> None:
    frame = pd.read_csv(io.StringIO(admissions()), dtype=str, keep_default_na=False)
    released = fit(frame, attributes())
    labels = set(released["zip"]) - {"*", ""}
    assert labels and all(len(v) == 5 for v in labels)  # codes keep their five characters (01903 -> 0190*)
    assert any(v.startswith("0") for v in labels)
    (tmp_path / "adm.csv").write_text(admissions())
    assert (fit(read_table(tmp_path / "adm.csv"), attributes())["zip"] == released["zip"]).all()


def test_whole_numbers_a_given_hierarchy_lists_are_accepted_and_released_as_it_writes_them() -> None:
    """Counts of children read as float because of a blank: a hierarchy file lists 0, 1, 2, 3."""
    rng = np.random.default_rng(2)
    children = rng.choice([0.0, 1.0, 2.0, 3.0], 300)
    frame = pd.DataFrame({"children": children, "diagnosis": "flu"})
    h = Hierarchy.from_rows("children", [["0", "0-1", "*"], ["1", "0-1", "*"], ["2", "2-3", "*"], ["3", "2-3", "*"]])
    released = fit(frame, {"children": {"role": "quasi", "hierarchy": h}, "diagnosis": {"role": "sensitive"}})
    assert set(released["children"]) <= {"0", "1", "2", "3", "0-1", "2-3", "*"}
    ds = Dataset(frame, {"children": {"role": "quasi", "hierarchy": h}})
    assert ds.encoded["children"].counts().sum() == 300
    # a value the hierarchy does not list is refused with the same advice
    frame.loc[0, "children"] = 2.5
    with pytest.raises(DataError, match="dtype=str"):
        fit(frame, {"children": {"role": "quasi", "hierarchy": h}, "diagnosis": {"role": "sensitive"}})


def test_a_quantity_declared_numeric_is_untouched() -> None:
    frame = pd.read_csv(io.StringIO(admissions())).dropna()
    frame["zip"] = frame["zip"].astype(float)
    attrs = attributes({"builder": "intervals", "widths": [100, 10000]})
    attrs["zip"] = {**attrs["zip"], "type": "numeric"}  # type: ignore[dict-item]
    released = fit(frame, attrs)
    assert len(released) == len(frame)
