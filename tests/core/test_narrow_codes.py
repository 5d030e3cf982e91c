"""Codes take the narrowest integer type their column's domain allows, and read back the same values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonset import Dataset
from anonset.core.dataset import code_dtype
from anonset.recheck.columns import text_codes


@pytest.mark.parametrize(("n_values", "dtype"), [(1, np.int8), (127, np.int8), (128, np.int16),
                                                 (32_767, np.int16), (32_768, np.int32), (70_000, np.int32)])
def test_a_column_of_n_values_is_coded_in_the_narrowest_type(n_values: int, dtype: type) -> None:
    """127 values (codes 0..126) fit one byte, 32,767 two; each record decodes to its own value."""
    rng = np.random.default_rng(n_values)
    values = np.array([f"v{i:06d}" for i in range(n_values)], dtype=object)
    column = values[np.concatenate([np.arange(n_values), rng.integers(0, n_values, 500)])]
    dataset = Dataset(pd.DataFrame({"q": column, "s": column}), {"q": {"role": "quasi"}, "s": {"role": "sensitive"}})
    assert code_dtype(n_values) is dtype
    for name in ("q", "s"):
        encoded = dataset.encoded[name]
        assert encoded.row_codes().dtype == dtype
        assert (np.asarray(encoded.categories, dtype=object)[encoded.row_codes()] == column).all()
        assert encoded.counts().sum() == len(column)


@pytest.mark.parametrize("sort", [False, True])
@pytest.mark.parametrize("kind", ["category", "object", "string[pyarrow]"])
def test_released_texts_are_coded_narrow_and_read_back(kind: str, sort: bool) -> None:
    """The re-check's codes of a released column: one byte for a few texts, the same texts back, NaN as the marker."""
    texts = pd.Series(["30-39", "*", "20-29", None, "30-39", "*"], dtype=kind)
    codes, values = text_codes(texts, "nan", sort=sort)
    assert codes.dtype == np.int8
    assert values[codes].tolist() == ["30-39", "*", "20-29", "nan", "30-39", "*"]
    if sort:
        assert values.tolist() == sorted(values.tolist())
