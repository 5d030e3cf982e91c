"""SQL backends: the few database primitives the SQL engine, profiler and release need.

A :class:`SqlBackend` runs parameterized statements, fetches small results
(class tables, value counts) into Python, creates temporary tables from small
in-memory data (mapping tables, class keys) and drops everything it created
when it is closed.  Two implementations:

* :class:`DuckDBBackend` -- embedded; a CSV or Parquet file is exposed as a
  view (:meth:`DuckDBBackend.from_file`, CSV columns read as text exactly as
  written) and a DataFrame is registered without copying
  (:meth:`DuckDBBackend.from_dataframe`).
* :class:`PostgresBackend` -- a PostgreSQL server through psycopg 3; numeric
  results travel as ``COPY ... TO STDOUT (FORMAT binary)`` and are decoded
  with numpy, uploads travel as ``COPY ... FROM STDIN``.

Every row that reaches Python is counted in ``rows_fetched``, so a test can
prove that a search never moved the records of the table, only class tables.

Driver errors become :class:`anonset.errors.DataError` with a one-line
message naming the database (never a password), the table or column, and what
to do.  SQL is always parameterized; identifiers are quoted with
:meth:`SqlBackend.quote`.  Statements are written with ``backend.placeholder``
(``%s`` for PostgreSQL, ``?`` for DuckDB) where a value goes.
"""

from __future__ import annotations

import csv
import re
import secrets
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Protocol, Self, runtime_checkable

import numpy as np
import pandas as pd

from anonset.errors import DataError

__all__ = [
    "ColumnType",
    "DuckDBBackend",
    "PostgresBackend",
    "SqlBackend",
    "TableName",
    "redact_url",
    "table_parts",
]

#: A table: ``"name"``, ``"schema.name"``, or a tuple of parts for names that contain dots.
TableName = str | tuple[str, ...]

#: Logical column types of uploads and numeric fetches (valid type names in both dialects).
ColumnType = Literal["text", "int4", "int8", "float8"]

_NUMPY_TYPES: dict[str, np.dtype[Any]] = {
    "int4": np.dtype(np.int32),
    "int8": np.dtype(np.int64),
    "float8": np.dtype(np.float64),
}
_PG_BINARY: dict[str, tuple[str, int]] = {"int4": (">i4", 4), "int8": (">i8", 8), "float8": (">f8", 8)}
_PG_COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
#: Results up to this size travel as one bytea value (PostgreSQL's limit for one value is 1 GB).
_PACKED_LIMIT_BYTES = 256 * 2**20
#: A null marker no CSV field is expected to hold: DuckDB then reads empty fields as ''.
_NO_NULL = "\x01anonset-no-null\x02"


