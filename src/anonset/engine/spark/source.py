"""A table on Spark: read as text (CSV, Parquet, a catalog table) and counted there into a dataset and a class table.

Every column is read as text, the way anonset reads a CSV file, so the
values Spark groups are spelled exactly as the in-memory engine sees them; a
Parquet column of numbers is cast to text by Spark (``39``, ``39.5``).

A CSV file is read as :func:`anonset.io.tables.read_table` reads it, value
for value: the header line names the columns (as written: ``sex `` keeps its
space, ``a.b`` its dot), leading and trailing spaces of a value are kept, an
empty field is the empty string (Spark's null for it is turned back into
``""``), a quoted value may hold the delimiter, doubled quotes and line
breaks (a file holding a quote character is read with Spark's ``multiLine``,
so a record is never split at a line break inside quotes), a record with more
or fewer fields than the header and a quote inside a quoted value that is not
doubled are refused.

Spark resolves a column named in an expression by parsing the name (a dot
reaches into a struct, backticks quote, case is ignored by default), so no
expression here names a column of the table: :func:`keyed` renames the
columns by position first (``_anonset_c0``, ``_anonset_c1``, ...), and names
are given back only as aliases of what is written.

:func:`count_frame` runs the only jobs a full-domain search needs: one
GROUP BY over every quasi-identifier gives the most specific class table,
and its marginals are the value counts the dataset is built from; only
those aggregates reach the driver.  Where a quasi-identifier has a minimum
generalization (``min_level``), its values are counted first (with the
sensitive attributes' values, one job, so its hierarchy still sees every
value), then the records are grouped by its code at the floor (each value
mapped by a broadcast join with a small table of codes): the class table
the driver receives has one row per combination of floor values, not of
original values.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping, Sequence
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

__all__ = ["KEY_PREFIX", "SparkCounts", "column_key", "count_frame", "csv_problem", "dataset_from_frame", "first_line",
           "keyed", "read_frame", "reading_error", "text_column", "to_pandas"]

#: The prefix of the names :func:`keyed` gives a table's columns by position.
KEY_PREFIX = "_anonset_c"
#: Bytes read at a time when a CSV file is searched for a quote character.
_SCAN_BYTES = 1 << 24


def read_frame(spark: SparkSession, *, path: str | Path | None = None, table: str | None = None,
               delimiter: str | None = None, fmt: str | None = None, columns: Sequence[str] | None = None,
               line_separator: str | None = None) -> DataFrame:
    """The input as a Spark DataFrame of text columns: a CSV or Parquet file (or folder), or a catalog table.

    A CSV file is read as the numpy engine reads it (see the module
    docstring): no value trimmed, an empty field ``""``, quoted line breaks
    kept inside their value.  A file on this machine is read in parallel
    splits when it holds no quote character (no value can then hold a line
    break); otherwise, and for a folder or a URL, one task reads each file
    (Spark's ``multiLine``), which cannot split a file.

    Parameters
    ----------
    spark : pyspark.sql.SparkSession
        The session.
    path, table : str, optional
        The file or folder (or URL), or the name of a table of Spark's catalog.
    delimiter : str, optional
        The CSV field separator (``,`` when not given).
    fmt : {"csv", "parquet"}, optional
        The format; Parquet for a path ending in ``.parquet`` / ``.pq``, else CSV.
    columns : sequence of str, optional
        The column names, by position (a release anonset wrote, read back);
        otherwise the header line of a file on this machine, read as the
        numpy engine reads it, or Spark's reading of the header.
    line_separator : str, optional
        The line break between CSV records; otherwise that of the header line
        of a file on this machine, or Spark's guess for each file.

    Raises
    ------
    DataError
        The file or table cannot be read, its header names a column twice,
        or a record or quoted value of the file is malformed.
    """
    from pyspark.sql import functions as F

    where = str(path if table is None else table)
    kind = "table" if table is not None else (fmt or ("parquet" if str(path).lower().rstrip("/").endswith(
        (".parquet", ".pq")) else "csv"))
    names = list(columns) if columns is not None else None
    try:
        if table is not None:
            frame = spark.table(table)
        elif kind == "parquet":
            frame = spark.read.parquet(str(path))
        else:
            assert path is not None
            sep = delimiter or ","
            local = _local_file(path)
            options: dict[str, Any] = {
                "header": True, "sep": sep, "inferSchema": False, "quote": '"', "escape": '"',
                "ignoreLeadingWhiteSpace": False, "ignoreTrailingWhiteSpace": False, "mode": "FAILFAST",
                "unescapedQuoteHandling": "RAISE_ERROR", "multiLine": True, "encoding": "UTF-8",
                # every field of every record parsed, whichever columns a job reads: a ragged record is an error
                "columnPruning": False}
            if local is not None:
                header, ending = _csv_header(local, sep)
                names = header if names is None else names
                # no quote character: no value holds a line break, and splits of the file are read in parallel
                options["multiLine"] = _holds(local, b'"')
                line_separator = line_separator or (ending if options["multiLine"] else None)
            if line_separator:
                options["lineSep"] = line_separator
            if names is not None:
                options["maxColumns"] = max(20480, 2 * len(names))
            frame = spark.read.options(**options).csv(str(path))
    except DataError:
        raise
    except Exception as exc:  # Spark raises its own types: one line for the user
        problem = csv_problem(exc)
        raise DataError(f"{where}: {problem}" if problem is not None else f"{where}: Spark could not read it"
                        f" ({first_line(exc)}); check the path (or table name) and the format") from None
    if names is not None and len(names) != len(frame.columns):
        raise DataError(f"{where}: Spark reads {len(frame.columns)} columns where the header line names"
                        f" {len(names)}; check the delimiter and that no column name is quoted across lines")
    positional, _ = keyed(frame)
    text = [F.col(column_key(i)).cast("string") for i in range(len(frame.columns))]
    if kind == "csv":  # Spark reads an empty field as null; the numpy engine reads "" (and CSV has no null)
        text = [F.coalesce(t, F.lit("")) for t in text]
    return positional.select(*[t.alias(n) for t, n in zip(text, names or frame.columns, strict=True)])


def column_key(i: int) -> str:
    """The name :func:`keyed` gives the table's column at position ``i``."""
    return f"{KEY_PREFIX}{i}"


def keyed(frame: DataFrame) -> tuple[DataFrame, dict[str, str]]:
    """``frame`` with its columns renamed by position (:func:`column_key`), and each column's name -> its key.

    Renaming by position parses no name, so any name (spaces, dots,
    backticks, names differing only in case) stays a plain column; every
    expression then names the keys.
    """
    keys = [column_key(i) for i in range(len(frame.columns))]
    return frame.toDF(*keys), dict(zip(frame.columns, keys, strict=True))


def text_column(key: str, marker: str) -> Column:
    """The text of column ``key`` (a name :func:`keyed` gave), null written as ``marker``.

    ``marker`` is how the in-memory dataset spells a missing value; a CSV file
    read by :func:`read_frame` has no null.
    """
    from pyspark.sql import functions as F

    return F.coalesce(F.col(key), F.lit(marker))


def csv_problem(exc: BaseException) -> str | None:
    """What a Spark failure says is wrong with the CSV text it read (a ragged record, a stray quote), or None."""
    text = str(exc)
    if "Unescaped quote character" in text:
        line = re.search(r"Internal state when error was thrown: line=(\d+)", text)
        near = f" (near line {int(line.group(1)) + 1})" if line else ""
        return (f"a quoted value holds a quote that is not doubled{near}; inside quotes write a quote as two"
                ' quotes ("")')
    record = re.search(r"Malformed CSV record: (.*?)(?: SQLSTATE|$)", text, flags=re.DOTALL)
    if record is not None:
        return (f"ragged rows (a record has more or fewer fields than the header: {record.group(1).strip()[:200]!r});"
                " every row needs as many fields as the header")
    return None


def reading_error(exc: BaseException, source: str, doing: str) -> DataError:
    """The one-line error of a Spark failure while ``doing`` something with ``source``: the CSV's fault, or Spark's."""
    problem = csv_problem(exc)
    if problem is not None:
        return DataError(f"{source}: {problem}")
    return DataError(f"{source}: Spark could not {doing} ({first_line(exc)})")


def to_pandas(frame: DataFrame) -> pd.DataFrame:
    """``frame.toPandas()``, without pyspark's warning that Arrow could not finish when the job fails.

    The failure itself is raised (and told in one line by the caller); the
    warning would repeat it, with the JVM's stack trace, on stderr.
    """
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="toPandas attempted Arrow optimization", category=UserWarning)
        return cast("pd.DataFrame", frame.toPandas())


