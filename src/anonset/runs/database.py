"""The runs of ``engine: duckdb`` and ``engine: postgresql``: the records stay in a database.

The input is profiled in the database (value counts), every candidate's
class table is computed there (:class:`~anonset.engine.sql.engine.SqlEngine`),
and the release is written, re-checked and placed there by the engine's sink
(:class:`~anonset.sinks.database.DatabaseSink`):

* **PostgreSQL** (``input.sql``): the release becomes ``output.table`` of the
  same database, refused before any work when it may not be written, and
  dropped again when the summary cannot be written (unless it replaced a
  table);
* **DuckDB** (a file as input): the file is a view of an in-memory DuckDB
  database; the release is written into a table of that database
  (:data:`DUCKDB_RELEASE_TABLE`) and copied from there into a staged file for
  the release output, when there is one.

Stages: ``load`` is the profile, ``write`` the copy of a DuckDB release.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from anonset.config import SqlInput, TableOutput
from anonset.errors import ConfigError, DataError
from anonset.runs.base import ReleaseRequest, Run, RunOutcome, attribute_specs, release_delimiter

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import pandas as pd
    from numpy.typing import NDArray

    from anonset.anonymizer import Anonymizer
    from anonset.core.dataset import Dataset
    from anonset.engine.sql.base import SqlBackend, TableName
    from anonset.sinks.base import FileSink

__all__ = ["DUCKDB_RELEASE_TABLE", "DUCKDB_VIEW", "DatabaseRun"]

#: The table a DuckDB run releases into, inside its own in-memory database.
DUCKDB_RELEASE_TABLE = "anonset_release"
#: The view a DuckDB run exposes its input file as.
DUCKDB_VIEW = "data"


class DatabaseRun(Run):
    """``engine: duckdb`` (a file) and ``engine: postgresql`` (``input.sql``), see the module docstring."""

    @property
    def _in_postgres(self) -> bool:
        return isinstance(self.config.input, SqlInput)

    def refuse(self, request: ReleaseRequest) -> None:
        """A release into PostgreSQL has no file to write (--output) and no records in memory to report on."""
        cfg = self.config
        if request.output is not None and self._in_postgres:
            raise ConfigError(f"{cfg.path}: --output names a file, but a table in PostgreSQL (input.sql) is released"
                              " into output.table of the same database; set output.table in the config")
        if request.reports and self._in_postgres:
            raise ConfigError(f"{cfg.path}: a report reads the released records, and a release into PostgreSQL"
                              " (input.sql) keeps them in the database; drop --report, or release to a file")
        if request.reports:
            raise ConfigError(f"{cfg.path}: --report needs the release in memory (engine: numpy); with engine"
                              f" {cfg.engine}, run `anonset report {cfg.path} RELEASE` on the written release")

    def release_file(self, override: Path | None) -> Path | None:
        """DuckDB copies its release into the output file; PostgreSQL writes a table, no file."""
        return None if self._in_postgres else super().release_file(override)

    def output_table(self, request: ReleaseRequest) -> TableName | None:
        """``output.table`` (PostgreSQL), or the table of DuckDB's own in-memory database."""
        output = self.config.output
        return output.table if isinstance(output, TableOutput) else DUCKDB_RELEASE_TABLE

    def connect(self) -> SqlBackend:
        """Open the run's database: PostgreSQL at ``input.sql.url``, or an in-memory DuckDB over the input file."""
        from anonset.config import FileInput
        from anonset.engine.sql.duckdb import DuckDBBackend
        from anonset.engine.sql.postgres import PostgresBackend

        inp = self.config.input
        if isinstance(inp, SqlInput):
            return PostgresBackend(inp.url)
        if isinstance(inp, FileInput):
            return DuckDBBackend.from_file(inp.path, inp.delimiter, table=DUCKDB_VIEW, fmt=inp.format,
                                           settings=self.config.duckdb)
        raise ConfigError(f"{self.config.path}: engine {self.config.engine} reads a file on this machine or a table"
                          f" in PostgreSQL; {inp.location} is neither")

    @property
    def source_table(self) -> TableName:
        """The table the SQL engine reads: ``input.sql.table``, or the DuckDB view of the input file."""
        inp = self.config.input
        return inp.table if isinstance(inp, SqlInput) else DUCKDB_VIEW

    def load(self, backend: SqlBackend) -> Dataset:
        """The dataset of the source table, built from value counts computed in the database (no record read)."""
        from anonset.engine.sql.profile import dataset_from_table

        return dataset_from_table(backend, self.source_table, attribute_specs(self.config))

    def release(self, model: Anonymizer, files: FileSink, request: ReleaseRequest, started: float) -> RunOutcome:
        """Profile, search, write and re-check inside the database; copy a DuckDB release into its file."""
        from anonset.engine.sql.engine import SqlEngine
        from anonset.release.release import table_copier
        from anonset.sinks.base import FileOutput
        from anonset.sinks.database import DatabaseSink

        cfg = self.config
        backend = self.connect()
        try:
            output = cfg.output
            if isinstance(output, TableOutput):
                DatabaseSink(backend, output.table, replace=output.replace, source=self.source_table).check()
            profiling = time.perf_counter()
            dataset = self.load(backend)
            profile_seconds = time.perf_counter() - profiling - dataset.encode_seconds
            cfg.requirements.validate(dataset)  # before the engine scans the table
            with SqlEngine(dataset, cfg.requirements.request, backend, self.source_table,
                           floor=dataset.min_levels) as engine:
                release = model.fit(dataset, engine=engine).release_
            release = release.timed(load=profile_seconds, encode=dataset.encode_seconds)
            target = files.outputs.get("release")
            if not self._in_postgres:
                release = release.written_to(files.location)
                if target is not None:
                    writing = time.perf_counter()
                    files.stage(FileOutput(target, table_copier(backend, DUCKDB_RELEASE_TABLE, target,
                                                                delimiter=release_delimiter(cfg))))
                    release = release.timed(write=release.stages.write + time.perf_counter() - writing)
            try:
                summary = self.place(files, release, started)
            except DataError:
                if model.sink_ is not None:
                    model.sink_.discard()  # a new table whose summary could not be written does not stay
                raise
        finally:
            backend.close()
        return RunOutcome(release, summary, dataset)

    def input_class_sizes(self) -> tuple[NDArray[np.int64], str]:
        """Class sizes of the input, counted by the database (its most specific class table)."""
        from anonset.engine.sql.engine import SqlEngine

        backend = self.connect()
        try:
            dataset = self.load(backend)
            with SqlEngine(dataset, None, backend, self.source_table) as engine:
                stats = engine.class_stats(engine.bottom_levels)
            return stats.sizes, dataset.source
        finally:
            backend.close()

    def key_groups(self, columns: Sequence[str], weight: str | None) -> tuple[pd.DataFrame, str]:
        """The input's distinct combinations of ``columns``, grouped by the database (one ``GROUP BY``)."""
        from anonset.engine.sql.keys import key_groups

        backend = self.connect()
        try:
            return key_groups(backend, self.source_table, list(columns), weight), backend.where(self.source_table)
        finally:
            backend.close()

    def written(self, request: ReleaseRequest) -> bool:
        """A release into PostgreSQL is always written (a table); DuckDB's only to a file."""
        return self._in_postgres or super().written(request)
