"""One :class:`~anonset.starter.column_profile.ColumnProfile` per column of a table.

Profiling works on each column's distinct values, found by Arrow's hash
kernels, never with a Python loop over the records; the distinct counts are
exact.  A text column's kind comes from
:func:`~anonset.starter.column_types.detect_kind`; common missing-value
markers (:data:`MISSING_TOKENS`: ``NA``, ``?``, ``null``, ...) are declared
as ``missing`` when, without them, the column is numeric, a date or a code.
Typed Parquet columns are profiled by their type (numbers, dates and
timestamps, booleans; times of day and durations are categorical); a column
whose values are neither text nor one of those (lists, structs, maps,
bytes) is of kind ``other``, with no value read.  Every profile counts the
values held by fewer than :data:`~anonset.starter.column_profile.K` records
(:func:`~anonset.starter.column_profile.held_by`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from anonset.starter.column_profile import ColumnProfile, held_by
from anonset.starter.column_types import detect_kind, number_profile
from anonset.starter.number_format import number_text

__all__ = ["MISSING_TOKENS", "profile_column", "profile_table"]

#: Markers read as "missing" when the column is numeric, a date or a code without them ("" always is).
MISSING_TOKENS: tuple[str, ...] = ("NA", "N/A", "n/a", "na", "NaN", "nan", "?", "null", "NULL", "None", "-")


def profile_table(table: pa.Table) -> list[ColumnProfile]:
    """One :class:`ColumnProfile` per column, in the table's order."""
    return [profile_column(name, table.column(name)) for name in table.column_names]


def profile_column(name: str, column: pa.ChunkedArray) -> ColumnProfile:
    """The profile of one column: text as written (CSV), or a typed column (Parquet)."""
    kind = column.type
    if pa.types.is_dictionary(kind):
        column = column.cast(kind.value_type)
        kind = kind.value_type
    rows = len(column)
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        return _typed_numbers(name, column)
    if pa.types.is_temporal(kind) and not pa.types.is_time(kind) and not pa.types.is_duration(kind):
        return _typed_dates(name, column)
    if _not_values(kind):
        return ColumnProfile(name, rows, "other", 0, int(column.null_count), typed=True, arrow_type=str(kind))
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        column = column.cast(pa.string()) if not pa.types.is_boolean(kind) else pc.if_else(
            column, pa.scalar("True"), pa.scalar("False"))
    counts = pc.value_counts(column)
    values = counts.field("values")
    freq = counts.field("counts").to_numpy(zero_copy_only=False)
    null_rows = int(column.null_count)
    valid = pc.invert(pc.is_null(values))
    values = values.filter(valid)
    freq = freq[valid.to_numpy(zero_copy_only=False)]
    blank = pc.equal(values, "").to_numpy(zero_copy_only=False)
    missing = null_rows + int(freq[blank].sum())
    values, freq = values.filter(pa.array(~blank)), freq[~blank]
    base = ColumnProfile(name, rows, "categorical", len(values), missing, typed=not pa.types.is_string(kind)
                         and not pa.types.is_large_string(kind),
                         named_like_a_value=bool(pc.any(pc.equal(values, name)).as_py()) if len(values) else False,
                         held_by=held_by(freq))
    if len(values) == 0:
        return replace(base, kind="empty")
    if pa.types.is_duration(kind) or pa.types.is_time(kind):  # their text is not the one the dataset reads
        return replace(base, kind="constant" if len(values) == 1 else "categorical",
                       example=str(values[int(np.argmax(freq))].as_py()))
    found = detect_kind(name, base, values, freq)
    if found.kind == "categorical" and not base.typed:
        tokens = pc.is_in(values, value_set=pa.array(MISSING_TOKENS)).to_numpy(zero_copy_only=False)
        if tokens.any() and not tokens.all():
            markers = tuple(t for t in MISSING_TOKENS if t in set(values.filter(pa.array(tokens)).to_pylist()))
            without = replace(base, distinct=int((~tokens).sum()), missing=missing + int(freq[tokens].sum()),
                              markers=markers, held_by=held_by(freq[~tokens]))
            better = detect_kind(name, without, values.filter(pa.array(~tokens)), freq[~tokens])
            if better.kind in ("numeric", "date", "code"):
                return better
    return found


def _typed_numbers(name: str, column: pa.ChunkedArray) -> ColumnProfile:
    """The profile of a typed numeric column (NaN and null are missing, as the dataset reads them)."""
    numbers = column.cast(pa.float64()).to_numpy() if column.num_chunks else np.zeros(0)
    numbers = np.asarray(numbers, dtype=np.float64)
    present = numbers[np.isfinite(numbers)]
    base = ColumnProfile(name, len(column), "numeric", 0, len(column) - len(present), typed=True)
    if not len(present):
        return replace(base, kind="empty")
    distinct, freq = np.unique(present, return_counts=True)
    base = replace(base, distinct=len(distinct), example=number_text(distinct[int(np.argmax(freq))]),
                   held_by=held_by(freq))
    if len(distinct) == 1:
        return replace(base, kind="constant")
    text = pa.array([number_text(distinct[0]), number_text(distinct[-1])])
    profile = number_profile(base, text, np.asarray([distinct[0], distinct[-1]]), np.asarray([1, 1]))
    total = np.cumsum(freq)
    at = np.minimum(np.searchsorted(total, [0.005 * total[-1], 0.995 * total[-1]]), len(distinct) - 1)
    stats = (float(distinct[0]), float(distinct[at[0]]), float(distinct[at[1]]), float(distinct[-1]))
    return replace(profile, numbers=stats, integral=bool((distinct == np.floor(distinct)).all()))


def _typed_dates(name: str, column: pa.ChunkedArray) -> ColumnProfile:
    """The profile of a typed date or timestamp column."""
    counts = pc.value_counts(column)
    values = counts.field("values")
    freq = counts.field("counts").to_numpy(zero_copy_only=False)
    valid = pc.invert(pc.is_null(values)).to_numpy(zero_copy_only=False)
    base = ColumnProfile(name, len(column), "date", int(valid.sum()), int(column.null_count), typed=True)
    if not valid.any():
        return replace(base, kind="empty")
    values, freq = values.filter(pa.array(valid)), freq[valid]
    base = replace(base, held_by=held_by(freq))
    example = str(values[int(np.argmax(freq))].as_py())
    if len(values) == 1:
        return replace(base, kind="constant", example=example)
    low, high = pc.min_max(values).values()
    return replace(base, example=example, date_format="ISO8601", low=str(low.as_py()), high=str(high.as_py()))


def _not_values(kind: pa.DataType) -> bool:
    """Whether a column of this type holds no values anonset reads as text: lists, structs, maps, unions, bytes."""
    return bool(pa.types.is_nested(kind) or pa.types.is_binary(kind) or pa.types.is_large_binary(kind)
                or pa.types.is_fixed_size_binary(kind) or pa.types.is_binary_view(kind))