def _local_file(path: str | Path) -> Path | None:
    """``path`` as a file of this machine, or None (a folder, a URL other than ``file:``, nothing there)."""
    text = str(path)
    if text.startswith("file:"):
        text = text.removeprefix("file:").removeprefix("//")
    elif "://" in text:
        return None
    p = Path(text)
    return p if p.is_file() else None


def _csv_header(path: Path, sep: str) -> tuple[list[str], str]:
    """The column names of a CSV file's header line, as the numpy engine reads them, and the line's ending.

    Raises
    ------
    DataError
        The file is empty, or its header names a column twice.
    """
    if path.stat().st_size == 0:
        raise DataError(f"{path}: the file is empty; it needs a header row and at least one record")
    with open(path, "rb") as fh:
        raw = fh.readline()
    line = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
    names = [h.strip("\r\n") for h in next(csv.reader([line], delimiter=sep), [])]
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise DataError(f"{path}: duplicate column name {name!r}; rename the columns so each is unique")
        seen.add(name)
    return names, ("\r\n" if raw.endswith(b"\r\n") else "\n")


def _holds(path: Path, needle: bytes) -> bool:
    """Whether the file holds the byte ``needle`` (read a block at a time; stops at the first)."""
    with open(path, "rb") as fh:
        while block := fh.read(_SCAN_BYTES):
            if needle in block:
                return True
    return False


