"""The distinct values of a column, and what each of them stands for, found without a Python loop per record.

A column is encoded once: every record gets the index of its value among the
column's distinct values (in the order in which they first appear), and what
depends on the value — its hierarchy leaf, its number, its rank — is decided
once per distinct value with Arrow compute kernels and numpy.

An Arrow column (a table read by :func:`anonset.io.tables.read_arrow_table`,
or a pandas column backed by Arrow strings) is dictionary-encoded by Arrow, so
no record becomes a Python string.  A column of Python objects is factorized
by pandas, as before.  Either way a missing value (null, NaN, None) reads as
the first declared missing marker.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Distinct", "arrow_text", "dictionary_encode", "distinct_of_arrow", "distinct_of_dictionary",
           "distinct_of_objects", "is_arrow_text", "is_arrow_text_dictionary", "key_positions", "one_dictionary",
           "parse_floats", "plain_floats"]

#: A number that Python's ``float`` and Arrow's cast read alike (both round correctly): no blanks, ASCII digits.
_PLAIN_NUMBER = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"


@dataclass(frozen=True, eq=False)
class Distinct:
    """Distinct values of a column in order of first appearance, their counts, and each record's index.

    ``values`` holds the values as read (``str`` for an Arrow column);
    ``inverse`` is None for a table profiled in a database, whose records
    are not in memory.
    """

    values: NDArray[np.object_]
    counts: NDArray[np.int64]
    inverse: NDArray[np.int32] | NDArray[np.int64] | None

    @cached_property
    def text(self) -> pa.StringArray:
        """``str(value)`` of every distinct value, as an Arrow array (the operand of the vectorized lookups)."""
        return pa.array(list(map(str, self.values)), type=pa.string())

    @cached_property
    def strings(self) -> NDArray[np.object_]:
        """``str(value)`` of every distinct value, as an object array."""
        return np.asarray(list(map(str, self.values)), dtype=object)

    def among(self, keys: Sequence[str]) -> NDArray[np.bool_]:
        """Whether each distinct value, as text, is one of ``keys``."""
        if not keys:
            return np.zeros(len(self.values), dtype=np.bool_)
        found: NDArray[np.bool_] = pc.is_in(self.text, value_set=pa.array(list(keys), type=pa.string())).to_numpy(
            zero_copy_only=False)
        return found


def is_arrow_text(kind: pa.DataType) -> bool:
    """Whether an Arrow type is text (``string`` or ``large_string``)."""
    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind))


def is_arrow_text_dictionary(kind: pa.DataType) -> bool:
    """Whether an Arrow type is dictionary-encoded text."""
    return bool(pa.types.is_dictionary(kind) and is_arrow_text(kind.value_type))


def arrow_text(column: pd.Series) -> pa.ChunkedArray | None:
    """The Arrow text behind a pandas column of Arrow-backed strings, or None for any other column."""
    dtype = column.dtype
    arrow_backed = ((isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow")
                    or (isinstance(dtype, pd.ArrowDtype) and is_arrow_text(dtype.pyarrow_dtype)))
    if not arrow_backed:
        return None
    data = pa.array(column.array)
    return data if isinstance(data, pa.ChunkedArray) else pa.chunked_array([data])


def distinct_of_arrow(column: pa.ChunkedArray, marker: str) -> Distinct:
    """Dictionary-encode an Arrow text column; a null reads as ``marker``.

    The order of the distinct values is that of their first appearance, with
    the marker where the first null stands, as :func:`distinct_of_objects`
    gives it for the same values held as Python objects.
    """
    return distinct_of_dictionary(dictionary_encode(column), marker)


def dictionary_encode(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """A text column dictionary-encoded: the same values (nulls kept), one dictionary, the narrowest indices.

    The dictionary lists the values in order of first appearance; the
    indices are 8, 16 or 32 bits wide, as few as the dictionary allows.  A
    column already dictionary-encoded (read so from Parquet, or from a pandas
    categorical) is encoded again from its indices, without its text.
    """
    if pa.types.is_dictionary(column.type):
        column = one_dictionary(column)
        dictionary = column.chunks[0].dictionary if column.num_chunks else None
        distinct_values = (dictionary is not None and dictionary.null_count == 0
                           and pc.count_distinct(dictionary).as_py() == len(dictionary))
        if distinct_values:
            return _in_first_appearance(column)
        column = column.cast(column.type.value_type)  # a dictionary with nulls or repeated values: as text
    encoded = one_dictionary(pc.dictionary_encode(column))
    chunks = encoded.chunks
    if not chunks:
        return encoded
    dictionary = chunks[0].dictionary
    width = _index_width(len(dictionary))
    if width == encoded.type.index_type:
        return encoded
    return pa.chunked_array([pa.DictionaryArray.from_arrays(c.indices.cast(width), dictionary) for c in chunks],
                            type=pa.dictionary(width, dictionary.type))


def _index_width(size: int) -> pa.DataType:
    """The narrowest signed index type for a dictionary of ``size`` values."""
    return pa.int8() if size <= 2**7 else pa.int16() if size <= 2**15 else pa.int32()


def _in_first_appearance(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """A dictionary-encoded column whose chunks share one dictionary, as :func:`dictionary_encode` gives it:
    only the values that occur, in order of first appearance, with the narrowest indices."""
    chunks = column.chunks
    if not chunks:
        return column
    indices = pa.chunked_array([c.indices for c in chunks])
    order = pc.unique(indices).drop_null()  # Arrow keeps the order in which values first appear
    width = _index_width(len(order))
    renumber = np.zeros(len(chunks[0].dictionary), dtype=width.to_pandas_dtype())
    renumber[order.to_numpy()] = np.arange(len(order))
    new_codes = pa.array(renumber)
    dictionary = chunks[0].dictionary.take(order)
    return pa.chunked_array([pa.DictionaryArray.from_arrays(pc.take(new_codes, c.indices), dictionary)
                             for c in chunks], type=pa.dictionary(width, dictionary.type))


def one_dictionary(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """A dictionary-encoded column whose chunks all hold the same dictionary (unified when they do not)."""
    chunks = column.chunks
    if not chunks:
        return column
    first = chunks[0].dictionary
    if all(_same_array(c.dictionary, first) for c in chunks[1:]):
        return column
    return column.unify_dictionaries()


def _same_array(a: pa.Array, b: pa.Array) -> bool:
    """Whether two arrays hold the same values: the same buffers (found at once), else compared."""
    if len(a) == len(b) and a.offset == b.offset and all(
            (x is None and y is None) or (x is not None and y is not None and x.address == y.address)
            for x, y in zip(a.buffers(), b.buffers(), strict=True)):
        return True
    return bool(a.equals(b))


def distinct_of_dictionary(encoded: pa.ChunkedArray, marker: str) -> Distinct:
    """The distinct values of a column :func:`dictionary_encode` encoded; a null reads as ``marker``."""
    chunks = encoded.chunks
    if not chunks:
        return Distinct(np.zeros(0, dtype=object), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32))
    values = np.asarray(chunks[0].dictionary.to_numpy(zero_copy_only=False), dtype=object)
    nulls = encoded.null_count > 0
    parts = [(pc.fill_null(c.indices, -1) if nulls else c.indices).to_numpy(zero_copy_only=False) for c in chunks]
    inverse = np.concatenate(parts).astype(np.int32) if len(parts) > 1 else parts[0].astype(np.int32)
    if nulls:
        values, inverse = _with_marker(values, inverse, marker)
    return Distinct(values, np.bincount(inverse, minlength=len(values)).astype(np.int64), inverse)


def _with_marker(values: NDArray[np.object_], inverse: NDArray[np.int32],
                 marker: str) -> tuple[NDArray[np.object_], NDArray[np.int32]]:
    """Put the marker among the distinct values where the first null appears (nulls have index -1)."""
    first_null = int(np.argmax(inverse < 0))
    # codes are handed out in order of first appearance: the values seen before the first null are 0..p-1
    p = int(inverse[:first_null].max()) + 1 if first_null else 0
    inverse = np.where(inverse < 0, p, inverse + (inverse >= p)).astype(np.int32)
    values = np.concatenate([values[:p], np.asarray([marker], dtype=object), values[p:]])
    merged, uniques = pd.factorize(values, sort=False)
    if len(uniques) < len(values):  # the marker is also written as a value: one distinct value
        inverse = merged.astype(np.int32)[inverse]
        values = np.asarray(uniques, dtype=object)
    return values, inverse


def distinct_of_objects(raw: NDArray[np.object_]) -> Distinct:
    """Factorize a column of Python objects (missing values already replaced by the marker)."""
    codes, uniques = pd.factorize(raw, sort=False, use_na_sentinel=False)
    values = np.asarray(uniques, dtype=object)
    return Distinct(values, np.bincount(codes, minlength=len(values)).astype(np.int64), codes.astype(np.int64))


def key_positions(text: pa.StringArray, keys: NDArray[np.object_] | Sequence[str]) -> NDArray[np.int64]:
    """Position of each value in ``keys`` (compared as text), -1 when absent.

    A key listed twice gives its last position, as ``{key: i for i, key in
    enumerate(keys)}`` would.
    """
    n = len(keys)
    if n == 0:
        return np.full(len(text), -1, dtype=np.int64)
    reversed_keys = pa.array(list(map(str, keys))[::-1], type=pa.string())
    found = pc.index_in(text, value_set=reversed_keys)
    index = pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    return np.where(index < 0, -1, n - 1 - index)


def plain_floats(text: pa.StringArray) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """The number of every value written as a plain decimal (NaN elsewhere), and which values are.

    A plain decimal (``-12``, ``0.5``, ``1e5``; no blanks, ASCII digits) is
    read by Arrow, which rounds exactly as Python's ``float`` does.
    """
    out = np.full(len(text), np.nan)
    if not len(text):
        return out, np.zeros(0, dtype=np.bool_)
    plain: NDArray[np.bool_] = pc.fill_null(pc.match_substring_regex(text, _PLAIN_NUMBER), False).to_numpy(
        zero_copy_only=False)
    fast = np.flatnonzero(plain)
    if len(fast):
        out[fast] = pc.cast(text.take(pa.array(fast)), pa.float64()).to_numpy(zero_copy_only=False)
    return out, plain


def parse_floats(text: pa.StringArray) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """``float(value)`` of every value, and whether it parsed (NaN where it did not).

    Plain decimals are parsed by Arrow (:func:`plain_floats`); the few other
    values (blanks around the digits, ``inf``, ``1_000``, non-ASCII digits,
    text) by Python's ``float``, so the result is exactly Python's.
    """
    out, ok = plain_floats(text)
    ok = ok.copy()
    for i in np.flatnonzero(~ok):
        try:
            out[i] = float(text[i].as_py())
            ok[i] = True
        except (ValueError, TypeError):
            continue
    return out, ok
