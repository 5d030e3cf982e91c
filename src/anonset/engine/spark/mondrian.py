"""The Spark operations of distributed Mondrian: the sample, the fragment of every record, per-fragment runs.

Distributed Mondrian cuts the table on the driver, from a sample, into a few
fragments and runs the in-memory Mondrian on each fragment on a worker.  The
cut tree, the first cuts and the merge of a fragment that fails a model are
Mondrian's (:mod:`anonset.methods.mondrian.cut_tree`,
:mod:`~anonset.methods.mondrian.first_cuts`,
:mod:`~anonset.methods.mondrian.fragments`); this module holds only what
runs on Spark:

- :func:`sample_records`, the seeded sample the driver cuts (the only records
  that reach it).
- :func:`with_fragments`: every record's fragment by a tree of cuts
  (:class:`FragmentTree`), a Spark column expression (nested ``CASE WHEN``
  over small broadcast tables that map a value's text to its number or its
  hierarchy ancestor), no Python per row.
- :func:`fragment_stats`: the class statistics of every fragment as a whole
  (size, sensitive histograms and moments), one Spark job, P rows per value.
- :func:`run_fragments`: ``groupBy(fragment).applyInPandas(fit)``, one
  fragment per group.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd

from anonset.core.dataset import Dataset
from anonset.core.stats import ClassStats, StatsRequest
from anonset.engine.spark.source import first_line, keyed, text_column, to_pandas
from anonset.errors import DataError

if TYPE_CHECKING:
    from numpy.typing import NDArray
    from pyspark.sql import Column, DataFrame, SparkSession

__all__ = ["FRAGMENT", "FragmentTree", "fragment_stats", "prefer_worker_python",
           "run_fragments", "sample_records", "with_fragments", "worker_error"]

#: The column holding each record's fragment (0 .. P - 1).
FRAGMENT = "_anonset_fragment"


class FragmentTree(Protocol):
    """What :func:`with_fragments` reads of a tree of cuts (Mondrian's :class:`~anonset.methods.mondrian.cut_tree.Cut`).

    A node is a fragment (``attribute`` None) or a cut of ``attribute``: by
    value at ``threshold`` (``level`` −1; child 0 takes ``value <=
    threshold``), or into the hierarchy nodes ``keys`` at ``level`` (a node
    that is none of them goes to child ``default``).  Fragments are numbered
    depth first.
    """

    @property
    def attribute(self) -> str | None: ...

    @property
    def threshold(self) -> float: ...

    @property
    def level(self) -> int: ...

    @property
    def keys(self) -> tuple[int, ...]: ...

    @property
    def default(self) -> int: ...

    @property
    def children(self) -> Sequence[FragmentTree]: ...

    @property
    def n_fragments(self) -> int:
        """Leaves under this node."""
        ...

    def levels_used(self) -> dict[str, set[int]]:
        """Per attribute cut somewhere in the tree, the levels its cuts use (−1: by value)."""
        ...


def sample_records(frame: DataFrame, columns: Sequence[str], n_rows: int, sample_rows: int,
                   seed: int) -> pd.DataFrame:
    """A seeded Bernoulli sample of about ``sample_rows`` records of ``columns`` (all when the table is smaller).

    This is the only place records come to the driver.  ``frame`` has the
    table's own column names; the sample's columns are named as ``columns``.
    """
    from pyspark.sql import functions as F

    data, key = keyed(frame)
    names = list(dict.fromkeys(columns))
    fraction = min(1.0, sample_rows / max(n_rows, 1))
    chosen = data.select(*[F.col(key[c]).alias(f"_s{i}") for i, c in enumerate(names)])
    if fraction < 1.0:
        chosen = chosen.sample(withReplacement=False, fraction=fraction, seed=seed)
    try:
        sample = to_pandas(chosen)
    except Exception as exc:  # Spark raises its own types: one line for the user
        raise DataError(f"Spark could not sample the table ({first_line(exc)})") from None
    sample.columns = pd.Index(names, dtype=object)
    return sample


def with_fragments(frame: DataFrame, dataset: Dataset, tree: FragmentTree,
                   key: Mapping[str, str]) -> DataFrame:
    """``frame`` with :data:`FRAGMENT`: each record's fragment by ``tree`` (a plan; nothing runs).

    ``frame``'s columns are keys (:func:`~anonset.engine.spark.source.keyed`),
    ``key`` gives each attribute's.  Each attribute the tree cuts gets one
    broadcast join with a small table (its distinct texts as profiled ->
    number, or ancestor code at each level cut), then one nested
    ``CASE WHEN`` sends every record down the tree.
    """
    from pyspark.sql import functions as F

    spark = frame.sparkSession
    out = frame
    names: dict[tuple[str, int], str] = {}
    helpers: list[str] = []
    for i, (q, levels) in enumerate(sorted(tree.levels_used().items())):
        codes = dataset.value_codes(q)
        leaf = np.fromiter(codes.values(), dtype=np.int64, count=len(codes))
        table: dict[str, Any] = {f"_ft{i}": pd.Series(list(codes), dtype=object)}
        for level in sorted(levels):
            name = f"_fv{i}_{level + 1}"
            if level < 0:
                numbers = dataset.encoded[q].numbers
                if numbers is None:
                    raise ValueError(f"{q!r} is cut by value but has no numbers")
                table[name] = np.asarray(numbers, dtype=np.float64)[leaf]
            else:
                table[name] = dataset.require_hierarchy(q).maps[level][leaf].astype(np.int64)
            names[(q, level)] = name
            helpers.append(name)
        missing = dataset.specs[q].missing
        out = out.withColumn(f"_ft{i}", text_column(key[q], missing[0] if missing else ""))
        out = out.join(F.broadcast(spark.createDataFrame(pd.DataFrame(table))), on=f"_ft{i}", how="left")
        helpers.append(f"_ft{i}")
    counter = iter(range(tree.n_fragments))

    def expression(node: FragmentTree) -> Column:
        if node.attribute is None:
            return F.lit(next(counter))
        value = F.col(names[(node.attribute, node.level)])
        children = [expression(c) for c in node.children]  # depth first, so the numbering matches
        if node.level < 0:
            return F.when(value <= F.lit(node.threshold), children[0]).otherwise(children[1])
        branch = F.when(value == F.lit(node.keys[0]), children[0])
        for key, child in zip(node.keys[1:], children[1:], strict=True):
            branch = branch.when(value == F.lit(key), child)
        return branch.otherwise(children[node.default])

    return out.withColumn(FRAGMENT, expression(tree).cast("int")).drop(*helpers)


def fragment_stats(framed: DataFrame, dataset: Dataset, request: StatsRequest, n_fragments: int,
                   key: Mapping[str, str]) -> tuple[ClassStats, int]:
    """Class statistics of each fragment as a whole (one class per fragment), counted by one Spark job.

    ``framed`` is :func:`with_fragments`'s, ``key`` each attribute's column
    key.  The rows are stacked as (fragment, attribute, value) and grouped
    once: one row per fragment for its size, and per sensitive attribute one
    row per fragment and value; histograms and moments are assembled on the
    driver.  Returns the statistics and the rows that reached the driver.
    """
    from pyspark.sql import functions as F

    attributes = sorted(request.histograms | request.moments)
    pairs = [F.struct(F.lit(-1).alias("c"), F.lit("").alias("v"))]
    for i, a in enumerate(attributes):
        missing = dataset.specs[a].missing
        pairs.append(F.struct(F.lit(i).alias("c"), text_column(key[a], missing[0] if missing else "").alias("v")))
    try:
        counted = to_pandas(framed.select(F.col(FRAGMENT).alias("f"), F.explode(F.array(*pairs)).alias("p"))
                            .groupBy("f", "p.c", "p.v").count())
    except Exception as exc:  # Spark raises its own types: one line for the user
        raise DataError(f"{dataset.source}: Spark could not count the fragments ({first_line(exc)})") from None
    fragment = counted["f"].to_numpy(dtype=np.int64)
    which = counted["c"].to_numpy(dtype=np.int64)
    counts = counted["count"].to_numpy(dtype=np.int64)
    sizes = np.bincount(fragment[which < 0], weights=counts[which < 0], minlength=n_fragments).astype(np.int64)
    hists: dict[str, NDArray[np.int64]] = {}
    sums: dict[str, NDArray[np.float64]] = {}
    sumsq: dict[str, NDArray[np.float64]] = {}
    for i, a in enumerate(attributes):
        rows = which == i
        codes_of = {str(v): c for c, v in enumerate(dataset.encoded[a].categories)}
        codes_of.update(dataset.value_codes(a))
        codes = np.array([codes_of.get(str(v), -1) for v in counted["v"][rows]], dtype=np.int64)
        if (codes < 0).any():
            raise DataError(f"{dataset.source}, column {a!r}: a value Spark read is not among the profiled values;"
                            " was the table changed while anonset read it?")
        m = dataset.encoded[a].n_categories
        cells = fragment[rows] * m + codes
        if a in request.histograms:
            hists[a] = np.bincount(cells, weights=counts[rows], minlength=n_fragments * m).reshape(
                n_fragments, m).astype(np.int64)
        if a in request.moments:
            numbers = dataset.encoded[a].numbers
            if numbers is None:
                raise ValueError(f"{a!r} is not numeric")
            x = np.asarray(numbers, dtype=np.float64)[codes]
            weight = counts[rows].astype(np.float64)
            sums[a] = np.bincount(fragment[rows], weights=weight * x, minlength=n_fragments).astype(np.float64)
            sumsq[a] = np.bincount(fragment[rows], weights=weight * x * x, minlength=n_fragments).astype(np.float64)
    return ClassStats(sizes=sizes, keys=np.zeros((n_fragments, 0), dtype=np.int32), histograms=hists, sums=sums,
                      sumsq=sumsq), len(counted)


def prefer_worker_python(spark: SparkSession) -> None:
    """In local mode without ``PYSPARK_PYTHON``, run Python workers with this interpreter (its anonset and numba).

    pyspark's default, ``python3`` on the PATH, need not have anonset.  On a
    cluster the workers' Python is the cluster's setting (``PYSPARK_PYTHON``).
    """
    context = spark.sparkContext
    if "PYSPARK_PYTHON" not in os.environ and str(context.master).startswith("local"):
        context.pythonExec = sys.executable


def run_fragments(framed: DataFrame, n_fragments: int, fit: Callable[[pd.DataFrame], pd.DataFrame],
                  schema: str) -> DataFrame:
    """``fit`` on the records of each fragment, on the workers: one group per fragment (a plan; nothing runs).

    The records are range-partitioned by fragment into ``n_fragments``
    partitions first (an explicit count, which adaptive execution does not
    merge), so the fragments run in parallel tasks.  ``fit`` (which may hold
    the table's profile) travels as a broadcast variable, once per executor
    rather than once per task.  ``framed``'s columns must be keys
    (:func:`~anonset.engine.spark.source.keyed`): ``applyInPandas`` names
    each column without quoting it, so a name such as ``a.b`` would not resolve.
    """
    shared = framed.sparkSession.sparkContext.broadcast(fit)

    def fit_group(records: pd.DataFrame) -> pd.DataFrame:  # a plain function: pyspark reads its arity
        return shared.value(records)

    return framed.repartitionByRange(n_fragments, FRAGMENT).groupBy(FRAGMENT).applyInPandas(fit_group, schema)


def worker_error(exc: BaseException) -> str:
    """The line of a Spark failure that says what went wrong: a Python worker's own exception when there is one."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    raised = [line for line in lines if re.match(r"^[A-Za-z_.]*(Error|Exception|Interrupt|Exit)\b:?", line)
              and not line.startswith(("at ", "org.apache", "java."))]
    return raised[-1] if raised else first_line(exc)
