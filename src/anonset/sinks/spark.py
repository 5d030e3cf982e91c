"""Release a full-domain node of a table on Spark, on the cluster: written in parallel, re-checked there, placed.

:class:`SparkSink` is the :class:`~anonset.sinks.base.ReleaseSink` of the
Spark engine.  The records never come to the driver:

- :meth:`SparkSink.stage` maps every record on the cluster: each
  quasi-identifier's leaf code (a broadcast join with the value -> code
  table) to its label at the node's level and to its code there (one more
  small broadcast table per attribute); a record whose node codes are those
  of a violating class (a broadcast table of the few violating keys) gets
  ``*`` in every quasi-identifier, or is dropped on request.  Identifiers are
  left out; every other column passes through as text.  Spark writes the
  result, in parallel, to a staging folder beside the output (CSV with a
  header, every value as it is: Spark's writer trims spaces unless told not
  to; or Parquet for an output ending in ``.parquet``).  No expression names
  a column of the table: the columns are renamed by position first
  (:func:`~anonset.engine.spark.source.keyed`), so any name works.
- :meth:`SparkSink.verify` reads the staged files back (as the input is
  read) and groups the *released* label columns on the cluster (never the
  engine's codes): class sizes and, per sensitive attribute, the count of
  each value per class come to the driver and are judged by
  :func:`~anonset.recheck.verify.judge_released_classes`, as a pandas
  release is.  First, the records read back must be the input's, less those
  dropped as suppressed (:func:`require_all_records`): a record split in two
  or lost between reading and writing is never verified.  It also checks
  that exactly the node's records were suppressed.
- :meth:`SparkSink.place` renames the staging folder to the output (through
  Hadoop's file system, so it works on HDFS and object stores as on local
  disk); :meth:`SparkSink.discard` deletes what was staged.

An output that already exists is refused before any work.  The folder's
steps (check, stage, read back, place, discard) are :class:`SparkOutput`,
which any release Spark writes uses (distributed Mondrian's too).
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonset.core.dataset import Dataset, Role
from anonset.engine.spark.source import first_line, keyed, to_pandas
from anonset.errors import ConfigError, DataError
from anonset.privacy.base import Requirements
from anonset.recheck.columns import SUPPRESSED
from anonset.recheck.verify import (
    VerificationReport,
    judge_released_classes,
    require_verified,
    stats_of_value_counts,
)
from anonset.sinks.base import NodeRelease

if TYPE_CHECKING:
    from numpy.typing import NDArray
    from pyspark.sql import DataFrame, SparkSession

    from anonset.engine.base import Engine
    from anonset.engine.spark.engine import SparkEngine

__all__ = ["SparkOutput", "SparkSink", "release_frame", "require_all_records", "spark_sink", "verify_frame"]


def release_frame(engine: SparkEngine, levels: tuple[int, ...], violating_keys: NDArray[np.int32],
                  drop_suppressed: bool = False) -> DataFrame:
    """The released records of node ``levels`` as a Spark DataFrame (a plan: nothing runs until it is written)."""
    from pyspark.sql import functions as F

    from anonset.engine.spark.source import text_column

    dataset = engine.dataset
    frame, key = keyed(engine.frame)  # columns by position: any name works, and none meets the helpers' names
    spark = frame.sparkSession
    coded = frame
    for j, q in enumerate(dataset.quasi):
        # one small table per quasi-identifier: each value as written -> its label and node code at the level
        h = dataset.require_hierarchy(q)
        level = int(levels[j])
        value_codes = dataset.value_codes(q)
        nodes = h.maps[level][np.fromiter(value_codes.values(), dtype=np.int64, count=len(value_codes))]
        table = pd.DataFrame({f"_v{j}": pd.Series(list(value_codes), dtype=object),
                              f"_l{j}": pd.Series(h.labels[level][nodes].astype(str), dtype=object),
                              f"_c{j}": nodes.astype(np.int32)})
        marker = dataset.specs[q].missing[0] if dataset.specs[q].missing else ""
        coded = coded.withColumn(f"_v{j}", text_column(key[q], marker))
        coded = coded.join(F.broadcast(spark.createDataFrame(table)), on=f"_v{j}", how="left")
    node_columns = [f"_c{j}" for j in range(len(dataset.quasi))]
    if len(violating_keys) and node_columns:
        violating = pd.DataFrame(np.asarray(violating_keys, dtype=np.int32), columns=node_columns)
        violating["_sup"] = 1
        coded = coded.join(F.broadcast(spark.createDataFrame(violating)), on=node_columns, how="left")
        suppressed = F.col("_sup").isNotNull()
    else:
        suppressed = F.lit(False)
    if drop_suppressed:
        coded = coded.filter(~suppressed)
    columns = []
    for name in dataset.columns:
        role = dataset.specs[name].role
        if role is Role.IDENTIFIER:
            continue
        if role is Role.QUASI:
            j = dataset.quasi.index(name)
            columns.append(F.when(suppressed, F.lit(SUPPRESSED)).otherwise(F.col(f"_l{j}")).alias(name))
        else:
            columns.append(F.col(key[name]).alias(name))
    return coded.select(*columns)


def verify_frame(released: DataFrame, dataset: Dataset, requirements: Requirements,
                 n_input_rows: int | None = None, *, expected_rows: int | None = None) -> VerificationReport:
    """Re-check a released Spark table: classes grouped on its label columns on the cluster, judged on the driver.

    Only class sizes and per-class counts of each sensitive value reach the
    driver.  The all-``*`` group is the suppressed set when it fits the
    budget (as :func:`anonset.recheck.verify.verify_release` decides).

    Parameters
    ----------
    released : pyspark.sql.DataFrame
        The release as written, read back (:meth:`SparkOutput.staged`).
    dataset : Dataset
        The input's dataset.
    requirements : Requirements
        The models and the suppression budget.
    n_input_rows : int, optional
        Records of the input (default ``dataset.n_rows``, as Spark counted them when it read the input).
    expected_rows : int, optional
        Records the release must hold: the input's records less those
        dropped as suppressed.  The records read back are counted first, and
        any other count is a RuntimeError before anything is judged: a record
        split in two (or two joined) between reading the input and reading
        the release back must never pass as verified.

    Raises
    ------
    RuntimeError
        The release holds another number of records than ``expected_rows``.
    """
    from pyspark.sql import functions as F

    from anonset.engine.spark.source import text_column

    request = requirements.request
    quasi = list(dataset.quasi)
    missing = [c for c in quasi + sorted(set(request.histograms) | set(request.moments)) if c not in released.columns]
    if missing:
        raise DataError(f"the release has no column {missing[0]!r}; columns are {', '.join(released.columns)}")
    frame, key = keyed(released)
    labels = [text_column(key[q], "nan").alias(f"_g{j}") for j, q in enumerate(quasi)]
    groups = [f"_g{j}" for j in range(len(quasi))]
    judged = sorted(set(request.histograms) | set(request.moments))
    values = [text_column(key[a], dataset.specs[a].missing[0] if dataset.specs[a].missing else "").alias(f"_v{i}")
              for i, a in enumerate(judged)]
    # one job: the released classes crossed with every judged sensitive value; sizes are the sums per class
    counted = to_pandas(frame.select(*labels, *values).groupBy(*groups, *[f"_v{i}" for i in range(len(judged))])
                        .agg(F.count(F.lit(1)).alias("_n")))
    n_input = dataset.n_rows if n_input_rows is None else n_input_rows
    if expected_rows is not None:
        require_all_records(int(counted["_n"].sum()), expected_rows, n_input)
    if groups:
        cls, keys = pd.MultiIndex.from_frame(counted[groups]).factorize()
        all_star = np.logical_and.reduce([np.asarray(keys.get_level_values(j) == SUPPRESSED)
                                          for j in range(len(groups))])
    else:
        cls, all_star = np.zeros(len(counted), dtype=np.int64), np.zeros(min(len(counted), 1), dtype=np.bool_)
    n_classes = len(all_star)
    counts = counted["_n"].to_numpy(dtype=np.float64)
    cls = np.asarray(cls, dtype=np.int64)
    class_sizes = np.bincount(cls, weights=counts, minlength=n_classes).astype(np.int64)
    value_counts = {}
    for i, a in enumerate(judged):
        codes_of = {str(v): c for c, v in enumerate(dataset.encoded[a].categories)}
        codes_of.update(dataset.value_codes(a))
        texts = counted[f"_v{i}"].astype(str)
        codes = texts.map(codes_of).fillna(-1).to_numpy(dtype=np.int64)
        if (codes < 0).any():
            unknown = texts.iloc[int(np.flatnonzero(codes < 0)[0])]
            raise DataError(f"released value {unknown!r} of column {a!r} is not a value of the input; the release"
                            " does not belong to this dataset")
        value_counts[a] = (cls, codes, counts)
    stats = stats_of_value_counts(dataset, requirements, class_sizes, value_counts)
    return judge_released_classes(stats, all_star, requirements, n_input)


def require_all_records(released_rows: int, expected_rows: int, input_rows: int) -> None:
    """RuntimeError unless the release read back holds the records it should (nothing is placed then).

    ``input_rows`` is the input's count as Spark read it, ``expected_rows``
    that less the records dropped as suppressed, ``released_rows`` the count
    of the written release as read back.
    """
    if released_rows != expected_rows:
        dropped = input_rows - expected_rows
        raise RuntimeError(
            f"the release holds {released_rows} records where it should hold {expected_rows} (the input's"
            f" {input_rows}{f' less {dropped} dropped as suppressed' if dropped else ''}): records were split,"
            " joined or lost between reading the input and reading the written release back; nothing was placed"
            " (this is a bug in anonset, or Spark read the CSV input otherwise than it reads the release: check"
            " the input's quoting and line breaks)")


class SparkOutput:
    """A release folder Spark writes: refused when it exists, staged beside it, renamed into place, or deleted.

    The file-system half of :class:`SparkSink`, shared by every release Spark
    writes (a full-domain node, distributed Mondrian's fragments).

    Parameters
    ----------
    spark : pyspark.sql.SparkSession
        The session that writes.
    path : str
        The output: a folder Spark writes part files into (a local path, or
        ``hdfs://...``, ``s3a://...``).  ``.parquet`` / ``.pq`` means Parquet,
        anything else CSV with a header.
    delimiter : str
        The CSV field separator.
    input_location : str, optional
        The input's path, refused as the output.
    """

    def __init__(self, spark: SparkSession, path: str, *, delimiter: str = ",", input_location: str | None = None):
        self.spark = spark
        self.path = path
        self.delimiter = delimiter
        self.input_location = input_location
        self.kind = "parquet" if path.lower().rstrip("/").endswith((".parquet", ".pq")) else "csv"
        self._staging: str | None = None
        self._columns: list[str] = []
        self._placed = False

    def check(self) -> None:
        """Refuse an output that is the input or that already exists (nothing is overwritten)."""
        if self.input_location is not None and self.path.rstrip("/") == self.input_location.rstrip("/"):
            raise ConfigError(f"{self.path}: the release would overwrite the input; choose another output path")
        if self._exists(self.path):
            raise DataError(f"{self.path}: already exists; anonset never writes over a release: choose another"
                            " output path or remove it")

    def stage(self, released: DataFrame) -> None:
        """Write ``released`` with Spark into a staging folder beside the output."""
        if self._staging is not None or self._placed:
            raise ValueError("this output has already staged a release")
        parent, _, name = self.path.rstrip("/").rpartition("/")
        staging = f"{parent}/.{name}.anonset-{secrets.token_hex(4)}" if parent else f".{name}.anonset-staging"
        self._staging = staging
        self._columns = list(released.columns)
        try:
            writer = released.write.mode("errorifexists")
            if self.kind == "parquet":
                writer.parquet(staging)
            else:
                # every value as it is (Spark's writer trims spaces by default); quotes doubled; "\n" ends a record
                (writer.option("header", True).option("sep", self.delimiter).option("quote", '"')
                 .option("escape", '"').option("ignoreLeadingWhiteSpace", False)
                 .option("ignoreTrailingWhiteSpace", False).option("lineSep", "\n").csv(staging))
        except Exception as exc:  # Spark's own exception types, as one line
            raise DataError(f"{self.path}: Spark could not write the release ({first_line(exc)})") from None

    def staged(self) -> DataFrame:
        """The staged files, read back as text columns (what the re-check groups).

        Read as the input is read (values as written, quoted line breaks
        inside their value), the columns named as they were written.
        """
        from anonset.engine.spark.source import read_frame

        if self._staging is None:
            raise ValueError("nothing is staged")
        return read_frame(self.spark, path=self._staging, delimiter=self.delimiter, fmt=self.kind,
                          columns=self._columns, line_separator="\n")

    def place(self) -> None:
        """Rename the staging folder to the output path (refused when the output appeared meanwhile)."""
        if self._staging is None:
            raise ValueError("nothing is staged to place")
        if self._exists(self.path):
            raise DataError(f"{self.path}: appeared during the run; choose another output path or remove it")
        fs, source = self._fs(self._staging)
        _, target = self._fs(self.path)
        if not fs.rename(source, target):
            raise DataError(f"{self.path}: the staged release could not be renamed into place")
        self._staging, self._placed = None, True

    def discard(self) -> None:
        """Delete the staging folder; after :meth:`place`, delete the placed release."""
        if self._staging is not None:
            staging, self._staging = self._staging, None
            fs, p = self._fs(staging)
            fs.delete(p, True)
        elif self._placed:
            self._placed = False
            fs, p = self._fs(self.path)
            fs.delete(p, True)

    def _fs(self, path: str) -> tuple[Any, Any]:
        """Hadoop's file system of ``path`` and the path as Hadoop's ``Path`` (local disk, HDFS, object stores)."""
        jvm: Any = self.spark.sparkContext._jvm
        hadoop_path = jvm.org.apache.hadoop.fs.Path(path)
        return hadoop_path.getFileSystem(self.spark.sparkContext._jsc.hadoopConfiguration()), hadoop_path

    def _exists(self, path: str) -> bool:
        fs, p = self._fs(path)
        return bool(fs.exists(p))


class SparkSink:
    """The release of a Spark engine's node, written by Spark to ``path`` (see the module docstring).

    ``path``, ``delimiter`` and ``input_location`` are those of the
    :class:`SparkOutput` the sink writes through.
    """

    def __init__(self, engine: SparkEngine, path: str, *, delimiter: str = ",", input_location: str | None = None):
        self.engine = engine
        self.output = SparkOutput(engine.frame.sparkSession, path, delimiter=delimiter, input_location=input_location)
        self._item: NodeRelease | None = None

    @property
    def location(self) -> str:
        return self.output.path

    @property
    def database(self) -> str:
        return f"Spark {self.engine.frame.sparkSession.sparkContext.master}"

    @property
    def output_table(self) -> str:
        return self.output.path

    def check(self) -> None:
        """Refuse, before any work, an output that is the input or that exists, and a column nobody declared.

        On Spark every column is declared (:data:`~anonset.recheck.undeclared.SPARK_DECLARES_ALL`).
        """
        from anonset.recheck.undeclared import SPARK_DECLARES_ALL, refuse_any_undeclared

        refuse_any_undeclared(self.engine.dataset, SPARK_DECLARES_ALL)
        self.output.check()

    def stage(self, item: NodeRelease) -> None:
        """Write the node's release with Spark into a staging folder beside the output."""
        if item.engine is not self.engine:
            raise ValueError("the node's engine must be this sink's Spark engine")
        self.output.stage(release_frame(self.engine, item.levels, item.violating_keys, item.drop_suppressed))
        self._item = item

    def verify(self) -> VerificationReport:
        """Re-check the staged files on the cluster; RuntimeError when they fail or suppressed other records."""
        item = self._item
        if item is None:
            raise ValueError("nothing is staged to verify")
        dataset = self.engine.dataset
        kept = dataset.n_rows - (item.suppressed_rows if item.drop_suppressed else 0)
        report = verify_frame(self.output.staged(), dataset, item.requirements, dataset.n_rows, expected_rows=kept)
        require_verified(report)
        if report.suppressed_rows != item.suppressed_rows:
            raise RuntimeError(f"the release suppressed {report.suppressed_rows} records but the node's classes say"
                               f" {item.suppressed_rows} (this is a bug in anonset)")
        return report

    def place(self) -> None:
        """Rename the staging folder to the output path (refused when the output appeared meanwhile)."""
        self.output.place()

    def discard(self) -> None:
        """Delete the staging folder; after :meth:`place`, delete the placed release."""
        self.output.discard()

    def undeclared(self, k: int) -> list[str]:
        """Nothing left to check: :meth:`check` refused any column nobody declared before the search."""
        del k
        return []


def spark_sink(engine: Engine, output: Any, replace: bool) -> SparkSink:
    """The sink factory registered for engines named ``spark`` (``replace`` is refused: nothing is overwritten)."""
    from anonset.engine.spark.engine import SparkEngine

    if not isinstance(engine, SparkEngine):
        raise ValueError("the spark sink needs a SparkEngine")
    if replace:
        raise ConfigError(f"{output}: a Spark release never replaces an existing one; choose a new output path")
    return SparkSink(engine, str(output), delimiter=engine.output_delimiter, input_location=engine.source)