@dataclass(frozen=True)
class SparkCounts:
    """What the driver gets of a table on Spark: its dataset (built from value counts) and its bottom class table."""

    dataset: Dataset
    bottom: ClassStats


def count_frame(frame: DataFrame, attributes: Mapping[str, AttributeSpec | Mapping[str, Any]],
                request: StatsRequest, source: str, *, at_floor: bool = False) -> SparkCounts:
    """The dataset and the bottom class table of a Spark table, from (at most) two Spark jobs.

    1. The distinct values of the sensitive attributes with their counts
       (one small job; skipped when there is none and no floor applies).
    2. The table grouped by the text of every quasi-identifier: per group
       the count, a count per value of each attribute in
       ``request.histograms`` and the sum and sum of squares of each one in
       ``request.moments``.  One row per distinct combination of
       quasi-identifier values reaches the driver.

    The quasi-identifiers' value counts (the profile the dataset and its
    hierarchy builders need) are the marginals of that table, summed on the
    driver; then the texts are mapped to the dataset's leaf codes, so the
    bottom class table is the numpy engine's.

    With ``at_floor``, a quasi-identifier with a ``min_level`` is counted
    with the sensitive attributes in the first job (its hierarchy needs
    every value), and the second groups the records by its code at that
    level, each value mapped by a broadcast join with a small table of
    (value, code) (:func:`_floor_codes`): the bottom class table is then at
    the floor's levels, one row per combination of floor values.

    Raises
    ------
    DataError
        A configured column is not in the table, or Spark fails.
    """
    from pyspark.sql import functions as F

    specs = {name: attribute_spec(name, spec) for name, spec in attributes.items()}
    for name in specs:
        if name not in frame.columns:
            raise DataError(f"{source}: configured column {name!r} is not in the table; columns are:"
                            f" {', '.join(frame.columns)}")
    quasi = [n for n in frame.columns if n in specs and specs[n].role is Role.QUASI]
    sensitive = [n for n in frame.columns if n in specs and specs[n].role is Role.SENSITIVE]
    floored = [n for n in quasi if at_floor and specs[n].min_level]
    marker = {n: (specs[n].missing[0] if specs[n].missing else "") for n in quasi + sensitive}
    data, key = keyed(frame)
    try:
        counted = _value_counts(data, key, floored + sensitive, marker)
        part, floor_codes = _floor_codes(frame, specs, counted, floored, source)
        for j, q in enumerate(quasi):
            if q in floor_codes:
                data = data.join(F.broadcast(floor_codes[q].toDF(f"_v{j}", f"_f{j}")),
                                 text_column(key[q], marker[q]) == F.col(f"_v{j}"), "left")
        columns = {q: f"_f{j}" for j, q in enumerate(quasi) if q in floor_codes}
        sensitive_values = {a: counted[a] for a in sensitive}
        grouped = _grouped(data, key, quasi, sensitive_values, request, marker, columns)
    except DataError as exc:
        raise DataError(f"{source}: {exc}") from None
    except Exception as exc:  # Spark raises its own types: one line for the user
        raise reading_error(exc, source, "count the table") from None
    if not int(grouped["_n"].sum()):
        raise DataError(f"{source}: the table has no records; give at least one record")
    values: dict[str, tuple[NDArray[np.object_], NDArray[np.int64]]] = dict(counted)
    sizes = grouped["_n"].to_numpy(dtype=np.int64)
    for j, name in enumerate(quasi):
        if name in columns:
            continue
        marginal = grouped.groupby(f"_q{j}", sort=False)["_n"].sum()
        texts = np.empty(len(marginal), dtype=object)
        texts[:] = [str(v) for v in marginal.index]
        values[name] = (texts, marginal.to_numpy(dtype=np.int64))
    # a floored attribute keeps the hierarchy its codes on Spark came from (the one built of the same counts)
    given = {**specs, **({} if part is None else {q: part.resolved_specs()[q] for q in floored})}
    dataset = Dataset.from_profile(TableProfile(columns=tuple(frame.columns), n_rows=int(sizes.sum()),
                                                values=values), given, source)
    if floored and (any(grouped[f"_q{quasi.index(q)}"].isna().any() for q in floored)
                    or any(int(counted[q][1].sum()) != dataset.n_rows for q in floored)):
        raise DataError(f"{source}: the table changed while it was counted (its records no longer match its value"
                        " counts); count it again")
    return SparkCounts(dataset, _bottom(dataset, grouped, quasi, sensitive_values, request, columns))


