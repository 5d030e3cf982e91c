"""How a fragment's released rows are handed back to Spark: text values, nulls for missing, one row more."""

from __future__ import annotations

import numpy as np
import pandas as pd

from anonset.distributed.worker import _text


def test_strings_pass_unchanged_and_missing_values_become_null() -> None:
    column = pd.Series(["20-29", None, "*", np.nan, "10115"], dtype=object)
    out = _text(column, 6)
    assert out.dtype == object
    assert list(out) == ["20-29", None, "*", None, "10115", None]


def test_other_values_are_written_as_str_writes_them() -> None:
    column = pd.Series([39, 39.5, None, True], dtype=object)
    assert list(_text(column, 4)) == ["39", "39.5", None, "True"]
    floats = pd.Series([1.0, np.nan, 2.25])
    assert list(_text(floats, 4)) == ["1.0", None, "2.25", None]


def test_an_empty_release_is_padded() -> None:
    assert list(_text(pd.Series([], dtype=object), 1)) == [None]
