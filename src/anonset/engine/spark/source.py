"""A table on Spark: read as text (CSV, Parquet, a catalog table) and profiled there into a Dataset.

Every column is read as text, the way anonset reads a CSV file, so the
values Spark groups are spelled exactly as the in-memory engine sees them; a
Parquet column of numbers is cast to text by Spark (``39``, ``39.5``).  The
profile (row count, and the distinct values of every quasi-identifier and
sensitive column with their counts) is one Spark job; only those counts
reach the driver.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from anonset.core.dataset import AttributeSpec, Dataset, Role, TableProfile, attribute_spec
from anonset.errors import DataError

if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import NDArray
    from pyspark.sql import Column, DataFrame, SparkSession

__all__ = ["dataset_from_frame", "first_line", "profile_frame", "quoted_column", "read_frame", "text_column"]


def read_frame(spark: SparkSession, *, path: str | Path | None = None, table: str | None = None,
               delimiter: str | None = None, fmt: str | None = None) -> DataFrame:
    """The input as a Spark DataFrame of text columns: a CSV or Parquet file (or folder), or a catalog table.

    Raises
    ------
    DataError
        The file or table cannot be read.
    """
    from pyspark.sql import functions as F

    try:
        if table is not None:
            frame = spark.table(table)
        else:
            assert path is not None
            kind = fmt or ("parquet" if str(path).lower().endswith((".parquet", ".pq")) else "csv")
            if kind == "parquet":
                frame = spark.read.parquet(str(path))
            else:
                frame = spark.read.csv(str(path), header=True, sep=delimiter or ",", inferSchema=False,
                                       quote='"', escape='"', multiLine=False)
    except Exception as exc:  # Spark raises its own types: one line for the user
        raise DataError(f"{path if table is None else table}: Spark could not read it ({first_line(exc)}); check"
                        " the path (or table name) and the format") from None
    return frame.select(*[F.col(quoted_column(c)).cast("string").alias(c) for c in frame.columns])


def text_column(name: str, marker: str) -> Column:
    """The column's value as text, ``NULL`` written as ``marker`` (how the in-memory dataset spells a missing value)."""
    from pyspark.sql import functions as F

    return F.coalesce(F.col(quoted_column(name)), F.lit(marker))


def profile_frame(frame: DataFrame, columns: Sequence[str], missing: Mapping[str, str]) -> TableProfile:
    """Row count and the distinct values (with counts) of ``columns``, in one Spark job.

    The rows are stacked as (column, value) pairs and grouped once, so the
    table is scanned once whatever the number of columns.
    """
    from pyspark.sql import functions as F

    names = list(dict.fromkeys(columns))
    n_rows = frame.count()
    values: dict[str, tuple[NDArray[np.object_], NDArray[np.int64]]] = {
        n: (np.empty(0, dtype=object), np.zeros(0, dtype=np.int64)) for n in names}
    if names and n_rows:
        pairs = F.explode(F.array(*[F.struct(F.lit(i).alias("c"), text_column(n, missing.get(n, "")).alias("v"))
                                    for i, n in enumerate(names)]))
        counted = cast("pd.DataFrame", frame.select(pairs.alias("p")).groupBy("p.c", "p.v").count().toPandas())
        for i, name in enumerate(names):
            part = counted[counted["c"] == i]
            texts = np.empty(len(part), dtype=object)
            texts[:] = [str(v) for v in part["v"]]
            values[name] = (texts, part["count"].to_numpy(dtype=np.int64))
    return TableProfile(columns=tuple(frame.columns), n_rows=int(n_rows), values=values)


def dataset_from_frame(frame: DataFrame, attributes: Mapping[str, AttributeSpec | Mapping[str, Any]],
                       source: str) -> Dataset:
    """The :class:`~anonset.core.dataset.Dataset` of a Spark table, built from its profile (no record is collected).

    Raises
    ------
    DataError
        A configured column is not in the table.
    """
    specs = {name: attribute_spec(name, spec) for name, spec in attributes.items()}
    for name in specs:
        if name not in frame.columns:
            raise DataError(f"{source}: configured column {name!r} is not in the table; columns are:"
                            f" {', '.join(frame.columns)}")
    columns = [n for n, s in specs.items() if s.role in (Role.QUASI, Role.SENSITIVE)]
    missing = {n: (specs[n].missing[0] if specs[n].missing else "") for n in columns}
    return Dataset.from_profile(profile_frame(frame, columns, missing), specs, source)


def quoted_column(name: str) -> str:
    """A column name for ``F.col``: backticks around it, so dots and dashes stay part of the name."""
    return "`" + name.replace("`", "``") + "`"


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (Spark's run to pages), or its type's name."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
