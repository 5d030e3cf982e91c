"""A table on Spark: read as text (CSV, Parquet, a catalog table) and counted there into a dataset and a class table.

Every column is read as text, the way anonset reads a CSV file, so the
values Spark groups are spelled exactly as the in-memory engine sees them; a
Parquet column of numbers is cast to text by Spark (``39``, ``39.5``).
:func:`count_frame` runs the only jobs a full-domain search needs: one
GROUP BY over every quasi-identifier gives the most specific class table,
and its marginals are the value counts the dataset is built from; only
those aggregates reach the driver.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from anonset.core.dataset import AttributeSpec, Dataset, Role, TableProfile, attribute_spec
from anonset.core.stats import ClassStats, StatsRequest
from anonset.errors import DataError

if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import NDArray
    from pyspark.sql import Column, DataFrame, SparkSession

__all__ = ["SparkCounts", "count_frame", "dataset_from_frame", "first_line", "quoted_column", "read_frame",
           "text_column"]


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


@dataclass(frozen=True)
class SparkCounts:
    """What the driver gets of a table on Spark: its dataset (built from value counts) and its bottom class table."""

    dataset: Dataset
    bottom: ClassStats


def count_frame(frame: DataFrame, attributes: Mapping[str, AttributeSpec | Mapping[str, Any]],
                request: StatsRequest, source: str) -> SparkCounts:
    """The dataset and the bottom class table of a Spark table, from (at most) two Spark jobs.

    1. The distinct values of the sensitive attributes with their counts
       (one small job; skipped when there is none).
    2. The table grouped by the text of every quasi-identifier: per group
       the count, a count per value of each attribute in
       ``request.histograms`` and the sum and sum of squares of each one in
       ``request.moments``.  One row per distinct combination of
       quasi-identifier values reaches the driver.

    The quasi-identifiers' value counts (the profile the dataset and its
    hierarchy builders need) are the marginals of that table, summed on the
    driver; then the texts are mapped to the dataset's leaf codes, so the
    bottom class table is the numpy engine's.

    Raises
    ------
    DataError
        A configured column is not in the table, or Spark fails.
    """
    specs = {name: attribute_spec(name, spec) for name, spec in attributes.items()}
    for name in specs:
        if name not in frame.columns:
            raise DataError(f"{source}: configured column {name!r} is not in the table; columns are:"
                            f" {', '.join(frame.columns)}")
    quasi = [n for n in frame.columns if n in specs and specs[n].role is Role.QUASI]
    sensitive = [n for n in frame.columns if n in specs and specs[n].role is Role.SENSITIVE]
    marker = {n: (specs[n].missing[0] if specs[n].missing else "") for n in quasi + sensitive}
    try:
        sensitive_values = _value_counts(frame, sensitive, marker)
        grouped = _grouped(frame, quasi, sensitive_values, request, marker)
    except DataError as exc:
        raise DataError(f"{source}: {exc}") from None
    except Exception as exc:  # Spark raises its own types: one line for the user
        raise DataError(f"{source}: Spark could not count the table ({first_line(exc)})") from None
    values: dict[str, tuple[NDArray[np.object_], NDArray[np.int64]]] = dict(sensitive_values)
    sizes = grouped["_n"].to_numpy(dtype=np.int64)
    for j, name in enumerate(quasi):
        marginal = grouped.groupby(f"_q{j}", sort=False)["_n"].sum()
        texts = np.empty(len(marginal), dtype=object)
        texts[:] = [str(v) for v in marginal.index]
        values[name] = (texts, marginal.to_numpy(dtype=np.int64))
    dataset = Dataset.from_profile(TableProfile(columns=tuple(frame.columns), n_rows=int(sizes.sum()),
                                                values=values), specs, source)
    return SparkCounts(dataset, _bottom(dataset, grouped, quasi, sensitive_values, request))


def dataset_from_frame(frame: DataFrame, attributes: Mapping[str, AttributeSpec | Mapping[str, Any]],
                       source: str) -> Dataset:
    """The dataset of a Spark table from the value counts of its quasi-identifiers and sensitive columns (one job).

    For methods that need no class table on the driver (distributed
    Mondrian); a full-domain search uses :func:`count_frame`.
    """
    specs = {name: attribute_spec(name, spec) for name, spec in attributes.items()}
    for name in specs:
        if name not in frame.columns:
            raise DataError(f"{source}: configured column {name!r} is not in the table; columns are:"
                            f" {', '.join(frame.columns)}")
    columns = [n for n in frame.columns if n in specs and specs[n].role in (Role.QUASI, Role.SENSITIVE)]
    marker = {n: (specs[n].missing[0] if specs[n].missing else "") for n in columns}
    try:
        values = _value_counts(frame, columns, marker)
        n_rows = frame.count() if not columns else int(next(iter(values.values()))[1].sum())
    except Exception as exc:  # Spark raises its own types: one line for the user
        raise DataError(f"{source}: Spark could not count the table ({first_line(exc)})") from None
    return Dataset.from_profile(TableProfile(columns=tuple(frame.columns), n_rows=int(n_rows), values=values),
                                specs, source)


def _value_counts(frame: DataFrame, columns: list[str],
                  marker: Mapping[str, str]) -> dict[str, tuple[NDArray[np.object_], NDArray[np.int64]]]:
    """Distinct values (as text) and counts of ``columns``, in one job that stacks (column, value) pairs."""
    from pyspark.sql import functions as F

    if not columns:
        return {}
    pairs = F.explode(F.array(*[F.struct(F.lit(i).alias("c"), text_column(n, marker[n]).alias("v"))
                                for i, n in enumerate(columns)]))
    counted = cast("pd.DataFrame", frame.select(pairs.alias("p")).groupBy("p.c", "p.v").count().toPandas())
    out = {}
    for i, name in enumerate(columns):
        part = counted[counted["c"] == i]
        texts = np.empty(len(part), dtype=object)
        texts[:] = [str(v) for v in part["v"]]
        out[name] = (texts, part["count"].to_numpy(dtype=np.int64))
    return out


def _grouped(frame: DataFrame, quasi: list[str], sensitive_values: Mapping[str, tuple[NDArray[np.object_], Any]],
             request: StatsRequest, marker: Mapping[str, str]) -> pd.DataFrame:
    """The table grouped by its quasi-identifiers' texts (``_q0 ..``), with ``_n``, ``_h{i}_{v}`` and moments."""
    from pyspark.sql import functions as F

    aggregates: list[Any] = [F.count(F.lit(1)).alias("_n")]
    unknown = sorted((set(request.histograms) | set(request.moments)) - set(sensitive_values))
    if unknown:
        raise DataError(f"column {unknown[0]!r} is judged by a privacy model but is not a sensitive attribute of the"
                        " configuration; give it role: sensitive")
    for i, a in enumerate(sorted(request.histograms)):
        text = text_column(a, marker.get(a, ""))
        aggregates += [F.sum(F.when(text == F.lit(str(v)), 1).otherwise(0)).alias(f"_h{i}_{t}")
                       for t, v in enumerate(sensitive_values[a][0])]
    for i, a in enumerate(sorted(request.moments)):
        x = F.col(quoted_column(a)).cast("double")
        aggregates += [F.sum(x).alias(f"_x{i}"), F.sum(x * x).alias(f"_xx{i}")]
    keys = [text_column(q, marker[q]).alias(f"_q{j}") for j, q in enumerate(quasi)]
    return cast("pd.DataFrame", frame.groupBy(*keys).agg(*aggregates).toPandas())


