"""The SQL engine: frequency sets of full-domain nodes computed inside the database.

The records never leave the database; only class tables (one row per
equivalence class) travel to Python.

How a node's class table is computed:

1. Once, at construction, small *mapping tables* are uploaded: for every
   quasi-identifier, each distinct raw value (as text, ``NULL`` written as the
   first missing marker, exactly as :meth:`Dataset.value_codes` lists it) with
   its hierarchy leaf code; for every requested sensitive attribute, each raw
   value with its code (and its number, for sums).
2. Once, the *bottom* class table (every quasi-identifier at its leaf) is
   materialized inside the database by joining the source table to the
   mapping tables and grouping by the leaf codes: per class the leaf codes,
   the count, one count column per sensitive value (histograms) and
   ``SUM(x)``, ``SUM(x*x)`` (moments).  This is the only statement that scans
   the source table.
3. Any other node is *rolled up* from the smallest materialized node below
   it: each key column is mapped to the coarser level by indexing a parent-map
   array parameter (``(CAST(? AS INT4[]))[k + 1]``) and the class table is
   grouped again with ``SUM`` of the counts and statistics.  The result is
   materialized as a temporary table (a bounded, least-recently-used cache of
   nodes, like the numpy engine's) and fetched: numeric columns only, through
   binary ``COPY`` on PostgreSQL.

Built with ``floor=`` (each quasi-identifier's minimum generalization), the
mapping tables send each raw value to its code at the floor's level instead
of its leaf, so the bottom class table is counted at the floor: fewer
classes when a quasi-identifier is near-unique; no node below the floor can
be asked for.

The statistics equal the numpy engine's for the same node (classes may come
in another order; sums of non-integer values may differ in the last bits
since they are added in another order).

:meth:`SqlEngine.close` (or leaving a ``with`` block) drops the engine's
temporary tables; the backend stays open for its owner to close.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.stats import ClassStats, StatsRequest, match_keys
from anonset.engine.base import floor_levels
from anonset.engine.sql.base import ColumnType, SqlBackend, TableName
from anonset.engine.sql.profile import require_columns, text_of
from anonset.errors import ConfigError, DataError

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["SqlEngine"]

#: Stay well below PostgreSQL's 1,600 columns per table.
MAX_COLUMNS = 1400


@dataclass
class _Node:
    """A materialized class table inside the database."""

    levels: tuple[int, ...]
    table: str  # quoted temporary table name
    n_classes: int


class SqlEngine:
    """Compute class statistics of full-domain nodes inside a database.

    Parameters
    ----------
    dataset : Dataset
        The dataset (in memory, or built from the table's profile with
        :func:`anonset.engine.sql.profile.dataset_from_table`); its value codes
        define the encoding.  Every quasi-identifier needs a hierarchy.
    request : StatsRequest, optional
        Sensitive statistics to carry per class.
    backend : SqlBackend
        The database holding ``table``.
    table : str or tuple of str
        The source table or view.
    cache_cells : int
        Budget of the node cache inside the database, in class-table cells
        (classes times columns, summed over cached nodes); the bottom node is
        always kept and not counted.
    direct_rows : int
        A node rolled up from a cached node of at most this many classes is
        computed and fetched in one statement and not cached (materializing
        a small class table costs more than recomputing it).
    fetched_rows : int
        Budget, in classes, of the class tables kept in Python once fetched
        (least recently used first out): a node asked for again (a second
        search, the neighbours of the released node) does not travel again.
    floor : sequence of int, optional
        The levels to count the most specific class table at (each
        quasi-identifier's minimum generalization); the original values
        (all 0) by default.

    Attributes
    ----------
    backend : SqlBackend
        The database; not closed by :meth:`close` (its owner closes it).
    table : str or tuple of str
        The source table.

    Raises
    ------
    DataError
        When the table or a column is missing, a query fails, or the table's
        values no longer match the dataset's (the table changed since it was
        profiled).
    """

    def __init__(self, dataset: Dataset, request: StatsRequest | None, backend: SqlBackend, table: TableName,
                 *, cache_cells: int = 20_000_000, direct_rows: int = 2_000, fetched_rows: int = 1_000_000,
                 floor: Sequence[int] | None = None):
        self._closed = False
        self.dataset = dataset
        self.request = request or StatsRequest()
        self.backend = backend
        self.table = table
        self.cache_cells = int(cache_cells)
        self.direct_rows = int(direct_rows)
        self._array_params: dict[tuple[int, int, int], Any] = {}
        self.hierarchies = dataset.hierarchies
        self._floor = floor_levels(self.hierarchies, dataset.quasi, floor)
        self._where = backend.where(table)
        self._rows_read = 0
        self._nodes_computed = 0
        self._created: list[str] = []
        self._hist = tuple(sorted(self.request.histograms))
        self._moments = tuple(sorted(self.request.moments))
        self._check_request()
        self._columns = self._column_layout()
        require_columns(backend, table, list(dataset.quasi) + sorted(set(self._hist) | set(self._moments)))
        self._cache: OrderedDict[tuple[int, ...], _Node] = OrderedDict()
        self._cells = 0
        self.fetched_rows = int(fetched_rows)
        self._fetched: OrderedDict[tuple[int, ...], ClassStats] = OrderedDict()
        self._fetched_classes = 0
        try:
            self._bottom = self._build_bottom()
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ Engine protocol
    @property
    def name(self) -> str:
        """The backend's dialect: ``duckdb`` or ``postgresql``."""
        return self.backend.dialect

    @property
    def bottom_levels(self) -> tuple[int, ...]:
        """The levels of the most specific class table: all 0, or the floor the engine was built with."""
        return self._floor

    @property
    def rows_fetched(self) -> int:
        """Result rows the backend has fetched into Python, the profile's value counts included.

        Class tables, value counts and check rows; never records of the
        source table (a test proves it).
        """
        return self.backend.rows_fetched

    @property
    def rows_read(self) -> int:
        """Rows this engine brought into Python.

        Class-table rows and one check row; never rows of the source table.
        :meth:`row_classes` adds the dataset's rows, which it reads in memory.
        """
        return self._rows_read

    @property
    def nodes_computed(self) -> int:
        """Class tables computed by roll-up so far (cache hits not counted)."""
        return self._nodes_computed

    def class_stats(self, levels: tuple[int, ...]) -> ClassStats:
        """Class statistics of node ``levels``, rolled up inside the database.

        Parameters
        ----------
        levels : tuple of int
            Generalization level per quasi-identifier.

        Returns
        -------
        ClassStats
            Keys are the codes at ``levels``; classes in no particular order.
        """
        levels = self._check_levels(levels)
        known = self._fetched.get(levels)
        if known is not None:
            self._fetched.move_to_end(levels)
            return known
        stats = self._class_stats(levels)
        self._keep_fetched(levels, stats)
        return stats

    def _class_stats(self, levels: tuple[int, ...]) -> ClassStats:
        """Fetch the class table of a node: from the database's node cache, or rolled up there first."""
        node = self._cache.get(levels)
        if node is not None:
            self._cache.move_to_end(levels)
            return self._fetch(node)
        source = self._best_source(levels)
        select, params = self._rollup_select(source, levels)
        self._nodes_computed += 1
        if source.n_classes <= self.direct_rows:
            # a small source: roll up and fetch in one statement; materializing would cost more than it saves
            return self._fetch_select(select, params, levels, source.n_classes)
        name, n_classes = self.backend.create_temp_table_as("node", select, params,
                                                            f"computing the class table of node {levels}")
        self._created.append(name)
        node = _Node(levels, name, n_classes)
        stats = self._fetch(node)
        node.n_classes = stats.n_classes
        self._store(node)
        return stats

    def _keep_fetched(self, levels: tuple[int, ...], stats: ClassStats) -> None:
        """Keep a fetched class table in Python within the ``fetched_rows`` budget (least recently used out)."""
        if stats.n_classes > self.fetched_rows:
            return
        self._fetched[levels] = stats
        self._fetched_classes += stats.n_classes
        while self._fetched_classes > self.fetched_rows:
            _, old = self._fetched.popitem(last=False)
            self._fetched_classes -= old.n_classes

    def small_class_rows(self, levels: tuple[int, ...], k: int) -> int:
        """Records in classes smaller than ``k`` at node ``levels``, counted inside the database.

        One number travels instead of the class table (Morton's k test on the
        frequency set).  A node rolled up from a large source is materialized
        and cached, as :meth:`class_stats` does.
        """
        levels = self._check_levels(levels)
        node = self._cache.get(levels)
        p = self.backend.placeholder
        params: list[Any] = []
        if node is not None:
            self._cache.move_to_end(levels)
            inner = f"SELECT n FROM {node.table}"
        else:
            source = self._best_source(levels)
            inner, params = self._rollup_select(source, levels)
            self._nodes_computed += 1
            if source.n_classes > self.direct_rows:
                name, n_classes = self.backend.create_temp_table_as("node", inner, params,
                                                                    f"computing the class table of node {levels}")
                self._created.append(name)
                self._store(_Node(levels, name, n_classes))
                inner, params = f"SELECT n FROM {name}", []
        (small,) = self.backend.fetch_numpy(
            f"SELECT CAST(COALESCE(SUM(CASE WHEN t.n < {p} THEN t.n ELSE 0 END), 0) AS INT8) FROM ({inner}) t",
            [int(k), *params], ["int8"], f"counting records in classes smaller than {k} at node {levels}")
        self._rows_read += 1
        return int(small[0])

    def row_classes(self, levels: tuple[int, ...]) -> tuple[NDArray[np.int64], ClassStats]:
        """Row -> class index of node ``levels`` (into the returned stats), and the stats.

        This reads the rows: it is only for datasets held in memory (the
        statistics come from the database, the per-row codes from the
        dataset).  A table that lives in a database is released in SQL with
        :func:`anonset.sinks.database.write_release` instead.

        Raises
        ------
        DataError
            When the dataset's rows are not in memory.
        """
        levels = self._check_levels(levels)
        if not self.dataset.in_memory:
            raise DataError(
                f"{self._where}: per-row classes need the rows in memory; a table in a database is"
                " released in SQL (anonset.sinks.database.write_release)"
            )
        stats = self.class_stats(levels)
        codes = np.column_stack([h.maps[lv][self.dataset.encoded[q].row_codes()]
                                 for q, h, lv in zip(self.dataset.quasi, self.hierarchies, levels, strict=True)]) \
            if levels else np.zeros((self.dataset.n_rows, 0), dtype=np.int32)
        self._rows_read += self.dataset.n_rows
        sizes = [h.size(lv) for h, lv in zip(self.hierarchies, levels, strict=True)]
        index = match_keys(codes, stats.keys, sizes)
        if (index < 0).any():
            raise DataError(f"{self._where}: the database's class table does not cover every in-memory row;"
                            " the table and the dataset differ")
        return index, stats

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Drop the engine's temporary tables (mapping tables and cached nodes); again, it does nothing.

        The statistics methods raise ``RuntimeError`` afterwards; the backend
        stays open.
        """
        self._closed = True
        for name in reversed(self._created):
            with contextlib.suppress(DataError):
                self.backend.drop(name)
        self._created.clear()
        self._cache.clear()
        self._cells = 0

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # ------------------------------------------------------------------ construction
    def _check_request(self) -> None:
        for a in self._hist + self._moments:
            if a not in self.dataset.encoded:
                raise ConfigError(f"{self.dataset.source}: statistics requested for {a!r}, which is not a"
                                  " sensitive attribute; set `role: sensitive` on it")
        for a in self._moments:
            if self.dataset.encoded[a].numbers is None:
                raise ConfigError(f"{self.dataset.source}: sums requested for {a!r}, which is not numeric;"
                                  " set `type: numeric` on it")

    def _column_layout(self) -> list[tuple[str, ColumnType]]:
        """Columns of every class table: keys, count, histogram counts, sums, sums of squares."""
        cols: list[tuple[str, ColumnType]] = [(f"k{j}", "int4") for j in range(len(self.hierarchies))]
        cols.append(("n", "int4"))
        for i, a in enumerate(self._hist):
            cols += [(f"h{i}_{c}", "int4") for c in range(self.dataset.encoded[a].n_categories)]
        for i in range(len(self._moments)):
            cols += [(f"s{i}", "float8"), (f"q{i}", "float8")]
        if len(cols) > MAX_COLUMNS:
            raise ConfigError(
                f"{self.dataset.source}: the class tables would need {len(cols)} columns (one per sensitive"
                f" value); the SQL engine supports at most {MAX_COLUMNS}: group the sensitive values or use"
                " the numpy engine"
            )
        return cols

    def _upload_maps(self) -> tuple[list[str], dict[str, str]]:
        """Mapping tables value -> leaf code per quasi-identifier, value -> code (, number) per sensitive."""
        qi_maps = []
        for q, h, level in zip(self.dataset.quasi, self.hierarchies, self._floor, strict=True):
            vc = self.dataset.value_codes(q)
            leaves = np.fromiter(vc.values(), np.int32, count=len(vc))
            name = self.backend.upload(f"map_{q}", {"v": _text_array(vc), "c": h.maps[level][leaves]},
                                       {"v": "text", "c": "int4"})
            self._created.append(name)
            qi_maps.append(name)
        sensitive_maps: dict[str, str] = {}
        for a in sorted(set(self._hist) | set(self._moments)):
            vc = self.dataset.value_codes(a)
            codes = np.fromiter(vc.values(), np.int64, count=len(vc))
            data: dict[str, Any] = {"v": _text_array(vc), "c": codes.astype(np.int32)}
            types: dict[str, ColumnType] = {"v": "text", "c": "int4"}
            numbers = self.dataset.encoded[a].numbers
            if a in self._moments and numbers is not None:
                data["x"] = numbers[codes].astype(np.float64)
                types["x"] = "float8"
            name = self.backend.upload(f"map_{a}", data, types)
            self._created.append(name)
            sensitive_maps[a] = name
        return qi_maps, sensitive_maps

    def _build_bottom(self) -> _Node:
        """Materialize the most specific node's class table (the one scan of the source table)."""
        b, p = self.backend, self.backend.placeholder
        qi_maps, sens_maps = self._upload_maps()
        alias = {a: f"a{i}" for i, a in enumerate(sorted(sens_maps))}
        mapped = [f"m{j}" for j in range(len(qi_maps))] + [alias[a] for a in sorted(sens_maps)]
        unmatched = " OR ".join(f"{m}.c IS NULL" for m in mapped) or "1 = 0"
        select: list[str] = [f"m{j}.c AS k{j}" for j in range(len(qi_maps))]
        select.append("CAST(COUNT(*) AS INT4) AS n")
        params: list[Any] = []
        for i, a in enumerate(self._hist):
            for c in range(self.dataset.encoded[a].n_categories):
                select.append(f"CAST(COUNT(*) FILTER (WHERE {alias[a]}.c = {p}) AS INT4) AS h{i}_{c}")
                params.append(c)
        for i, a in enumerate(self._moments):
            select.append(f"CAST(SUM({alias[a]}.x) AS FLOAT8) AS s{i}")
            select.append(f"CAST(SUM({alias[a]}.x * {alias[a]}.x) AS FLOAT8) AS q{i}")
        select.append(f"CAST(COUNT(*) FILTER (WHERE {unmatched}) AS INT4) AS unmatched")
        joins: list[str] = []
        for j, (q, m) in enumerate(zip(self.dataset.quasi, qi_maps, strict=True)):
            joins.append(f"LEFT JOIN {m} AS m{j} ON m{j}.v = {text_of('t.' + b.quote(q), p)}")
            params.append(self._marker(q))
        for a, m in sorted(sens_maps.items()):
            joins.append(f"LEFT JOIN {m} AS {alias[a]} ON {alias[a]}.v = {text_of('t.' + b.quote(a), p)}")
            params.append(self._marker(a))
        group = f" GROUP BY {', '.join(f'm{j}.c' for j in range(len(qi_maps)))}" if qi_maps else ""
        sql = f"SELECT {', '.join(select)} FROM {b.table_ref(self.table)} AS t {' '.join(joins)}{group}"
        name, _ = b.create_temp_table_as("bottom", sql, params, "computing the class table of the most specific node")
        self._created.append(name)
        total, n_unmatched, n_classes = b.fetch_numpy(
            f"SELECT CAST(COALESCE(SUM(n), 0) AS INT8), CAST(COALESCE(SUM(unmatched), 0) AS INT8),"
            f" CAST(COUNT(*) AS INT8) FROM {name}", (), ["int8", "int8", "int8"], "checking the class table")
        self._rows_read += 1
        if int(n_unmatched[0]):
            raise DataError(f"{self._where}: {int(n_unmatched[0])} rows hold values the dataset was not built"
                            f" from{self._first_unknown(qi_maps, sens_maps)}; the table changed since it was"
                            " profiled: profile it again")
        if int(total[0]) != self.dataset.n_rows:
            raise DataError(
                f"{self._where}: the table has {int(total[0])} rows but the dataset was built from"
                f" {self.dataset.n_rows}; the table changed since it was profiled: profile it again"
            )
        node = _Node(self._floor, name, int(n_classes[0]))
        self._cache[node.levels] = node  # always kept, not counted against the budget (as in NumpyEngine)
        return node

    def _first_unknown(self, qi_maps: list[str], sens_maps: dict[str, str]) -> str:
        """`` (e.g. value 'z' of column 'a')`` for the first column holding a value the dataset lacks."""
        b, p = self.backend, self.backend.placeholder
        pairs = list(zip(self.dataset.quasi, qi_maps, strict=True)) + sorted(sens_maps.items())
        for column, m in pairs:
            text = text_of("t." + b.quote(column), p)
            rows = b.fetch_rows(f"SELECT {text} FROM {b.table_ref(self.table)} AS t LEFT JOIN {m} AS m"
                                f" ON m.v = {text_of('t.' + b.quote(column), p)} WHERE m.c IS NULL LIMIT 1",
                                [self._marker(column), self._marker(column)], "finding an unknown value")
            if rows:
                return f" (e.g. value {rows[0][0]!r} of column {column!r})"
        return ""

    def _marker(self, column: str) -> str:
        missing = self.dataset.specs[column].missing
        return missing[0] if missing else ""

    # ------------------------------------------------------------------ roll-up
    def _check_levels(self, levels: tuple[int, ...]) -> tuple[int, ...]:
        if self._closed:
            raise RuntimeError(f"{self._where}: the SQL engine is closed (its temporary tables are dropped);"
                               " build another one")
        out = tuple(int(v) for v in levels)
        if len(out) != len(self.hierarchies) or any(
                v < 0 or v > h.max_level for v, h in zip(out, self.hierarchies, strict=True)):
            raise ValueError(f"levels {levels!r} are not a node of the lattice"
                             f" (max levels {[h.max_level for h in self.hierarchies]})")
        if any(v < f for v, f in zip(out, self._floor, strict=True)):
            raise ValueError(f"node {out} lies below the levels the engine counted its classes at"
                             f" ({self._floor}, the minimum generalization)")
        return out

    def _best_source(self, levels: tuple[int, ...]) -> _Node:
        """The cached node below ``levels`` with the fewest classes."""
        nodes = list(self._cache.values())
        below = np.all(np.array([n.levels for n in nodes], dtype=np.int64).reshape(len(nodes), -1)
                       <= np.asarray(levels, dtype=np.int64), axis=1)
        sizes = np.where(below, np.array([n.n_classes for n in nodes], dtype=np.float64), np.inf)
        return nodes[int(np.argmin(sizes))]

    def _rollup_select(self, source: _Node, levels: tuple[int, ...]) -> tuple[str, list[Any]]:
        """The SELECT rolling the class table of ``source`` up to ``levels``, and its parameters."""
        p = self.backend.placeholder
        keys: list[str] = []
        params: list[Any] = []
        for j, (h, a, b) in enumerate(zip(self.hierarchies, source.levels, levels, strict=True)):
            if a == b:
                keys.append(f"k{j}")
            elif h.size(b) == 1:
                keys.append(f"CAST(0 AS INT4) AS k{j}")
            else:
                keys.append(f"CAST((CAST({p} AS INT4[]))[k{j} + 1] AS INT4) AS k{j}")
                params.append(self._parent_map_param(j, a, b))
        stats = [f"CAST(SUM({c}) AS INT4) AS {c}" if t == "int4" else f"CAST(SUM({c}) AS FLOAT8) AS {c}"
                 for c, t in self._columns[len(keys):]]
        group = f" GROUP BY {', '.join(str(j + 1) for j in range(len(keys)))}" if keys else ""
        return f"SELECT {', '.join(keys + stats)} FROM {source.table}{group}", params

    def _parent_map_param(self, j: int, a: int, b: int) -> Any:
        """The parent map of attribute ``j`` from level ``a`` to ``b`` as an array parameter (cached)."""
        value = self._array_params.get((j, a, b))
        if value is None:
            value = self.backend.int_array(self.hierarchies[j].parent_map(a, b))
            self._array_params[(j, a, b)] = value
        return value

    def _fetch(self, node: _Node) -> ClassStats:
        names = ", ".join(c for c, _ in self._columns)
        hint = node.n_classes if node.n_classes >= 0 else None
        return self._fetch_select(f"SELECT {names} FROM {node.table}", [], node.levels, hint)

    def _fetch_select(self, sql: str, params: list[Any], levels: tuple[int, ...],
                      rows_hint: int | None) -> ClassStats:
        arrays = self.backend.fetch_numpy(sql, params, [t for _, t in self._columns],
                                          f"fetching the class table of node {levels}", rows_hint=rows_hint)
        n = len(arrays[0])
        self._rows_read += n
        d = len(self.hierarchies)
        keys = np.column_stack(arrays[:d]).astype(np.int32) if d else np.zeros((n, 0), dtype=np.int32)
        pos = d + 1
        hists: dict[str, NDArray[np.int64]] = {}
        for a in self._hist:
            m = self.dataset.encoded[a].n_categories
            hists[a] = (np.column_stack(arrays[pos:pos + m]).astype(np.int64) if m
                        else np.zeros((n, 0), dtype=np.int64))
            pos += m
        sums: dict[str, NDArray[np.float64]] = {}
        sumsq: dict[str, NDArray[np.float64]] = {}
        for a in self._moments:
            sums[a] = arrays[pos]
            sumsq[a] = arrays[pos + 1]
            pos += 2
        return ClassStats(sizes=arrays[d].astype(np.int64), keys=keys, histograms=hists, sums=sums, sumsq=sumsq,
                          levels=levels)

    def _store(self, node: _Node) -> None:
        width = len(self._columns)
        self._cache[node.levels] = node
        self._cells += node.n_classes * width
        for levels in list(self._cache):
            if self._cells <= self.cache_cells or len(self._cache) <= 2:
                break
            if levels == self._bottom.levels or levels == node.levels:
                continue
            old = self._cache.pop(levels)
            self._cells -= old.n_classes * width
            self.backend.drop(old.table)
            self._created.remove(old.table)


def _text_array(value_codes: dict[str, int]) -> NDArray[np.object_]:
    out = np.empty(len(value_codes), dtype=object)
    out[:] = list(value_codes)
    return out


if TYPE_CHECKING:  # mypy checks that the class implements the protocol
    from anonset.engine.base import Engine

    _IS_AN_ENGINE: type[Engine] = SqlEngine
