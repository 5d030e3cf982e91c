"""The SQL backend contract, and what the backends share.

A :class:`SqlBackend` runs parameterized statements, fetches small results
(class tables, value counts) into Python, creates temporary tables from small
in-memory data (mapping tables, class keys) and drops everything it created
when it is closed.  The implementations live one per module:
:mod:`anonset.engine.sql.duckdb` (``DuckDBBackend``, embedded) and
:mod:`anonset.engine.sql.postgres` (``PostgresBackend``, psycopg 3); both
build on ``_BackendBase`` here (names of temporary tables, quoting,
``rows_fetched``, dropping what was created).

Every row that reaches Python is counted in ``rows_fetched``, so a test can
prove that a search never moved the records of the table, only class tables.

Driver errors become :class:`anonset.errors.DataError` with a one-line
message naming the database (never a password, see :func:`redact_url`), the
table or column, and what to do.  SQL is always parameterized; identifiers are
quoted with :meth:`SqlBackend.quote`.  Statements are written with
``backend.placeholder`` (``%s`` for PostgreSQL, ``?`` for DuckDB) where a
value goes.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, suppress
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, Protocol, Self, runtime_checkable

import numpy as np

from anonset.errors import DataError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["ColumnType", "SqlBackend", "TableName", "redact_url", "table_parts"]

#: A table: ``"name"``, ``"schema.name"``, or a tuple of parts for names that contain dots.
TableName = str | tuple[str, ...]

#: Logical column types of uploads and numeric fetches (valid type names in both dialects).
ColumnType = Literal["text", "int4", "int8", "float8"]

_NUMPY_TYPES: dict[str, np.dtype[Any]] = {
    "int4": np.dtype(np.int32),
    "int8": np.dtype(np.int64),
    "float8": np.dtype(np.float64),
}


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
                    what: str = "", rows_hint: int | None = None) -> list[NDArray[Any]]:
        """Run a query whose columns are non-null numbers of ``types``; one array per column (int32, int64, float64).

        ``rows_hint`` (an upper bound of the result's rows) lets a backend
        choose a faster transfer for results it knows to be small enough.
        """
        ...

    def int_array(self, values: NDArray[np.integer[Any]]) -> Any:
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
            with suppress(DataError):
                self.drop(name)
        self._created.clear()