def _bottom(dataset: Dataset, grouped: pd.DataFrame, quasi: list[str],
            sensitive_values: Mapping[str, tuple[NDArray[np.object_], Any]], request: StatsRequest) -> ClassStats:
    """The grouped table with leaf codes for texts: the bottom class table, quasi-identifiers in the dataset's order."""
    position = {q: j for j, q in enumerate(quasi)}
    keys = np.zeros((len(grouped), len(dataset.quasi)), dtype=np.int32)
    for j, q in enumerate(dataset.quasi):
        codes = grouped[f"_q{position[q]}"].map(dataset.value_codes(q))
        keys[:, j] = codes.to_numpy(dtype=np.int32)
    histograms = {}
    for i, a in enumerate(sorted(request.histograms)):
        code_of = {str(v): c for c, v in enumerate(dataset.encoded[a].categories)}
        code_of.update(dataset.value_codes(a))
        hist = np.zeros((len(grouped), dataset.encoded[a].n_categories), dtype=np.int64)
        for t, v in enumerate(sensitive_values[a][0]):
            hist[:, code_of[str(v)]] += grouped[f"_h{i}_{t}"].to_numpy(dtype=np.int64)
        histograms[a] = hist
    sums = {a: grouped[f"_x{i}"].to_numpy(dtype=np.float64) for i, a in enumerate(sorted(request.moments))}
    sumsq = {a: grouped[f"_xx{i}"].to_numpy(dtype=np.float64) for i, a in enumerate(sorted(request.moments))}
    return ClassStats(sizes=grouped["_n"].to_numpy(dtype=np.int64), keys=keys, histograms=histograms, sums=sums,
                      sumsq=sumsq, levels=tuple(0 for _ in dataset.quasi))


def quoted_column(name: str) -> str:
    """A column name for ``F.col``: backticks around it, so dots and dashes stay part of the name."""
    return "`" + name.replace("`", "``") + "`"


def first_line(exc: BaseException) -> str:
    """The line of an exception's message that says what went wrong (Spark's run to pages), or its type's name.

    An error raised in the JVM reaches Python as "An error occurred while
    calling X." followed by a line ": <Java exception>: <message>"; that line,
    which names the cause, is the one returned.  When the JVM itself has
    stopped (the connection to it is refused: in local mode, most often an
    out-of-memory error), the line says so and names the setting to raise.
    """
    if _jvm_gone(exc):
        return ("Spark's JVM stopped during the job, most often for want of memory; give the driver more, e.g."
                " spark: {options: {spark.driver.memory: 8g}}")
    lines = [line.strip() for line in str(exc).strip().splitlines()]
    if not lines or not lines[0]:
        return type(exc).__name__
    if lines[0].startswith("An error occurred while calling"):
        cause = next((line[1:].strip() for line in lines[1:] if line.startswith(":") and line[1:].strip()), None)
        if cause is not None:
            return cause
    return lines[0]


def _jvm_gone(exc: BaseException) -> bool:
    """Did ``exc`` (or an exception it came from) find Spark's JVM gone?"""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError) or type(seen).__name__ == "Py4JNetworkError":
            return True
        seen = seen.__cause__ or seen.__context__
    return "Answer from Java side is empty" in str(exc)
