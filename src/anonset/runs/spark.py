"""The run of ``engine: spark``: the records are read, counted and released by Spark.

A full-domain method searches on the driver, from the most specific class
table one Spark job counts (:class:`~anonset.engine.spark.engine.SparkEngine`),
and its release is written and re-checked by Spark through the engine's sink
(:class:`~anonset.sinks.spark.SparkSink`).  A method that can run
distributed (Mondrian) is run on fragments of the table, one per Spark task
(:func:`~anonset.distributed.mondrian.release_mondrian_on_spark`).  The
release is a folder Spark writes, refused before Spark starts when it exists,
and deleted again when the summary cannot be written.

Stages: ``load`` is the session's start and reading (and, for Mondrian, the
value counts); ``search`` includes the Spark jobs that count the class table.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from anonset.config import CatalogInput, FileInput, FileOutput, UrlOutput
from anonset.errors import ConfigError, DataError
from anonset.runs.base import ReleaseRequest, Run, RunOutcome, attribute_specs

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import pandas as pd
    from numpy.typing import NDArray
    from pyspark.sql import DataFrame as SparkFrame

    from anonset.anonymizer import Anonymizer
    from anonset.config import RunConfig
    from anonset.engine.sql.base import TableName
    from anonset.sinks.base import FileSink

__all__ = ["SparkRun"]


class SparkRun(Run):
    """``engine: spark`` (see the module docstring)."""

    def __init__(self, config: RunConfig):
        super().__init__(config)
        self._read: tuple[SparkFrame, str | None] | None = None

    def refuse(self, request: ReleaseRequest) -> None:
        """A Spark release is a folder written by Spark: no report is made of it in this process."""
        cfg = self.config
        if request.reports:
            raise ConfigError(f"{cfg.path}: --report needs the release in memory (engine: numpy); with engine"
                              f" {cfg.engine}, run `anonset report {cfg.path} RELEASE` on the written release")

    def release_file(self, override: Path | None) -> Path | None:
        """None: Spark writes the release itself (a folder)."""
        return None

    def written(self, request: ReleaseRequest) -> bool:
        """A Spark run always writes its release (the config requires output.path)."""
        return True

    def output_table(self, request: ReleaseRequest) -> TableName | None:
        """The folder (path or URL) Spark writes the release to: ``--output``, else ``output.path``."""
        if request.output is not None:
            return str(request.output)
        output = self.config.output
        if isinstance(output, UrlOutput):
            return output.uri
        return None if not isinstance(output, FileOutput) or output.path is None else str(output.path)

    def _frame(self) -> tuple[SparkFrame, str | None]:
        """Start the session and read the input: the frame, and the CSV delimiter it was read with (once per run)."""
        if self._read is None:
            self._read = self._read_frame()
        return self._read

    def _read_frame(self) -> tuple[SparkFrame, str | None]:
        """The input as a Spark frame, and the delimiter it was read with."""
        from anonset.engine.spark.session import spark_session
        from anonset.engine.spark.source import read_frame
        from anonset.io.delimiters import sniff_delimiter

        cfg, inp = self.config, self.config.input
        assert cfg.spark is not None
        spark = spark_session(cfg.spark.master, timeout=cfg.spark.timeout, options=cfg.spark.options)
        if isinstance(inp, CatalogInput):
            return read_frame(spark, table=inp.table), None
        delimiter = getattr(inp, "delimiter", None)
        fmt = getattr(inp, "format", None)
        if delimiter is None and isinstance(inp, FileInput) and inp.path.is_file() and fmt != "parquet":
            delimiter = sniff_delimiter(inp.path)
        return read_frame(spark, path=inp.location, delimiter=delimiter, fmt=fmt), delimiter

    def release(self, model: Anonymizer, files: FileSink, request: ReleaseRequest, started: float) -> RunOutcome:
        """Read and count the input on Spark, search on the driver (or on fragments), write and re-check on Spark."""
        from anonset.distributed.mondrian import check_distributable
        from anonset.engine.spark.engine import SparkEngine
        from anonset.engine.spark.source import count_frame
        from anonset.methods import registry

        cfg = self.config
        output = self.output_table(request)
        assert isinstance(output, str)
        if registry.get(model.method).in_memory:  # only Mondrian runs distributed: refused before Spark starts
            check_distributable(model.requirements, model.method)
        local = None if "://" in output else Path(output)
        if local is not None and (local.exists() or not local.parent.is_dir()):  # refused before Spark starts
            raise DataError(f"{output}: already exists; anonset never writes over a release: choose another output"
                            " path or remove it" if local.exists() else
                            f"{output}: folder {local.parent} does not exist; create it first or correct output.path")
        loading = time.perf_counter()
        frame, delimiter = self._frame()
        given = cfg.output.delimiter if isinstance(cfg.output, (FileOutput, UrlOutput)) else None
        release_delimiter = given or delimiter or ","
        if registry.get(model.method).distributed is not None:
            return self._mondrian(model, files, frame, output, release_delimiter, loading, started)
        started_search = time.perf_counter()  # the counting job is the search's class table; the profile with it
        counts = count_frame(frame, attribute_specs(cfg), cfg.requirements.request, cfg.input.location,
                             at_floor=True)
        dataset = counts.dataset
        counted = time.perf_counter() - started_search - dataset.encode_seconds
        load_seconds = started_search - loading
        cfg.requirements.validate(dataset)
        with SparkEngine(counts, cfg.requirements.request, frame, source=cfg.input.location,
                         output_delimiter=release_delimiter) as engine:
            release = model.fit(dataset, engine=engine).release_
        release = release.timed(load=load_seconds, encode=dataset.encode_seconds,
                                search=release.stages.search + counted)
        try:
            summary = self.place(files, release, started)
        except DataError:
            if model.sink_ is not None:
                model.sink_.discard()  # a release whose summary could not be written does not stay
            raise
        return RunOutcome(release, summary, dataset)

    def _mondrian(self, model: Anonymizer, files: FileSink, frame: SparkFrame, output: str, delimiter: str,
                  loading: float, started: float) -> RunOutcome:
        """Distributed Mondrian: the dataset from value counts, first cuts on the driver, fragments on the workers."""
        from anonset.distributed.mondrian import release_mondrian_on_spark
        from anonset.engine.spark.source import dataset_from_frame

        cfg = self.config
        dataset = dataset_from_frame(frame, attribute_specs(cfg), cfg.input.location)
        load_seconds = time.perf_counter() - loading - dataset.encode_seconds
        cfg.requirements.validate(dataset)
        release, placed = release_mondrian_on_spark(frame, dataset, model, output, delimiter=delimiter,
                                                    input_location=cfg.input.location)
        release = release.timed(load=load_seconds, encode=dataset.encode_seconds)
        try:
            summary = self.place(files, release, started)
        except DataError:
            placed.discard()  # a release whose summary could not be written does not stay
            raise
        return RunOutcome(release, summary, dataset)

    def key_groups(self, columns: Sequence[str], weight: str | None) -> tuple[pd.DataFrame, str]:
        """The input's distinct combinations of ``columns``, grouped by Spark (one job)."""
        from anonset.engine.spark.source import key_groups

        frame, _ = self._frame()
        source = self.config.input.location
        return key_groups(frame, list(columns), weight, source), source

    def input_class_sizes(self) -> tuple[NDArray[np.int64], str]:
        """Class sizes of the input, counted by Spark (its most specific class table)."""
        from anonset.core.stats import StatsRequest
        from anonset.engine.spark.source import count_frame

        frame, _ = self._frame()
        counts = count_frame(frame, attribute_specs(self.config), StatsRequest(), self.config.input.location)
        return counts.bottom.sizes, self.config.input.location