@runtime_checkable
class SqlBackend(Protocol):
    """What the SQL engine, the profiler and the SQL release ask of a database.

    Attributes
    ----------
    dialect : str
        ``"duckdb"`` or ``"postgresql"``.
    placeholder : str
        The parameter marker of the driver (``?`` or ``%s``).
    description : str
        Where the data live, for messages (no password).
    rows_fetched : int
        Result rows fetched into Python so far.
    """

    dialect: str
    placeholder: str

    @property
    def description(self) -> str:
        """Where the data live, for messages (no password)."""
        ...

    @property
    def rows_fetched(self) -> int:
        """Result rows fetched into Python so far."""
        ...

    def quote(self, identifier: str) -> str:
        """The identifier quoted for use in a statement."""
        ...

    def table_ref(self, table: TableName) -> str:
        """A (possibly schema-qualified) table name, quoted."""
        ...

    def where(self, table: TableName | None = None) -> str:
        """``<database>, table <name>`` for messages."""
        ...

    def execute(self, sql: str, params: Sequence[Any] = (), what: str = "") -> int:
        """Run a statement that returns no rows; the rows it affected or created (-1 when unknown)."""
        ...

    def fetch_rows(self, sql: str, params: Sequence[Any] = (), what: str = "") -> list[tuple[Any, ...]]:
        """Run a query and fetch its rows as tuples."""
        ...

    def fetch_numpy(self, sql: str, params: Sequence[Any], types: Sequence[ColumnType],
                    what: str = "", rows_hint: int | None = None) -> list[np.ndarray]:
        """Run a query whose columns are non-null numbers of ``types``; one array per column.

        ``rows_hint`` (an upper bound of the result's rows) lets a backend
        choose a faster transfer for results it knows to be small enough.
        """
        ...

    def int_array(self, values: np.ndarray) -> Any:
        """A parameter value that ``CAST(<placeholder> AS INT4[])`` reads as this int array."""
        ...

    def columns(self, table: TableName) -> list[str]:
        """Column names of a table or view, in table order."""
        ...

    def table_exists(self, table: TableName) -> bool:
        """True when the table (or view) exists."""
        ...

    def temp_name(self, hint: str) -> str:
        """A fresh, unquoted name for a temporary object of this backend."""
        ...

    def upload(self, hint: str, data: Mapping[str, Any], types: Mapping[str, ColumnType]) -> str:
        """Create a temporary table from small in-memory columns; its quoted name."""
        ...

    def create_temp_table_as(self, hint: str, select_sql: str, params: Sequence[Any] = (),
                             what: str = "") -> tuple[str, int]:
        """``CREATE TEMP TABLE ... AS <select_sql>``; the new table's quoted name and its row count."""
        ...

    def drop(self, quoted_name: str) -> None:
        """Drop a table this backend created (quoted name, as returned on creation)."""
        ...

    def rename_table(self, table: TableName, new_name: str) -> None:
        """Rename a table in place (same schema)."""
        ...

    def transaction(self) -> AbstractContextManager[None]:
        """A transaction: committed on success, rolled back on an exception."""
        ...

    def close(self) -> None:
        """Drop every temporary table created here and close an owned connection."""
        ...


def table_parts(table: TableName) -> tuple[str, ...]:
    """The parts of a table name: ``"s.t"`` -> ``("s", "t")``; a tuple is taken as given.

    Raises
    ------
    DataError
        On an empty name or part, or more than three parts.
    """
    parts = tuple(table.split(".")) if isinstance(table, str) else tuple(str(p) for p in table)
    if not parts or len(parts) > 3 or any(p == "" for p in parts):
        raise DataError(f"invalid table name {table!r}; write 'table' or 'schema.table'"
                        " (give a tuple of parts when a name contains a dot)")
    return parts


