"""Release a full-domain node of a database table in SQL, re-check the released table in SQL, and place it.

:class:`DatabaseSink` is the :class:`~anonset.sinks.base.ReleaseSink` of
the SQL engines: it refuses the output table before any work (the input
itself, a missing schema, a table that exists without ``replace``), writes
the release under a staging name (:func:`write_release`), re-checks it there
(:func:`verify_table`) and renames it into place in one transaction, which is
also the only one that drops a replaced table.  On failure the staging table
is dropped, so nothing is left behind.

:func:`write_release` writes the anonymized table inside the database: the
identifiers are dropped, each quasi-identifier is replaced by its generalized
label at the node's level (joined from small uploaded label tables), the
records of violating classes get ``*`` in every quasi-identifier (or are
dropped on request), and every other column is copied untouched.  The table is
written under a temporary name and renamed at the end, so a failure leaves
nothing behind.

:func:`verify_table` is the independent re-check: it groups the *released*
label columns in SQL (never the engine's working tables or codes), fetches
the class statistics (sizes, sensitive histograms, sums) and judges every
privacy model exactly as :func:`anonset.recheck.verify.verify_release` does for a
pandas table (the all-``*`` group is the suppressed set, checked against the
budget).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from anonset.core.dataset import Dataset, Role
from anonset.core.stats import match_keys
from anonset.engine.base import Engine
from anonset.engine.sql.base import ColumnType, SqlBackend, TableName, table_parts
from anonset.engine.sql.engine import SqlEngine
from anonset.engine.sql.profile import require_columns, text_of
from anonset.errors import ConfigError, DataError
from anonset.privacy.base import Requirements
from anonset.recheck.columns import SUPPRESSED
from anonset.recheck.undeclared import refuse_in_database
from anonset.recheck.verify import (
    VerificationReport,
    judge_released_classes,
    require_verified,
    stats_of_value_counts,
)
from anonset.sinks.base import NodeRelease

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["DatabaseSink", "SqlRelease", "verify_table", "write_release"]


@dataclass(frozen=True)
class SqlRelease:
    """What :func:`write_release` wrote.

    Attributes
    ----------
    table : tuple of str
        The output table's name parts.
    rows : int
        Records written.
    suppressed_rows : int
        Records of violating classes (starred, or dropped with ``drop_suppressed``).
    """

    table: tuple[str, ...]
    rows: int
    suppressed_rows: int


def write_release(engine: SqlEngine, levels: tuple[int, ...], violating_keys: NDArray[np.int32],
                  output_table: TableName, drop_suppressed: bool = False, *, replace: bool = False,
                  withhold_sensitive: bool = False) -> SqlRelease:
    """Write the release of full-domain node ``levels`` as a table in the engine's database.

    Parameters
    ----------
    engine : SqlEngine
        The engine the node was found with (gives the backend, the source
        table and the dataset).
    levels : tuple of int
        Level per quasi-identifier.
    violating_keys : numpy.ndarray
        (v, d) codes at ``levels`` of the classes to suppress, e.g.
        ``stats.keys[verdict.violating]``.
    output_table : str or tuple of str
        The table to create (``"name"``, ``"schema.name"`` or a tuple of parts).
    drop_suppressed : bool
        Drop the records of violating classes instead of writing ``*`` in
        their quasi-identifiers.
    replace : bool
        Replace an existing output table (in one transaction with the rename).
    withhold_sensitive : bool
        Write ``*`` in the sensitive columns of the suppressed records too
        (as text; see :mod:`anonset.recheck.suppressed`).

    Returns
    -------
    SqlRelease
        The table written, its record count and the suppressed records.

    Notes
    -----
    Quasi-identifier columns are written as text; every other column keeps
    its type.  The records come in no particular order (a SQL table has
    none).  The suppressed records are counted from the node's class table,
    and the written table is checked to hold exactly the expected records
    before it is renamed into place.

    Raises
    ------
    DataError
        When the output table exists (and ``replace`` is false), a query
        fails, or the source table no longer matches the dataset.  Nothing is
        left behind.
    """
    backend, dataset = engine.backend, engine.dataset
    levels = tuple(int(v) for v in levels)
    stats = engine.class_stats(levels)
    d = len(dataset.quasi)
    keys = np.asarray(violating_keys, dtype=np.int32).reshape(-1, d)
    if len(keys):
        index = match_keys(keys, stats.keys, [h.size(lv) for h, lv in zip(engine.hierarchies, levels, strict=True)])
        if (index < 0).any():
            raise ValueError(f"violating_keys holds a key that is not a class of node {levels}")
        if len(np.unique(index)) != len(index):
            raise ValueError("violating_keys lists a class twice")
        suppressed = int(stats.sizes[index].sum())
    else:
        suppressed = 0
    out_parts = table_parts(output_table)
    existed = backend.table_exists(out_parts)  # asked outside the transaction: a failed lookup would abort it
    if existed and not replace:
        raise DataError(f"{backend.where(out_parts)}: the output table already exists; choose another name,"
                        " drop it, or ask to replace it")
    columns = backend.columns(engine.table)
    tmp_parts = out_parts[:-1] + (backend.temp_name("release"),)
    uploads: list[str] = []
    created = False
    n_written = 0
    try:
        sql, params = _release_sql(engine, levels, keys, columns, drop_suppressed, tmp_parts, uploads,
                                   withhold_sensitive)
        backend.execute(sql, params, f"writing the release of node {levels}")
        created = True
        (counted,) = backend.fetch_numpy(f"SELECT CAST(COUNT(*) AS INT8) FROM {backend.table_ref(tmp_parts)}",
                                         (), ["int8"], "counting the released records")
        n_written = int(counted[0])
        expected = dataset.n_rows - (suppressed if drop_suppressed else 0)
        if n_written != expected:
            raise DataError(
                f"{backend.where(engine.table)}: the release has {n_written} records but {expected}"
                " were expected; the table changed since it was profiled: profile it again"
            )
        with backend.transaction():
            if replace and existed:
                backend.execute(f"DROP TABLE {backend.table_ref(out_parts)}", (), "replacing the output table")
            backend.rename_table(tmp_parts, out_parts[-1])
        created = False
    finally:
        if created:
            with contextlib.suppress(DataError):
                backend.execute(f"DROP TABLE IF EXISTS {backend.table_ref(tmp_parts)}", (),
                                "removing the unfinished release")
        for name in uploads:
            with contextlib.suppress(DataError):
                backend.drop(name)
    return SqlRelease(out_parts, n_written, suppressed)


def _release_sql(engine: SqlEngine, levels: tuple[int, ...], keys: NDArray[np.int32], columns: list[str],
                 drop_suppressed: bool, tmp_parts: tuple[str, ...], uploads: list[str],
                 withhold_sensitive: bool = False) -> tuple[str, list[Any]]:
    """The CREATE TABLE ... AS SELECT of the release, and its parameters (uploads label/key tables)."""
    backend, dataset = engine.backend, engine.dataset
    p = backend.placeholder
    d = len(dataset.quasi)
    flagged = len(keys) > 0
    labels: dict[str, str] = {}
    for q, h, lv in zip(dataset.quasi, engine.hierarchies, levels, strict=True):
        vc = dataset.value_codes(q)
        raw = np.empty(len(vc), dtype=object)
        raw[:] = list(vc)
        leaf = np.fromiter(vc.values(), dtype=np.int64, count=len(vc))
        codes = h.maps[lv][leaf]
        text = np.asarray(h.labels[lv], dtype=object)[codes]
        name = backend.upload(f"labels_{q}", {"v": raw, "c": codes.astype(np.int32), "l": text},
                              {"v": "text", "c": "int4", "l": "text"})
        uploads.append(name)
        labels[q] = name
    key_table = ""
    if flagged and d:
        types: dict[str, ColumnType] = {f"k{j}": "int4" for j in range(d)}
        key_table = backend.upload("violating", {f"k{j}": keys[:, j] for j in range(d)}, types)
        uploads.append(key_table)
    select: list[str] = []
    params: list[Any] = []
    for c in columns:
        spec = dataset.specs.get(c)
        if spec is not None and spec.role is Role.IDENTIFIER:
            continue
        if spec is not None and spec.role is Role.QUASI:
            j = dataset.quasi.index(c)
            if key_table:
                select.append(f"CASE WHEN v.k0 IS NULL THEN l{j}.l ELSE {p} END AS {backend.quote(c)}")
                params.append(SUPPRESSED)
            else:
                select.append(f"l{j}.l AS {backend.quote(c)}")
        elif spec is not None and spec.role is Role.SENSITIVE and withhold_sensitive and key_table:
            select.append(f"CASE WHEN v.k0 IS NULL THEN CAST(t.{backend.quote(c)} AS TEXT) ELSE {p} END"
                          f" AS {backend.quote(c)}")
            params.append(SUPPRESSED)
        else:
            select.append(f"t.{backend.quote(c)} AS {backend.quote(c)}")
    joins: list[str] = []
    for j, q in enumerate(dataset.quasi):
        joins.append(f"JOIN {labels[q]} AS l{j} ON l{j}.v = {text_of('t.' + backend.quote(q), p)}")
        params.append(_marker(dataset, q))
    if key_table:
        on = " AND ".join(f"v.k{j} = l{j}.c" for j in range(d))
        joins.append(f"LEFT JOIN {key_table} AS v ON {on}")
    where = ""
    if drop_suppressed and key_table:
        where = " WHERE v.k0 IS NULL"
    elif drop_suppressed and flagged:  # no quasi-identifiers and the single class violates
        where = " WHERE 1 = 0"
    if not select:
        raise DataError(f"{backend.where(engine.table)}: every column is an identifier; nothing to release")
    sql = (f"CREATE TABLE {backend.table_ref(tmp_parts)} AS SELECT {', '.join(select)}"
           f" FROM {backend.table_ref(engine.table)} AS t {' '.join(joins)}{where}")
    return sql, params


def verify_table(backend: SqlBackend, table: TableName, dataset: Dataset, requirements: Requirements,
                 n_input_rows: int | None = None) -> VerificationReport:
    """Re-check a released table in the database against the requirements.

    The classes are the groups of identical released quasi-identifier labels,
    computed in SQL from the released table alone; the sensitive values of
    each group are counted in SQL and mapped to the dataset's codes through
    :meth:`Dataset.value_codes` (numeric ones to their numbers for sums).
    Only these class statistics travel to Python.

    Parameters
    ----------
    backend : SqlBackend
        The database holding the released table.
    table : str or tuple of str
        The released table.
    dataset : Dataset
        The input the release was made from (roles, value codes, reference
        distributions).
    requirements : Requirements
        The models and the suppression budget.
    n_input_rows : int, optional
        Records in the input (default ``dataset.n_rows``); records missing from
        the release count as suppressed.

    Raises
    ------
    DataError
        When the table or a column is missing, or a released sensitive value
        is not a value of the input.
    """
    request = requirements.request
    sensitive = sorted(set(request.histograms) | set(request.moments))
    quasi = list(dataset.quasi)
    require_columns(backend, table, quasi + sensitive)
    ref = backend.table_ref(table)
    p = backend.placeholder
    d = len(quasi)
    labels = [f"CAST(t.{backend.quote(q)} AS TEXT) AS g{j}" for j, q in enumerate(quasi)]
    group_cols = [f"g{j}" for j in range(d)]
    rank = (f"DENSE_RANK() OVER (ORDER BY {', '.join(group_cols)}) - 1" if d else "0")
    star = " AND ".join(f"g{j} = {p}" for j in range(d)) if d else "1 = 1"
    positions = ", ".join(str(j + 1) for j in range(d))
    inner = (f"SELECT {', '.join(labels + ['COUNT(*) AS n'])} FROM {ref} AS t"
             + (f" GROUP BY {positions}" if d else ""))
    cls, sizes, stars = backend.fetch_numpy(
        f"SELECT CAST({rank} AS INT8), CAST(n AS INT8), CAST(CASE WHEN {star} THEN 1 ELSE 0 END AS INT4)"
        f" FROM ({inner}) AS g", [SUPPRESSED] * d, ["int8", "int8", "int4"], "grouping the released classes")
    n_classes = len(cls)
    order = np.argsort(cls)
    if n_classes and not np.array_equal(cls[order], np.arange(n_classes)):
        raise RuntimeError("released classes are not numbered 0..c-1; this is a bug")
    class_sizes = sizes[order].astype(np.int64)
    all_star = stars[order].astype(np.bool_)
    star_class = int(np.flatnonzero(all_star)[0]) if all_star.any() else -1
    counted = {a: _value_counts(backend, ref, table, dataset, a, labels, rank, d, star_class) for a in sensitive}
    stats = stats_of_value_counts(dataset, requirements, class_sizes, counted)
    n_in = dataset.n_rows if n_input_rows is None else n_input_rows
    shown = star_class >= 0 and _star_shows_sensitive(backend, ref, table, dataset)
    return judge_released_classes(stats, all_star, requirements, n_in, star_shows_sensitive=shown)


def _star_shows_sensitive(backend: SqlBackend, ref: str, table: TableName, dataset: Dataset) -> bool:
    """Whether a record whose quasi-identifiers are all ``*`` shows a sensitive value (one that is not ``*``)."""
    present = set(backend.columns(table))
    sensitive = [a for a in dataset.sensitive if a in present]
    if not sensitive or not dataset.quasi:
        return False
    p = backend.placeholder
    star = " AND ".join(f"CAST(t.{backend.quote(q)} AS TEXT) = {p}" for q in dataset.quasi)
    shown = " OR ".join(f"{text_of('t.' + backend.quote(a), p)} <> {p}" for a in sensitive)
    params: list[Any] = [SUPPRESSED] * len(dataset.quasi)
    for a in sensitive:
        params += [_marker(dataset, a), SUPPRESSED]
    rows = backend.fetch_rows(f"SELECT COUNT(*) FROM {ref} AS t WHERE {star} AND ({shown})", params,
                              "looking for sensitive values of suppressed records")
    return bool(rows and int(rows[0][0]))


def _value_counts(backend: SqlBackend, ref: str, table: TableName, dataset: Dataset, attribute: str, labels: list[str],
                  rank: str, d: int, star_class: int = -1,
                  ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """Per released class and sensitive value: the class index, the value's code, the count.

    A ``*`` in class ``star_class`` (the records whose quasi-identifiers are
    all ``*``) is a withheld value, counted in no statistic.
    """
    p = backend.placeholder
    value = text_of(f"t.{backend.quote(attribute)}", p)
    positions = ", ".join(str(j + 1) for j in range(d + 1))
    inner = (f"SELECT {', '.join(labels + [f'{value} AS sv', 'COUNT(*) AS n'])} FROM {ref} AS t"
             f" GROUP BY {positions}")
    rows = backend.fetch_rows(f"SELECT CAST({rank} AS INT8), sv, CAST(n AS INT8) FROM ({inner}) AS g",
                              [_marker(dataset, attribute)], f"counting the released values of {attribute!r}")
    rows = [r for r in rows if not (int(r[0]) == star_class and str(r[1]) == SUPPRESSED)]
    cls = np.fromiter((int(r[0]) for r in rows), dtype=np.int64, count=len(rows))
    counts = np.fromiter((int(r[2]) for r in rows), dtype=np.float64, count=len(rows))
    vc = dataset.value_codes(attribute)
    texts = [str(r[1]) for r in rows]
    codes = np.fromiter((vc.get(t, -1) for t in texts), dtype=np.int64, count=len(rows))
    if (codes < 0).any():
        unknown = texts[int(np.flatnonzero(codes < 0)[0])]
        raise DataError(f"{backend.where(table)}: released value {unknown!r} of column {attribute!r} is not a"
                        " value of the input; the released table does not belong to this dataset")
    return cls, codes, counts


def _marker(dataset: Dataset, column: str) -> str:
    missing = dataset.specs[column].missing
    return missing[0] if missing else ""


class DatabaseSink:
    """The release of a full-domain node, written inside the database its SQL engine reads.

    Parameters
    ----------
    backend : SqlBackend
        The database the release is written into.
    table : str or tuple of str
        The output table (``"name"``, ``"schema.name"`` or a tuple of parts).
    replace : bool
        An existing output table may be replaced; it is dropped only in the
        transaction that renames the checked release into place.
    source : str or tuple of str, optional
        The input table, which is never the output.

    :meth:`stage` takes a :class:`~anonset.sinks.base.NodeRelease` of an
    :class:`~anonset.engine.sql.engine.SqlEngine` over ``backend``.
    """

    def __init__(self, backend: SqlBackend, table: TableName, *, replace: bool = False,
                 source: TableName | None = None):
        self.backend = backend
        self.parts = table_parts(table)
        self.replace = replace
        self.source = source
        self._item: NodeRelease | None = None
        self._written: SqlRelease | None = None
        self._staging: tuple[str, ...] | None = None
        self._placed = False
        self._replaced = False

    @classmethod
    def for_engine(cls, engine: Engine, table: TableName, *, replace: bool = False) -> DatabaseSink:
        """The sink of an SQL engine: its backend, and its table as the input the output may not be."""
        if not isinstance(engine, SqlEngine):
            raise TypeError(f"a database sink writes the release of an SqlEngine; got engine {engine.name!r}")
        return cls(engine.backend, table, replace=replace, source=engine.table)

    @property
    def location(self) -> str:
        """The database and the output table, as messages name them."""
        return self.backend.where(self.parts)

    @property
    def database(self) -> str:
        """The database (without a password)."""
        return self.backend.description

    @property
    def output_table(self) -> str:
        """The output table's name parts joined by dots."""
        return ".".join(self.parts)

    def check(self) -> None:
        """Refuse the output table before any work: the input itself, a missing schema, or one that exists.

        Raises
        ------
        ConfigError
            When the output table is the input table.
        DataError
            When its schema does not exist (PostgreSQL), or the table exists
            and ``replace`` is false.
        """
        backend, parts = self.backend, self.parts
        where = backend.where(parts)
        if self.source is not None and _same_relation(backend, parts, table_parts(self.source)):
            raise ConfigError(f"{where}: the output table is the input table; choose another name (the input is"
                              " never overwritten)")
        if backend.dialect == "postgresql" and len(parts) == 2:
            rows = backend.fetch_rows("SELECT COUNT(*) FROM pg_catalog.pg_namespace WHERE nspname = %s",
                                      (parts[0],), "looking up the output schema")
            if not rows or not int(rows[0][0]):
                raise DataError(f"{where}: schema {parts[0]!r} does not exist; create it or choose another schema"
                                " for the output table")
        if not self.replace and backend.table_exists(parts):
            raise DataError(f"{where}: the output table already exists; choose another name, drop it, or replace"
                            " it (output.replace: true in a config, replace_output=True in the API)")

    def stage(self, item: NodeRelease) -> None:
        """Write the release of the item's node under a staging name next to the output table."""
        engine = item.engine
        if not isinstance(engine, SqlEngine) or engine.backend is not self.backend:
            raise ValueError("the node's engine must be an SqlEngine over this sink's database")
        if self._staging is not None or self._placed:
            raise ValueError("this sink has already staged a release")
        staging = self.parts[:-1] + (self.backend.temp_name("staged"),)
        self._written = write_release(engine, item.levels, item.violating_keys, staging, item.drop_suppressed,
                                      withhold_sensitive=item.withhold_sensitive)
        self._item, self._staging = item, staging

    def verify(self) -> VerificationReport:
        """Re-check the staged table in SQL against the item's requirements; RuntimeError when it fails.

        Also checks that the table suppressed exactly the records the node's
        classes say.
        """
        item, written, staging = self._item, self._written, self._staging
        if item is None or written is None or staging is None:
            raise ValueError("nothing is staged to verify")
        dataset = item.engine.dataset
        report = verify_table(self.backend, staging, dataset, item.requirements, dataset.n_rows)
        require_verified(report)
        if written.suppressed_rows != item.suppressed_rows:
            raise RuntimeError(f"the release suppressed {written.suppressed_rows} records but the node's"
                               f" classes say {item.suppressed_rows} (this is a bug in anonset)")
        return report

    def place(self) -> None:
        """Rename the staged table into the output table, dropping a replaced table in the same transaction.

        Raises
        ------
        DataError
            When the output table appeared during the run and may not be
            replaced.
        """
        backend, out, staging = self.backend, self.parts, self._staging
        if staging is None:
            raise ValueError("nothing is staged to place")
        exists = backend.table_exists(out)  # outside the transaction: a failed probe would abort it
        if exists and not self.replace:
            raise DataError(f"{backend.where(out)}: the output table already exists (it appeared during the"
                            " run); choose another name, drop it, or replace it")
        with backend.transaction():
            if exists:
                backend.execute(f"DROP TABLE {backend.table_ref(out)}", (), "replacing the output table")
            backend.rename_table(staging, out[-1])
        self._staging = None
        self._placed, self._replaced = True, exists

    def discard(self) -> None:
        """Drop the staging table; after :meth:`place`, drop the placed table unless it replaced one.

        A table that replaced an existing one stays: the old one is gone,
        and the new one passed its re-check.  A staging table that cannot be
        dropped is left (the error that led here matters more).
        """
        backend = self.backend
        if self._staging is not None:
            staging, self._staging = self._staging, None
            with contextlib.suppress(DataError):
                backend.execute(f"DROP TABLE IF EXISTS {backend.table_ref(staging)}", (),
                                "removing the unchecked release")
        elif self._placed and not self._replaced:
            self._placed = False
            backend.execute(f"DROP TABLE IF EXISTS {backend.table_ref(self.parts)}", (),
                            "removing the release whose other outputs could not be written")

    def undeclared(self, k: int) -> list[str]:
        """Check the staged table's undeclared columns before it is placed (:mod:`anonset.recheck.undeclared`)."""
        if self._item is None or self._staging is None:
            raise ValueError("nothing is staged")
        return refuse_in_database(self.backend, self._staging, self._item.engine.dataset, k)


def _same_relation(backend: SqlBackend, a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """True when two names denote the same table (on PostgreSQL also through the search path)."""
    if a == b:
        return True
    if backend.dialect != "postgresql":
        return False
    rows = backend.fetch_rows("SELECT to_regclass(%s) IS NOT NULL AND to_regclass(%s) = to_regclass(%s)",
                              (_regclass_name(a), _regclass_name(a), _regclass_name(b)), "comparing table names")
    return bool(rows and rows[0][0])


def _regclass_name(parts: tuple[str, ...]) -> str:
    """A table name as ``to_regclass`` reads it: every part double-quoted."""
    return ".".join('"' + p.replace('"', '""') + '"' for p in parts)
