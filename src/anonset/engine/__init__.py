"""Engines compute the class statistics of candidate releases.

The :class:`~anonset.engine.base.Engine` protocol is what search methods talk
to; the numpy engine (:mod:`anonset.engine.numpy`) is the reference
implementation and the SQL engine (:mod:`anonset.engine.sql`, DuckDB or
PostgreSQL) must return identical statistics.  The names below are imported
on first use, so ``import anonset.engine`` loads no backend.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "Engine": "anonset.engine.base",
    "NumpyEngine": "anonset.engine.numpy.engine",
    "DuckDBBackend": "anonset.engine.sql.duckdb",
    "PostgresBackend": "anonset.engine.sql.postgres",
    "SqlBackend": "anonset.engine.sql.base",
    "SqlEngine": "anonset.engine.sql.engine",
    "dataset_from_table": "anonset.engine.sql.profile",
    "profile_table": "anonset.engine.sql.profile",
}

__all__ = ["DuckDBBackend", "Engine", "NumpyEngine", "PostgresBackend", "SqlBackend", "SqlEngine",
           "dataset_from_table", "profile_table"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'anonset.engine' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
