"""The PostgreSQL backend: a server reached through psycopg 3; the table never leaves it.

Numeric results travel as ``COPY ... TO STDOUT (FORMAT binary)`` (or, when
small, as one packed ``bytea`` value) and are decoded with numpy; uploads
travel as ``COPY ... FROM STDIN``.  Messages name the server as
``user@host:port/database``, never with the password.  The contract is
:class:`anonset.engine.sql.base.SqlBackend`.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonset.engine.sql.base import (
    _NUMPY_TYPES,
    ColumnType,
    TableName,
    _BackendBase,
    _first_line,
    redact_url,
)
from anonset.errors import DataError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["PostgresBackend"]

_PG_BINARY: dict[str, tuple[str, int]] = {"int4": (">i4", 4), "int8": (">i8", 8), "float8": (">f8", 8)}
_PG_COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
#: Results up to this size travel as one bytea value (PostgreSQL's limit for one value is 1 GB).
_PACKED_LIMIT_BYTES = 256 * 2**20


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
                    what: str = "", rows_hint: int | None = None) -> list[NDArray[Any]]:
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
                      what: str) -> list[NDArray[Any]]:
        names = [f"c{i}" for i in range(len(types))]
        row = " || ".join(f"{t}send(q.{n})" for n, t in zip(names, types, strict=True))
        packed = f"SELECT string_agg({row}, ''::bytea) FROM ({sql}) AS q({', '.join(names)})"
        try:
            with self.con.cursor(binary=True) as cur:
                cur.execute(packed, tuple(params))
                result = cur.fetchone()
        except self._psycopg.Error as exc:
            raise self._translate(exc, what) from exc
        data = b"" if result is None or result[0] is None else bytes(result[0])
        dtype = np.dtype([(n, _PG_BINARY[t][0]) for n, t in zip(names, types, strict=True)])
        if len(data) % dtype.itemsize:
            raise RuntimeError("packed result does not match the declared column types; this is a bug")
        records = np.frombuffer(data, dtype=dtype)
        return [records[n].astype(_NUMPY_TYPES[t]) for n, t in zip(names, types, strict=True)]

    def _fetch_copy(self, sql: str, params: Sequence[Any], types: Sequence[ColumnType],
                    what: str) -> list[NDArray[Any]]:
        buffer = bytearray()
        try:
            with self.con.cursor() as cur, cur.copy(f"COPY ({sql}) TO STDOUT (FORMAT binary)",
                                                    tuple(params)) as copy:
                for chunk in copy:
                    buffer += chunk
        except self._psycopg.Error as exc:
            raise self._translate(exc, what) from exc
        return _decode_binary_copy(buffer, types)

    def int_array(self, values: NDArray[np.integer[Any]]) -> Any:
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


def _password_of(url: str) -> str | None:
    try:
        from psycopg.conninfo import conninfo_to_dict

        value = conninfo_to_dict(url).get("password")
        return str(value) if value else None
    except Exception:
        m = re.search(r"://[^:/@?#\s]*:([^@/?#\s]*)@", url)
        return m.group(1) if m and m.group(1) else None


def _describe_url(url: str) -> str:
    """``user@host:port/dbname`` of a URL or conninfo, without the password."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        info = conninfo_to_dict(url)
    except Exception:
        return redact_url(url)
    user = str(info.get("user") or "")
    host = str(info.get("host") or "localhost")
    port = str(info.get("port") or "5432")
    db = str(info.get("dbname") or user or "(default database)")
    return f"{user + '@' if user else ''}{host}:{port}/{db}"


def _decode_binary_copy(buffer: bytes | bytearray, types: Sequence[ColumnType]) -> list[NDArray[Any]]:
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
