"""The DuckDB backend: an embedded database, for files and DataFrames.

A CSV or Parquet file is exposed as a view (:meth:`DuckDBBackend.from_file`,
CSV columns read as text exactly as written) and a DataFrame is registered
without copying (:meth:`DuckDBBackend.from_dataframe`).  The contract is
:class:`anonset.engine.sql.base.SqlBackend`.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonset.engine.sql.base import _NUMPY_TYPES, ColumnType, TableName, _BackendBase, _first_line
from anonset.errors import DataError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["DuckDBBackend"]

#: DuckDB settings a run may give (``duckdb:`` in a config): how much memory DuckDB may hold before it spills
#: to ``temp_directory``, its threads, and whether it may reorder rows (less memory for large scans).
SETTINGS = ("memory_limit", "threads", "temp_directory", "max_temp_directory_size", "preserve_insertion_order")

#: A null marker no CSV field is expected to hold: DuckDB then reads empty fields as ''.
_NO_NULL = "\x01anonset-no-null\x02"


class DuckDBBackend(_BackendBase):
    """An embedded DuckDB database.

    Parameters
    ----------
    database : str
        A database file, or ``":memory:"`` (default).
    connection : duckdb.DuckDBPyConnection, optional
        Use this connection instead of opening one (it is not closed by
        :meth:`close`).
    settings : mapping of str to str, optional
        DuckDB settings (:data:`SETTINGS`): ``memory_limit`` (``"1GB"``) with
        ``temp_directory`` lets DuckDB work on tables larger than memory by
        spilling to disk.

    Attributes
    ----------
    table : str or None
        The view made by :meth:`from_file` / :meth:`from_dataframe`.
    """

    dialect = "duckdb"
    placeholder = "?"

    def __init__(self, database: str = ":memory:", connection: Any = None,
                 settings: Mapping[str, Any] | None = None):
        super().__init__()
        import duckdb

        self._duckdb = duckdb
        self.database = database
        self._owned = connection is None
        try:
            self.con = duckdb.connect(database) if connection is None else connection
        except duckdb.Error as exc:
            raise DataError(f"DuckDB database {database}: cannot open it ({_first_line(exc)});"
                            " check the path and that no other process holds it") from exc
        self.table: str | None = None
        self._source = "" if database == ":memory:" else database
        for key, value in (settings or {}).items():
            if key not in SETTINGS:
                raise DataError(f"DuckDB setting {key!r} is not one anonset sets; use {', '.join(SETTINGS)}")
            try:
                self.con.execute(f"SET {key} = ?", [value])
            except duckdb.Error as exc:
                raise DataError(f"DuckDB setting {key} = {value!r}: {_first_line(exc)}") from None
        self._views: list[str] = []
        self._registered: list[str] = []

    @property
    def description(self) -> str:
        """``DuckDB <file or source>``."""
        return f"DuckDB {self._source or 'in-memory database'}"

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_file(cls, path: str | Path, delimiter: str | None = None, table: str = "data",
                  fmt: str | None = None, settings: Mapping[str, Any] | None = None) -> DuckDBBackend:
        """An in-memory DuckDB database with a CSV or Parquet file exposed as view ``table``.

        CSV columns are read as text exactly as written (``007`` stays
        ``007``, padding kept, empty fields are empty strings, never NULL),
        the way :func:`anonset.io.tables.read_table` reads them.

        Parameters
        ----------
        path : str or Path
            The file.
        delimiter : str, optional
            CSV delimiter; sniffed from the first bytes when omitted.
        table : str
            Name of the view.
        fmt : {"csv", "parquet"}, optional
            Format; inferred from the suffix (``.parquet`` / ``.pq`` is Parquet).
        settings : mapping of str to str, optional
            DuckDB settings (see the class).
        """
        from anonset.io.delimiters import sniff_delimiter

        p = Path(path)
        if not p.is_file():
            raise DataError(f"{p}: file not found; check the path")
        backend = cls(settings=settings)
        backend._source = str(p)
        kind = fmt or ("parquet" if p.suffix.lower() in (".parquet", ".pq") else "csv")
        try:
            if kind == "parquet":
                relation = backend.con.read_parquet(str(p))
            elif kind == "csv":
                sep = delimiter or sniff_delimiter(p)
                # no sniffing: the header names the columns, every column is text, ragged rows are errors
                relation = backend.con.read_csv(
                    str(p), header=True, sep=sep, quotechar='"', escapechar='"', auto_detect=False,
                    columns={name: "VARCHAR" for name in _csv_header(p, sep)},
                    na_values=[_NO_NULL], allow_quoted_nulls=False, strict_mode=True,
                )
            else:
                raise DataError(f"{p}: unknown format {kind!r}; use csv or parquet")
            relation.create_view(table, replace=False)
        except backend._duckdb.Error as exc:
            backend.close()
            raise DataError(f"{p}: DuckDB cannot read the file ({_first_line(exc)}); check the format,"
                            " delimiter and quoting") from exc
        backend._views.append(table)
        backend.table = table
        return backend

    @classmethod
    def from_dataframe(cls, frame: pd.DataFrame, table: str = "data") -> DuckDBBackend:
        """An in-memory DuckDB database with ``frame`` registered (not copied) as view ``table``."""
        backend = cls()
        backend._source = "<DataFrame>"
        backend.con.register(table, frame)
        backend._registered.append(table)
        backend.table = table
        return backend

    # ------------------------------------------------------------------ primitives
    def execute(self, sql: str, params: Sequence[Any] = (), what: str = "") -> int:
        """Run a statement that returns no rows; the rows it created (CREATE TABLE AS), else -1."""
        try:
            result = self.con.execute(sql, list(params))
            description = result.description
            row = result.fetchone() if description and description[0][0] == "Count" else None
        except self._duckdb.Error as exc:
            raise self._translate(exc, what) from exc
        return int(row[0]) if row is not None else -1

    def fetch_rows(self, sql: str, params: Sequence[Any] = (), what: str = "") -> list[tuple[Any, ...]]:
        """Run a query and fetch its rows as tuples."""
        try:
            rows = self.con.execute(sql, list(params)).fetchall()
        except self._duckdb.Error as exc:
            raise self._translate(exc, what) from exc
        self._rows_fetched += len(rows)
        return [tuple(r) for r in rows]

    def fetch_numpy(self, sql: str, params: Sequence[Any], types: Sequence[ColumnType],
                    what: str = "", rows_hint: int | None = None) -> list[NDArray[Any]]:
        """Run a query of non-null numeric columns; one numpy array per column."""
        try:
            result = self.con.execute(sql, list(params)).fetchnumpy()
        except self._duckdb.Error as exc:
            raise self._translate(exc, what) from exc
        arrays = list(result.values())
        if len(arrays) != len(types):
            raise RuntimeError(f"query returned {len(arrays)} columns, expected {len(types)}; this is a bug")
        out = []
        for array, kind in zip(arrays, types, strict=True):
            if isinstance(array, np.ma.MaskedArray) and array.mask.any():
                raise RuntimeError("unexpected NULL in a numeric result; this is probably a bug")
            out.append(np.asarray(array).astype(_NUMPY_TYPES[kind], copy=False))
        self._rows_fetched += len(out[0]) if out else 0
        return out

    def columns(self, table: TableName) -> list[str]:
        """Column names of a table or view, in table order."""
        try:
            cursor = self.con.execute(f"SELECT * FROM {self.table_ref(table)} LIMIT 0")
        except self._duckdb.Error as exc:
            raise self._translate(exc, "", table) from exc
        return [str(d[0]) for d in cursor.description]

    def upload(self, hint: str, data: Mapping[str, Any], types: Mapping[str, ColumnType]) -> str:
        """Create a temporary table from small in-memory columns (registered, then copied)."""
        frame = pd.DataFrame({c: np.asarray(v) for c, v in data.items()})
        view = self.temp_name(hint + "_src")
        self.con.register(view, frame)
        try:
            select = ", ".join(f"CAST({self.quote(c)} AS {types[c].upper()}) AS {self.quote(c)}" for c in data)
            name, _ = self.create_temp_table_as(hint, f"SELECT {select} FROM {self.quote(view)}", (),
                                                f"uploading {hint}")
            return name
        finally:
            self.con.unregister(view)

    def int_array(self, values: NDArray[np.integer[Any]]) -> Any:
        """A Python list (DuckDB binds it as a LIST)."""
        return np.asarray(values).tolist()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """BEGIN ... COMMIT, or ROLLBACK on an exception."""
        self.execute("BEGIN TRANSACTION")
        try:
            yield
        except BaseException:
            self.execute("ROLLBACK")
            raise
        self.execute("COMMIT")

    def close(self) -> None:
        """Drop what this backend created; close the connection when it owns it."""
        if self._closed:
            return
        self._drop_created()
        for view in self._views:
            with suppress(self._duckdb.Error):
                self.con.execute(f"DROP VIEW IF EXISTS {self.quote(view)}")
        for name in self._registered:
            with suppress(self._duckdb.Error):
                self.con.unregister(name)
        if self._owned:
            self.con.close()
        self._closed = True

    def _translate(self, exc: BaseException, what: str, table: TableName | None = None) -> DataError:
        d = self._duckdb
        line = _first_line(exc)
        doing = f" while {what}" if what else ""
        where = self.where(table)
        if isinstance(exc, d.CatalogException) and "does not exist" in line:
            return DataError(f"{where}: {line.replace('Catalog Error: ', '')}{doing}; check the table name"
                             " (and schema)")
        if isinstance(exc, d.BinderException) and "not found" in line:
            return DataError(f"{where}: {line.replace('Binder Error: ', '')}{doing}; check the column names"
                             " in the configuration against the table")
        if isinstance(exc, (d.IOException, d.InvalidInputException)):
            return DataError(f"{where}: cannot read the data ({line}){doing}; check the file, its format,"
                             " delimiter and quoting")
        if isinstance(exc, d.ConversionException):
            return DataError(f"{where}: a value cannot be converted ({line}){doing}; fix the value or the"
                             " column's type in the configuration")
        return DataError(f"{where}: query failed ({line}){doing}; check the query's table and columns")


def _csv_header(path: Path, sep: str) -> list[str]:
    """Column names from a CSV file's first line (quotes honoured), as :func:`read_table` reads them."""
    if len(sep) != 1:
        raise DataError(f"{path}: delimiter {sep!r} must be a single character such as ';' or ','")
    with open(path, encoding="utf-8-sig", errors="replace", newline="") as fh:  # a byte-order mark is not a name
        line = fh.readline()
    names = [h.strip("\r\n") for h in next(csv.reader([line], delimiter=sep), [])]
    if not names or names == [""]:
        raise DataError(f"{path}: the file is empty; it needs a header row and at least one record")
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise DataError(f"{path}: duplicate column name {name!r}; rename the columns so each is unique")
        seen.add(name)
    return names
