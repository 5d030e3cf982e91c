"""The SQL engine: class statistics computed inside a database.

:mod:`~anonset.engine.sql.backends` speaks to DuckDB (embedded: CSV, Parquet,
DataFrames) and PostgreSQL (a table that never leaves the server);
:mod:`~anonset.engine.sql.engine` is the :class:`~anonset.engine.base.Engine`
over one of them; :mod:`~anonset.engine.sql.profile` builds the dataset of a
database table from its value counts.
"""
