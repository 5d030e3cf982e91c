"""Columns the configuration does not name: refused when they could single someone out, else released with a warning.

A column no attribute names is released unchanged.  That is safe only when
it cannot tell people apart, so such a column is refused
(:class:`~anonset.errors.UndeclaredColumnError`, before anything is written)
when it

* holds a non-empty value that fewer than F records share, F = max(k, 2)
  (a name, a record number, a free-text remark that mentions one person; a
  nearly unique column is the extreme case), checked on the input by
  :func:`refuse_rare_values`; or
* put beside the released quasi-identifiers, leaves released records in
  groups smaller than F (an attacker who knows it can single them out),
  checked on the release by :func:`refuse_splitting`.

Declaring the column ends the refusal: ``role: identifier`` drops it,
``role: quasi`` protects it, ``role: insensitive`` releases it as it is on
purpose.  ``allow_unprotected`` does not silence it.  An undeclared column
that passes both checks is released with a warning (:func:`undeclared_note`).
Empty values (missing, or only spaces) are not values: a column empty but for
one remark is refused for that remark.  The messages never quote a value of
the column.  :func:`refuse_in_database` applies both checks to a release
staged in a database, in SQL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from anonset.core.dataset import Dataset
from anonset.errors import UndeclaredColumnError
from anonset.privacy.base import group_floor
from anonset.recheck.columns import text_codes
from anonset.recheck.verify import classes_of_table

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.engine.sql.base import SqlBackend

__all__ = [
    "NEARLY_UNIQUE",
    "SPARK_DECLARES_ALL",
    "refuse_any_undeclared",
    "refuse_in_database",
    "refuse_rare_values",
    "refuse_splitting",
    "undeclared_columns",
    "undeclared_note",
]

#: Why a Spark run refuses every undeclared column, as its message says.
SPARK_DECLARES_ALL = ("on Spark every column is declared before it is released (checking its values would take a pass"
                      " over the whole table per column)")
#: A column with more distinct non-empty values than this share of the records is called nearly unique.
NEARLY_UNIQUE = 0.5

_DECLARE = ("declare it: role: identifier drops it, role: quasi protects it, role: insensitive releases it as it"
            " is (allow_unprotected does not release it)")


def undeclared_columns(dataset: Dataset, columns: tuple[str, ...] | None = None) -> list[str]:
    """Columns of ``columns`` (default the dataset's) that no attribute of the dataset names."""
    named = set(dataset.attributes)
    return [c for c in (dataset.columns if columns is None else columns) if c not in named]


def refuse_rare_values(dataset: Dataset, k: int) -> None:
    """Refuse the first undeclared column holding a non-empty value shared by fewer than max(k, 2) records.

    Raises
    ------
    UndeclaredColumnError
        Naming the column, how many values are that rare, and the declarations that release it.
    """
    floor = group_floor(k)
    for name in undeclared_columns(dataset):
        _refuse_nested(dataset, name)
        counts = _non_empty_counts(dataset, name)
        rare = int((counts < floor).sum())
        if rare:
            _refuse_rare(dataset.source, name, rare, floor, len(counts), dataset.n_rows)


def refuse_splitting(table: pd.DataFrame, dataset: Dataset, k: int) -> None:
    """Refuse the first undeclared released column that splits the released classes into groups below max(k, 2).

    The released classes are grouped from the released quasi-identifier
    values (the suppressed records are one group); a column that puts any
    record in a group smaller than the floor is refused.
    """
    unnamed = undeclared_columns(dataset, tuple(str(c) for c in table.columns))
    if not unnamed or len(table) == 0:
        return
    floor = group_floor(k)
    quasi_codes = classes_of_table(table, dataset.quasi)
    for name in unnamed:
        codes = _value_codes(table[name])
        group = quasi_codes * (int(codes.max()) + 1) + codes
        ids, _ = pd.factorize(group)
        small = int((np.bincount(ids)[ids] < floor).sum())
        if small:
            _refuse_splitting(dataset.source, name, small, floor)


def refuse_any_undeclared(dataset: Dataset, why: str) -> None:
    """Refuse the first column no attribute names, whatever its values (where checking them costs too much).

    ``why`` says why every column must be declared there (``on Spark ...``).
    """
    unnamed = undeclared_columns(dataset)
    if unnamed:
        raise UndeclaredColumnError(f"{dataset.source}, column {unnamed[0]!r}: not named in the configuration; {why}:"
                                    " role: identifier drops it, role: quasi protects it, role: insensitive releases"
                                    " it as it is")


def undeclared_note(columns: list[str]) -> str | None:
    """The warning for undeclared columns released unchanged (they passed both checks), or None."""
    if not columns:
        return None
    names = ", ".join(repr(c) for c in columns)
    if len(columns) == 1:
        return (f"column {names} is not named in the configuration and is released unchanged (none of its values"
                " singles out records in this release); declare it (role: insensitive to release it as it is,"
                " identifier to drop it, quasi to protect it)")
    return (f"columns {names} are not named in the configuration and are released unchanged (none of their values"
            " singles out records in this release); declare them (role: insensitive to release them as they are,"
            " identifier to drop them, quasi to protect them)")


def refuse_in_database(backend: SqlBackend, table: tuple[str, ...], dataset: Dataset, k: int) -> list[str]:
    """Both checks on a release staged in a database table (two queries per undeclared column).

    Messages name the input (``dataset.source``), whose column it is, never
    the staging table.  Returns the warnings of the undeclared columns that
    pass (see :func:`undeclared_note`).

    Raises
    ------
    UndeclaredColumnError
        As :func:`refuse_rare_values` and :func:`refuse_splitting`.
    """
    unnamed = undeclared_columns(dataset, tuple(backend.columns(table)))
    if not unnamed:
        return []
    ref = backend.table_ref(table)
    floor = group_floor(k)
    n_rows = int(backend.fetch_rows(f"SELECT COUNT(*) FROM {ref}", (), "counting the release")[0][0])
    for name in unnamed:
        column = backend.quote(name)
        rows = backend.fetch_rows(
            f"SELECT COUNT(*), COALESCE(SUM(CASE WHEN n < {floor} THEN 1 ELSE 0 END), 0) FROM (SELECT {column},"
            f" COUNT(*) AS n FROM {ref} WHERE {column} IS NOT NULL AND TRIM(CAST({column} AS TEXT)) <> ''"
            f" GROUP BY {column}) AS g", (), f"counting the values of {name!r}")
        distinct, rare = int(rows[0][0]), int(rows[0][1])
        if rare:
            _refuse_rare(dataset.source, name, rare, floor, distinct, n_rows)
        group = ", ".join([*(backend.quote(q) for q in dataset.quasi), column])
        rows = backend.fetch_rows(f"SELECT COALESCE(SUM(c), 0) FROM (SELECT COUNT(*) AS c FROM {ref} GROUP BY"
                                  f" {group}) AS g WHERE c < {floor}", (), f"grouping on {name!r}")
        small = int(rows[0][0])
        if small:
            _refuse_splitting(dataset.source, name, small, floor)
    note = undeclared_note(unnamed)
    return [note] if note else []


def _value_codes(column: pd.Series) -> NDArray[np.int64]:
    """Each record's index into the distinct values of a released column, as they are (text, numbers, bytes)."""
    if isinstance(column.dtype, (pd.CategoricalDtype, pd.StringDtype)):  # grouped without a string per record
        return text_codes(column, "nan")[0].astype(np.int64)
    codes, _ = pd.factorize(column, use_na_sentinel=False)
    return np.asarray(codes, dtype=np.int64)


def _refuse_nested(dataset: Dataset, name: str) -> None:
    """Refuse an undeclared column whose values are lists, structs or maps: they cannot be checked value by value."""
    if dataset.arrow is None:
        return
    kind = dataset.arrow.schema.field(name).type
    if pa.types.is_nested(kind):
        raise UndeclaredColumnError(
            f"{dataset.source}, column {name!r}: not named in the configuration, and its values are {kind} (not"
            f" single values anonset can check for values that single people out), so it is not released: {_DECLARE}")


def _non_empty_counts(dataset: Dataset, name: str) -> NDArray[np.int64]:
    """Records per distinct non-empty value of a column (a null, NaN or only-spaces value is empty)."""
    if dataset.arrow is not None:
        column = dataset.arrow.column(name)
        if pa.types.is_dictionary(column.type):
            column = column.cast(column.type.value_type)
        counted = pc.value_counts(column)
        values, counts = counted.field("values"), counted.field("counts").to_numpy(zero_copy_only=False)
        empty = pc.is_null(values).to_numpy(zero_copy_only=False)
        if pa.types.is_string(values.type) or pa.types.is_large_string(values.type):
            blank = pc.equal(pc.utf8_trim_whitespace(values), "")
            empty |= pc.fill_null(blank, True).to_numpy(zero_copy_only=False)
        return np.asarray(counts[~empty], dtype=np.int64)
    column = dataset.column(name)
    counts = column.value_counts(dropna=True)
    keys = counts.index.to_numpy(dtype=object)
    blank = np.fromiter((isinstance(v, str) and not v.strip() for v in keys), dtype=np.bool_, count=len(keys))
    return np.asarray(counts.to_numpy()[~blank], dtype=np.int64)


def _refuse_rare(where: str, name: str, rare: int, floor: int, distinct: int, n_rows: int) -> None:
    unique = (f"; {distinct:,} distinct values in {n_rows:,} records: nearly unique"
              if distinct > NEARLY_UNIQUE * n_rows else "")
    held = (f"{rare:,} of its non-empty values is held by fewer than {floor} records" if rare == 1
            else f"{rare:,} of its non-empty values are held by fewer than {floor} records each")
    raise UndeclaredColumnError(
        f"{where}, column {name!r}: not named in the configuration, and {held}{unique}; released unchanged it"
        f" could single people out, so it is not released: {_DECLARE}")


def _refuse_splitting(where: str, name: str, small: int, floor: int) -> None:
    raise UndeclaredColumnError(
        f"{where}, column {name!r}: not named in the configuration, and beside the released quasi-identifiers it"
        f" puts {small:,} records in groups smaller than {floor}; released unchanged it could single them out, so"
        f" it is not released: {_DECLARE}")
