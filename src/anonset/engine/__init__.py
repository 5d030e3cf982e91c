"""Engines compute the class statistics of candidate releases.

The :class:`Engine` protocol is what search methods talk to; the numpy engine
is the reference implementation and others (SQL, distributed) must return
identical statistics.

The SQL engine (:class:`SqlEngine`) computes them inside a database: DuckDB
(embedded, for CSV / Parquet files and DataFrames) or PostgreSQL (a table that
never leaves the server), through a :class:`DuckDBBackend` or
:class:`PostgresBackend`.  :func:`dataset_from_table` builds the dataset of a
database table from its value counts.  The release of such a table is written
and re-checked in SQL by :mod:`anonset.engine.sql_release` (imported from
there: it depends on the release and verification modules).
"""

from anonset.engine.base import ClassStats, Engine, StatsRequest, stats_from_assignment
from anonset.engine.numpy_engine import NumpyEngine
from anonset.engine.sql_backends import DuckDBBackend, PostgresBackend, SqlBackend
from anonset.engine.sql_engine import SqlEngine
from anonset.engine.sql_profile import dataset_from_table, profile_table

__all__ = [
    "ClassStats",
    "DuckDBBackend",
    "Engine",
    "NumpyEngine",
    "PostgresBackend",
    "SqlBackend",
    "SqlEngine",
    "StatsRequest",
    "dataset_from_table",
    "profile_table",
    "stats_from_assignment",
]
