"""Profile a table that stays in a database: columns, row count and value counts.

:func:`profile_table` gives what :meth:`anonset.core.dataset.Dataset.from_profile`
needs to encode a table it never holds in memory: the column names, the
number of rows and, for each quasi-identifier and sensitive column, the
distinct values (as the database writes them as text) with their counts.  Only
those aggregates travel to Python, one row per distinct value.

``NULL`` is presented as the column's first missing marker (default ``''``),
which is how :class:`~anonset.core.dataset.Dataset` writes a missing value read
from a DataFrame, and how the SQL engine maps ``NULL`` when it encodes rows
inside the database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from anonset.core.dataset import AttributeSpec, Dataset, Role, TableProfile, attribute_spec
from anonset.engine.sql.base import SqlBackend, TableName, table_parts
from anonset.errors import DataError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["dataset_from_table", "profile_table", "require_columns", "text_of"]


def text_of(column_sql: str, marker_param: str) -> str:
    """SQL for a column's value as text, ``NULL`` replaced by a parameter (the missing marker)."""
    return f"COALESCE(CAST({column_sql} AS TEXT), {marker_param})"


def require_columns(backend: SqlBackend, table: TableName, wanted: Sequence[str]) -> list[str]:
    """The table's columns; a DataError naming the first column of ``wanted`` it lacks.

    Raises
    ------
    DataError
        When the table does not exist or lacks a column.
    """
    columns = backend.columns(table)
    present = set(columns)
    for name in wanted:
        if name not in present:
            shown = ", ".join(columns[:30]) + (" ..." if len(columns) > 30 else "")
            raise DataError(
                f"{backend.where(table)}: column {name!r} not found; columns are: {shown};"
                " check the column names in the configuration"
            )
    return columns


def profile_table(backend: SqlBackend, table: TableName, columns: Sequence[str],
                  missing: str | Mapping[str, str] = "") -> TableProfile:
    """Columns, row count and per-column value counts of a database table.

    Parameters
    ----------
    backend : SqlBackend
        The database.
    table : str or tuple of str
        The table (``"name"``, ``"schema.name"`` or a tuple of parts).
    columns : sequence of str
        Columns to count values of (every quasi-identifier and sensitive
        attribute of the dataset to be built).
    missing : str or mapping of str to str
        The text that stands for ``NULL``: the column's first declared missing
        marker (one for all columns, or per column; default ``''``).

    Returns
    -------
    TableProfile
        ``values[column]`` is ``(values as str, counts as int64)``.

    Raises
    ------
    DataError
        When the table or a column is missing, or a query fails.
    """
    table_parts(table)
    all_columns = require_columns(backend, table, columns)
    ref = backend.table_ref(table)
    p = backend.placeholder
    (n_rows,) = backend.fetch_numpy(f"SELECT CAST(COUNT(*) AS INT8) FROM {ref}", (), ["int8"],
                                    f"counting the rows of {'.'.join(table_parts(table))}")
    values: dict[str, tuple[NDArray[np.object_], NDArray[np.int64]]] = {}
    for name in dict.fromkeys(columns):
        marker = missing.get(name, "") if isinstance(missing, Mapping) else missing
        text = text_of(backend.quote(name), p)
        rows = backend.fetch_rows(
            f"SELECT {text} AS v, CAST(COUNT(*) AS INT8) AS n FROM {ref} GROUP BY 1",
            (marker,), f"counting the values of column {name!r}",
        )
        texts = np.empty(len(rows), dtype=object)
        texts[:] = [str(r[0]) for r in rows]
        counts = np.fromiter((int(r[1]) for r in rows), dtype=np.int64, count=len(rows))
        values[name] = (texts, counts)
    return TableProfile(columns=tuple(all_columns), n_rows=int(n_rows[0]), values=values)


def dataset_from_table(backend: SqlBackend, table: TableName,
                       attributes: Mapping[str, AttributeSpec | Mapping[str, Any]],
                       source: str | None = None) -> Dataset:
    """A :class:`~anonset.core.dataset.Dataset` of a database table, built from its profile.

    Profiles every quasi-identifier and sensitive column named in
    ``attributes`` (``NULL`` read as the column's first missing marker) and
    encodes the dataset from the value counts; no row leaves the database.
    A hierarchy in builder form (``{"builder": "intervals", "widths": [5,
    10]}``) is built from the profiled distinct values, and gives the same
    hierarchy as the same table in memory would.

    Parameters
    ----------
    backend : SqlBackend
        The database.
    table : str or tuple of str
        The table.
    attributes : mapping of str to AttributeSpec or dict
        Attribute specs by column name, as for :class:`~anonset.core.dataset.Dataset`.
    source : str, optional
        How error messages name the table (default: the database and table).
    """
    specs = {name: attribute_spec(name, spec) for name, spec in attributes.items()}
    where = source or backend.where(table)
    columns = [n for n, s in specs.items() if s.role in (Role.QUASI, Role.SENSITIVE)]
    known = backend.columns(table)
    for name in specs:
        if name not in known:
            raise DataError(f"{where}: configured column {name!r} is not in the table; columns are:"
                            f" {', '.join(known)}")
    missing = {n: (specs[n].missing[0] if specs[n].missing else "") for n in columns}
    profile = profile_table(backend, table, columns, missing)
    return Dataset.from_profile(profile, specs, where)
