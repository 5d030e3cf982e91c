"""The Spark engine: tables on a Spark cluster (or in local mode), searched and released there.

:mod:`~anonset.engine.spark.session` starts the session, :mod:`~anonset.engine.spark.source`
reads and profiles the table, :class:`~anonset.engine.spark.engine.SparkEngine` counts the
bottom class table in one job and rolls every node up on the driver, and
:class:`~anonset.sinks.spark.SparkSink` writes and re-checks the release on the cluster.
Nothing here imports pyspark until a session is asked for.
"""
