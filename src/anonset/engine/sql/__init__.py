"""The SQL engine: class statistics computed inside a database.

:mod:`~anonset.engine.sql.base` is the contract a database backend fulfils
(:class:`~anonset.engine.sql.base.SqlBackend`) and what backends share; one
module per backend implements it: :mod:`~anonset.engine.sql.duckdb`
(embedded: CSV, Parquet, DataFrames) and :mod:`~anonset.engine.sql.postgres`
(a table that never leaves the server).  :mod:`~anonset.engine.sql.engine` is
the :class:`~anonset.engine.base.Engine` over one of them;
:mod:`~anonset.engine.sql.profile` builds the dataset of a database table from
its value counts.
"""