def _floor_codes(frame: DataFrame, specs: Mapping[str, AttributeSpec],
                 counted: Mapping[str, tuple[NDArray[np.object_], NDArray[np.int64]]], floored: list[str],
                 source: str) -> tuple[Dataset | None, dict[str, DataFrame]]:
    """Per quasi-identifier with a ``min_level``, a small Spark table of (value, code at that level), and the
    dataset of those attributes alone whose hierarchies gave the codes.

    The whole dataset is then built with those hierarchies
    (:meth:`Dataset.resolved_specs`), so its codes are the ones the records
    were grouped by.
    """
    if not floored:
        return None, {}
    n_rows = int(counted[floored[0]][1].sum())
    part = Dataset.from_profile(TableProfile(columns=tuple(frame.columns), n_rows=n_rows,
                                             values={q: counted[q] for q in floored}),
                                {q: specs[q] for q in floored}, source)
    spark = frame.sparkSession
    out = {}
    for q in floored:
        codes = part.value_codes(q)
        leaves = np.fromiter(codes.values(), np.int32, count=len(codes))
        coded = part.require_hierarchy(q).maps[specs[q].min_level][leaves]
        out[q] = spark.createDataFrame([(v, int(c)) for v, c in zip(codes, coded, strict=True)], "v string, c int")
    return part, out


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
    data, key = keyed(frame)
    try:
        values = _value_counts(data, key, columns, marker)
        n_rows = data.count() if not columns else int(next(iter(values.values()))[1].sum())
    except Exception as exc:  # Spark raises its own types: one line for the user
        raise reading_error(exc, source, "count the table") from None
    if not n_rows:
        raise DataError(f"{source}: the table has no records; give at least one record")
    return Dataset.from_profile(TableProfile(columns=tuple(frame.columns), n_rows=int(n_rows), values=values),
                                specs, source)


def key_groups(frame: DataFrame, quasi: list[str], weight: str | None, source: str) -> pd.DataFrame:
    """The table grouped by ``quasi`` (text; null stays missing), with ``_n`` and, given ``weight``, its sum,
    smallest value and count of numbers (``_w``, ``_w_min``, ``_w_count``): one Spark job.

    Raises
    ------
    DataError
        A column is not in the table, or Spark fails.
    """
    from pyspark.sql import functions as F

    for name in [*quasi, *([weight] if weight else [])]:
        if name not in frame.columns:
            raise DataError(f"{source}: configured column {name!r} is not in the table; columns are:"
                            f" {', '.join(frame.columns)}")
    data, key = keyed(frame)
    aggregates: list[Any] = [F.count(F.lit(1)).alias("_n")]
    if weight is not None:
        number = F.col(key[weight]).cast("double")
        aggregates += [F.sum(number).alias("_w"), F.min(number).alias("_w_min"), F.count(number).alias("_w_count")]
    groups = [F.col(key[q]).cast("string").alias(f"_q{j}") for j, q in enumerate(quasi)]
    try:
        return to_pandas(data.groupBy(*groups).agg(*aggregates))
    except Exception as exc:  # Spark raises its own types: one line for the user
        raise reading_error(exc, source, "group the records by their quasi-identifiers") from None


