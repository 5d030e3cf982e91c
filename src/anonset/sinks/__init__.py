"""Where a release goes: checked, staged, re-checked, then placed or discarded.

:mod:`~anonset.sinks.base` defines :class:`~anonset.sinks.base.ReleaseSink`,
the sink of each engine by its name (:func:`~anonset.sinks.base.register_sink`)
and the file sink; :mod:`~anonset.sinks.database` writes, re-checks and places
a release inside the database it came from (DuckDB, PostgreSQL);
:mod:`~anonset.sinks.spark` on the Spark cluster.
"""