def redact_url(url: str) -> str:
    """A database URL or conninfo string with any password replaced by ``***``."""
    out = re.sub(r"(://[^:/@?#\s]*:)[^@/?#\s]*@", r"\1***@", url)
    return re.sub(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", r"\1***", out, flags=re.IGNORECASE)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


class _BackendBase:
    """State and helpers shared by the backends."""

    dialect = ""
    placeholder = "?"

    def __init__(self) -> None:
        self._rows_fetched = 0
        self._token = secrets.token_hex(4)
        self._counter = 0
        self._created: list[str] = []
        self._closed = False

    # ------------------------------------------------------------------ names
    @property
    def rows_fetched(self) -> int:
        """Result rows fetched into Python so far (class tables, value counts, checks)."""
        return self._rows_fetched

    @property
    def description(self) -> str:
        """Where the data live, for messages."""
        raise NotImplementedError

    def quote(self, identifier: str) -> str:
        """The identifier in double quotes, embedded quotes doubled."""
        name = str(identifier)
        if "\x00" in name:
            raise DataError(f"{self.description}: identifier {name!r} contains a NUL character; rename it")
        return '"' + name.replace('"', '""') + '"'

    def table_ref(self, table: TableName) -> str:
        """A (possibly schema-qualified) table name, quoted."""
        return ".".join(self.quote(p) for p in table_parts(table))

    def where(self, table: TableName | None = None) -> str:
        """``<database>, table <name>`` for messages."""
        if table is None:
            return self.description
        return f"{self.description}, table {'.'.join(table_parts(table))}"

    def temp_name(self, hint: str) -> str:
        """A fresh name ``anonset_<token>_<hint>_<n>`` (short enough for PostgreSQL's 63 bytes)."""
        self._counter += 1
        clean = re.sub(r"[^a-z0-9_]", "", hint.lower())[:20] or "t"
        return f"anonset_{self._token}_{clean}_{self._counter}"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # ------------------------------------------------------------------ shared operations
    def close(self) -> None:
        """Drop what this backend created and close an owned connection."""
        raise NotImplementedError

    def execute(self, sql: str, params: Sequence[Any] = (), what: str = "") -> int:
        """Run a statement that returns no rows; the rows it affected or created (-1 when unknown)."""
        raise NotImplementedError

    def columns(self, table: TableName) -> list[str]:
        """Column names of a table or view, in table order."""
        raise NotImplementedError

    def create_temp_table_as(self, hint: str, select_sql: str, params: Sequence[Any] = (),
                             what: str = "") -> tuple[str, int]:
        """``CREATE TEMP TABLE <fresh name> AS <select_sql>``; the quoted name and the rows created."""
        name = self.quote(self.temp_name(hint))
        rows = self.execute(f"CREATE TEMP TABLE {name} AS {select_sql}", params, what)
        self._created.append(name)
        return name, rows

    def drop(self, quoted_name: str) -> None:
        """Drop a table this backend created."""
        self.execute(f"DROP TABLE IF EXISTS {quoted_name}", (), "dropping a temporary table")
        if quoted_name in self._created:
            self._created.remove(quoted_name)

    def table_exists(self, table: TableName) -> bool:
        """True when the table (or view) exists."""
        try:
            self.columns(table)
        except DataError:
            return False
        return True

    def rename_table(self, table: TableName, new_name: str) -> None:
        """``ALTER TABLE <table> RENAME TO <new_name>`` (stays in its schema)."""
        self.execute(f"ALTER TABLE {self.table_ref(table)} RENAME TO {self.quote(new_name)}", (),
                     f"renaming {'.'.join(table_parts(table))} to {new_name}")

    def _drop_created(self) -> None:
        for name in list(reversed(self._created)):
            try:
                self.drop(name)
            except DataError:
                pass
        self._created.clear()


# ====================================================================== DuckDB
class DuckDBBackend(_BackendBase):
    """An embedded DuckDB database.

    Parameters
    ----------
    database : str
        A database file, or ``":memory:"`` (default).
    connection : duckdb.DuckDBPyConnection, optional
        Use this connection instead of opening one (it is not closed by
        :meth:`close`).

    Attributes
    ----------
    table : str or None
        The view made by :meth:`from_file` / :meth:`from_dataframe`.
    """

    dialect = "duckdb"
    placeholder = "?"

    def __init__(self, database: str = ":memory:", connection: Any = None):
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
        self._views: list[str] = []
        self._registered: list[str] = []

    @property
    def description(self) -> str:
        """``DuckDB <file or source>``."""
        return f"DuckDB {self._source or 'in-memory database'}"

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_file(cls, path: str | Path, delimiter: str | None = None, table: str = "data",
                  fmt: str | None = None) -> DuckDBBackend:
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
        """
        from anonset.io.tables import sniff_delimiter

        p = Path(path)
        if not p.is_file():
            raise DataError(f"{p}: file not found; check the path")
        backend = cls()
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
                    what: str = "", rows_hint: int | None = None) -> list[np.ndarray]:
        """Run a query of non-null numeric columns; one numpy array per column."""
        try:
            result = self.con.execute(sql, list(params)).fetchnumpy()
        except self._duckdb.Error as exc:
            raise self._translate(exc, what) from exc
        arrays = list(result.values())
        if len(arrays) != len(types):
            raise RuntimeError(f"query returned {len(arrays)} columns, expected {len(types)}; this is a bug")
        out = []
        for array, kind in zip(arrays, types):
            if np.ma.isMaskedArray(array) and np.ma.getmaskarray(array).any():
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

    def int_array(self, values: np.ndarray) -> Any:
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
            try:
                self.con.execute(f"DROP VIEW IF EXISTS {self.quote(view)}")
            except self._duckdb.Error:
                pass
        for name in self._registered:
            try:
                self.con.unregister(name)
            except self._duckdb.Error:
                pass
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


# ====================================================================== PostgreSQL
class PostgresBackend(_BackendBase):
    """A PostgreSQL database through psycopg 3.

    Parameters
    ----------
    url : str
        A libpq URL or conninfo string, e.g. ``postgresql://user@host:5432/db``.
    connect_timeout : int
        Seconds to wait for the server.
    settings : mapping of str to str, optional
        Session settings applied after connecting (``set_config``); by default
        ``work_mem=256MB`` (hash aggregates of class tables stay in memory),
        ``temp_buffers=256MB`` (the engine's temporary tables) and ``jit=off``
        (compiling costs more than the short group-bys gain).

    Notes
    -----
    The connection runs in autocommit mode; temporary tables live in the
    session and are dropped on :meth:`close` (and by the server when the
    session ends).
    """

    dialect = "postgresql"
    placeholder = "%s"
    DEFAULT_SETTINGS: Mapping[str, str] = {"work_mem": "256MB", "temp_buffers": "256MB", "jit": "off"}

    def __init__(self, url: str, connect_timeout: int = 10, settings: Mapping[str, str] | None = None):
        super().__init__()
        import psycopg

        self._psycopg = psycopg
        self._password = _password_of(url)
        self._description = "PostgreSQL " + _describe_url(url)
        try:
            self.con = psycopg.connect(url, autocommit=True, connect_timeout=connect_timeout)
        except psycopg.Error as exc:
            line = self._scrub(_first_line(exc))
            raise DataError(f"cannot connect to {self._description}: {line}; {_connect_hint(line)}") from exc
        for name, value in {**self.DEFAULT_SETTINGS, **(settings or {})}.items():
            self.execute("SELECT set_config(%s, %s, false)", (name, str(value)), f"setting {name}")

    @property
    def description(self) -> str:
        """``PostgreSQL user@host:port/database`` (never the password)."""
        return self._description

    # ------------------------------------------------------------------ primitives
    def quote(self, identifier: str) -> str:
        """Quoted identifier; ``%`` doubled because every statement is sent with parameters."""
        return super().quote(identifier).replace("%", "%%")

    def execute(self, sql: str, params: Sequence[Any] = (), what: str = "") -> int:
        """Run a statement that returns no rows; the rows it affected or created (-1 when unknown)."""
        try:
            with self.con.cursor() as cur:
                cur.execute(sql, tuple(params))
                return int(cur.rowcount)
        except self._psycopg.Error as exc:
            raise self._translate(exc, what) from exc

    def fetch_rows(self, sql: str, params: Sequence[Any] = (), what: str = "") -> list[tuple[Any, ...]]:
        """Run a query and fetch its rows as tuples."""
        try:
            with self.con.cursor() as cur:
                cur.execute(sql, tuple(params))
                rows = cur.fetchall()
        except self._psycopg.Error as exc:
            raise self._translate(exc, what) from exc
        self._rows_fetched += len(rows)
        return [tuple(r) for r in rows]

    def fetch_numpy(self, sql: str, params: Sequence[Any], types: Sequence[ColumnType],
                    what: str = "", rows_hint: int | None = None) -> list[np.ndarray]:
        """Run a query of non-null numeric columns; one numpy array per column.

        The query's columns must have exactly the PostgreSQL types ``types``
        (cast them).  A result known to be small (``rows_hint``) travels as one
        ``bytea`` value (``string_agg`` of the columns' binary send forms, one
        message instead of one per row, about twice as fast); any other result
        through ``COPY ... TO STDOUT (FORMAT binary)``.  Both are decoded by a
        numpy structured dtype.
        """
        width = sum(_PG_BINARY[t][1] for t in types)
        if rows_hint is not None and rows_hint * width < _PACKED_LIMIT_BYTES:
            arrays = self._fetch_packed(sql, params, types, what)
        else:
            arrays = self._fetch_copy(sql, params, types, what)
        self._rows_fetched += len(arrays[0]) if arrays else 0
        return arrays

    def _fetch_packed(self, sql: str, params: Sequence[Any], types: Sequence[ColumnType],
                      what: str) -> list[np.ndarray]:
        names = [f"c{i}" for i in range(len(types))]
        row = " || ".join(f"{t}send(q.{n})" for n, t in zip(names, types))
        packed = f"SELECT string_agg({row}, ''::bytea) FROM ({sql}) AS q({', '.join(names)})"
        try:
            with self.con.cursor(binary=True) as cur:
                cur.execute(packed, tuple(params))
                result = cur.fetchone()
        except self._psycopg.Error as exc:
            raise self._translate(exc, what) from exc
        data = b"" if result is None or result[0] is None else bytes(result[0])
        dtype = np.dtype([(n, _PG_BINARY[t][0]) for n, t in zip(names, types)])
        if len(data) % dtype.itemsize:
            raise RuntimeError("packed result does not match the declared column types; this is a bug")
        records = np.frombuffer(data, dtype=dtype)
        return [records[n].astype(_NUMPY_TYPES[t]) for n, t in zip(names, types)]

    def _fetch_copy(self, sql: str, params: Sequence[Any], types: Sequence[ColumnType],
                    what: str) -> list[np.ndarray]:
        buffer = bytearray()
        try:
            with self.con.cursor() as cur, cur.copy(f"COPY ({sql}) TO STDOUT (FORMAT binary)",
                                                    tuple(params)) as copy:
                for chunk in copy:
                    buffer += chunk
        except self._psycopg.Error as exc:
            raise self._translate(exc, what) from exc
        return _decode_binary_copy(buffer, types)

    def int_array(self, values: np.ndarray) -> Any:
        """The array literal ``{1,2,3}`` as text (cheaper to send than a list adapted element by element)."""
        return "{" + ",".join(map(str, np.asarray(values).tolist())) + "}"

    def columns(self, table: TableName) -> list[str]:
        """Column names of a table or view, in table order."""
        try:
            with self.con.cursor() as cur:
                cur.execute(f"SELECT * FROM {self.table_ref(table)} LIMIT 0", ())
                description = cur.description or []
        except self._psycopg.Error as exc:
            raise self._translate(exc, "", table) from exc
        return [str(d.name) for d in description]

    def upload(self, hint: str, data: Mapping[str, Any], types: Mapping[str, ColumnType]) -> str:
        """Create a temporary table and fill it with ``COPY ... FROM STDIN (FORMAT csv)``."""
        name = self.quote(self.temp_name(hint))
        cols = ", ".join(f"{self.quote(c)} {types[c].upper()}" for c in data)
        self.execute(f"CREATE TEMP TABLE {name} ({cols})", (), f"creating {hint}")
        self._created.append(name)
        frame = pd.DataFrame({c: np.asarray(v) for c, v in data.items()})
        text = frame.to_csv(index=False, header=False, quoting=csv.QUOTE_ALL, na_rep="NaN", lineterminator="\n")
        try:
            with self.con.cursor() as cur, cur.copy(f"COPY {name} FROM STDIN (FORMAT csv)", ()) as copy:
                copy.write(text)
        except self._psycopg.Error as exc:
            raise self._translate(exc, f"uploading {hint}") from exc
        return name

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """A transaction block (psycopg's ``Connection.transaction``)."""
        try:
            with self.con.transaction():
                yield
        except self._psycopg.Error as exc:
            raise self._translate(exc, "committing") from exc

    def close(self) -> None:
        """Drop the temporary tables made here and close the connection."""
        if self._closed:
            return
        if not self.con.closed:
            self._drop_created()
            self.con.close()
        self._closed = True

    # ------------------------------------------------------------------ errors
    def _scrub(self, text: str) -> str:
        if self._password:
            text = text.replace(self._password, "***")
        return redact_url(text)

    def _translate(self, exc: BaseException, what: str, table: TableName | None = None) -> DataError:
        errors = self._psycopg.errors
        diag = getattr(exc, "diag", None)
        primary = getattr(diag, "message_primary", None) or _first_line(exc)
        line = self._scrub(primary)
        doing = f" while {what}" if what else ""
        where = self.where(table)
        if isinstance(exc, (errors.UndefinedTable, errors.InvalidSchemaName)):
            return DataError(f"{where}: {line}{doing}; check the table name and schema (search_path)")
        if isinstance(exc, errors.UndefinedColumn):
            return DataError(f"{where}: {line}{doing}; check the column names in the configuration against"
                             " the table")
        if isinstance(exc, errors.InsufficientPrivilege):
            return DataError(f"{where}: {line}{doing}; grant the user the needed privilege (SELECT on the"
                             " table, CREATE on the output schema, TEMP on the database)")
        if isinstance(exc, errors.DuplicateTable):
            return DataError(f"{where}: {line}{doing}; choose another name or drop the table")
        if isinstance(exc, self._psycopg.OperationalError):
            return DataError(f"{where}: {line}{doing}; check that the server is still reachable")
        return DataError(f"{where}: query failed ({line}){doing}; check the query's table and columns")


def _connect_hint(message: str) -> str:
    """What to do about a failed connection, from libpq's message."""
    text = message.lower()
    if any(s in text for s in ("refused", "timeout", "timed out", "resolve host", "translate host", "no route",
                               "unreachable")):
        return "check that the server is running and accepts TCP connections at that host and port"
    if "password" in text or "authentication" in text:
        return "check the user and password (the password is never shown)"
    if "does not exist" in text:
        return "check the database and user names in the URL"
    return "check the URL, e.g. postgresql://user@host:5432/database"


def _csv_header(path: Path, sep: str) -> list[str]:
    """Column names from a CSV file's first line (quotes honoured), as :func:`read_table` reads them."""
    if len(sep) != 1:
        raise DataError(f"{path}: delimiter {sep!r} must be a single character such as ';' or ','")
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
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


def _password_of(url: str) -> str | None:
    try:
        from psycopg.conninfo import conninfo_to_dict

        value = conninfo_to_dict(url).get("password")
        return str(value) if value else None
    except Exception:  # noqa: BLE001 - a malformed URL: fall back to the pattern below
        m = re.search(r"://[^:/@?#\s]*:([^@/?#\s]*)@", url)
        return m.group(1) if m and m.group(1) else None


def _describe_url(url: str) -> str:
    """``user@host:port/dbname`` of a URL or conninfo, without the password."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        info = conninfo_to_dict(url)
    except Exception:  # noqa: BLE001 - malformed: show the redacted text
        return redact_url(url)
    user = str(info.get("user") or "")
    host = str(info.get("host") or "localhost")
    port = str(info.get("port") or "5432")
    db = str(info.get("dbname") or user or "(default database)")
    return f"{user + '@' if user else ''}{host}:{port}/{db}"


def _decode_binary_copy(buffer: bytes | bytearray, types: Sequence[ColumnType]) -> list[np.ndarray]:
    """Decode PostgreSQL binary COPY output whose columns are all non-null ``types``."""
    if len(buffer) < 19 or bytes(buffer[:11]) != _PG_COPY_SIGNATURE:
        raise RuntimeError("unexpected COPY output (no binary signature); this is a bug")
    extension = int.from_bytes(buffer[15:19], "big")
    start = 19 + extension
    end = len(buffer) - 2
    if bytes(buffer[end:]) != b"\xff\xff":
        raise RuntimeError("unexpected COPY output (no trailer); this is a bug")
    fields: list[tuple[str, str]] = [("count", ">i2")]
    widths = []
    for i, kind in enumerate(types):
        code, width = _PG_BINARY[kind]
        fields += [(f"len{i}", ">i4"), (f"v{i}", code)]
        widths.append(width)
    dtype = np.dtype(fields)
    body = memoryview(buffer)[start:end]
    if len(body) % dtype.itemsize:
        raise RuntimeError("COPY output does not match the declared column types (NULL or wrong type);"
                           " this is a bug")
    records = np.frombuffer(body, dtype=dtype)
    if len(records) and (np.any(records["count"] != len(types))
                         or any(np.any(records[f"len{i}"] != w) for i, w in enumerate(widths))):
        raise RuntimeError("COPY output does not match the declared column types (NULL or wrong type);"
                           " this is a bug")
    return [records[f"v{i}"].astype(_NUMPY_TYPES[kind]) for i, kind in enumerate(types)]