def _value_counts(frame: DataFrame, key: Mapping[str, str], columns: list[str],
                  marker: Mapping[str, str]) -> dict[str, tuple[NDArray[np.object_], NDArray[np.int64]]]:
    """Distinct values (as text) and counts of ``columns``, in one job that stacks (column, value) pairs.

    ``frame`` is :func:`keyed`, ``key`` its column keys by name.
    """
    from pyspark.sql import functions as F

    if not columns:
        return {}
    pairs = F.explode(F.array(*[F.struct(F.lit(i).alias("c"), text_column(key[n], marker[n]).alias("v"))
                                for i, n in enumerate(columns)]))
    counted = to_pandas(frame.select(pairs.alias("p")).groupBy("p.c", "p.v").count())
    out = {}
    for i, name in enumerate(columns):
        part = counted[counted["c"] == i]
        texts = np.empty(len(part), dtype=object)
        texts[:] = [str(v) for v in part["v"]]
        out[name] = (texts, part["count"].to_numpy(dtype=np.int64))
    return out


def _grouped(frame: DataFrame, key: Mapping[str, str], quasi: list[str],
             sensitive_values: Mapping[str, tuple[NDArray[np.object_], Any]], request: StatsRequest,
             marker: Mapping[str, str], floored: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The table grouped by its quasi-identifiers' texts (``_q0 ..``), with ``_n``, ``_h{i}_{v}`` and moments.

    ``frame`` is :func:`keyed`, ``key`` its column keys by name; a
    quasi-identifier in ``floored`` is grouped by the code column named
    there (its code at its minimum generalization) instead of its text.
    """
    from pyspark.sql import functions as F

    aggregates: list[Any] = [F.count(F.lit(1)).alias("_n")]
    unknown = sorted((set(request.histograms) | set(request.moments)) - set(sensitive_values))
    if unknown:
        raise DataError(f"column {unknown[0]!r} is judged by a privacy model but is not a sensitive attribute of the"
                        " configuration; give it role: sensitive")
    for i, a in enumerate(sorted(request.histograms)):
        text = text_column(key[a], marker.get(a, ""))
        aggregates += [F.sum(F.when(text == F.lit(str(v)), 1).otherwise(0)).alias(f"_h{i}_{t}")
                       for t, v in enumerate(sensitive_values[a][0])]
    for i, a in enumerate(sorted(request.moments)):
        x = F.col(key[a]).cast("double")
        aggregates += [F.sum(x).alias(f"_x{i}"), F.sum(x * x).alias(f"_xx{i}")]
    floored = floored or {}
    groups = [(F.col(floored[q]) if q in floored else text_column(key[q], marker[q])).alias(f"_q{j}")
              for j, q in enumerate(quasi)]
    return to_pandas(frame.groupBy(*groups).agg(*aggregates))


def _bottom(dataset: Dataset, grouped: pd.DataFrame, quasi: list[str],
            sensitive_values: Mapping[str, tuple[NDArray[np.object_], Any]], request: StatsRequest,
            floored: Mapping[str, str] | None = None) -> ClassStats:
    """The grouped table with codes for texts: the bottom class table, quasi-identifiers in the dataset's order.

    A quasi-identifier in ``floored`` was grouped by its code at its
    ``min_level`` already; the others' texts become leaf codes.
    """
    floored = floored or {}
    position = {q: j for j, q in enumerate(quasi)}
    keys = np.zeros((len(grouped), len(dataset.quasi)), dtype=np.int32)
    for j, q in enumerate(dataset.quasi):
        column = grouped[f"_q{position[q]}"]
        codes = column if q in floored else column.map(dataset.value_codes(q))
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
                      sumsq=sumsq,
                      levels=tuple(dataset.specs[q].min_level if q in floored else 0 for q in dataset.quasi))


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
