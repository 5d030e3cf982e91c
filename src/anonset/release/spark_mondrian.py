"""Distributed Mondrian on Spark: first cuts on the driver from a sample, Mondrian per fragment on the workers.

:func:`release_mondrian_on_spark` releases a table that stays on Spark
(``engine: spark``, ``method: mondrian``) the way published distributed
Mondrian works; only a sample of the records reaches the driver:

1. **First cuts** (driver): a seeded sample of about ``sample_rows`` records
   (quasi-identifiers and judged sensitive attributes only) is cut by
   Mondrian's median rule into about ``fragments`` fragments, only where every
   fragment keeps room for valid classes
   (:func:`~anonset.methods.mondrian.first_cuts.first_cuts` states the rule).
2. **Exact check** (one Spark job): every record gets its fragment by the
   cuts (:func:`~anonset.engine.spark.mondrian.with_fragments`), and each
   fragment's size and sensitive statistics are counted; a fragment that as a
   whole fails a model (too small, not l-diverse) is merged with its siblings
   (its parent cut undone) and the merged fragment checked again, until every
   fragment passes.  Mondrian can only fail on a region that fails as a whole,
   so after this no fragment can fail; a table that fails as a whole is an
   :class:`~anonset.errors.InfeasibleError`, as in memory.
3. **Mondrian per fragment** (workers, ``groupBy(fragment).applyInPandas``):
   :class:`~anonset.release.fragments.FragmentJob` fits the configured
   Anonymizer (``method="mondrian"``, same options) on the fragment's records,
   encoded with the table's hierarchies, and returns the released rows and
   the fragment's partial metric sums.  The result is kept on the cluster
   (memory and disk) while the statistics rows are collected and the release
   is written.
4. **Release**: the released rows are written by Spark to a staging folder
   beside ``output`` (:class:`~anonset.release.spark.SparkOutput`, as a
   full-domain release on Spark), re-checked there by
   :func:`~anonset.release.spark.verify_frame` (every input record read back
   once, the released labels grouped on the cluster, judged on the driver),
   and renamed into place; any failure deletes what was staged.

Every Spark expression names the table's columns by position
(:func:`~anonset.engine.spark.source.keyed`), and the fragments' records
travel under those keys: a column named ``a.b`` or ``x`y`` is a column like
any other.

The release's metrics are the fragments' partial sums added up
(:func:`~anonset.release.fragments.combine_metrics`); a metric that cannot be
added up is reported in ``metrics_omitted`` with the reason.  The input's
class sizes for the risk report are the fragments' tables of sizes added up
(:func:`~anonset.release.fragments.input_class_sizes`), not a pass of their own.  The summary's
``search`` gives the fragments, how many were merged and the records
sampled (``sample_rows``, the only records that reached the driver);
``rows_fetched`` counts the rows of per-fragment statistics.

Fragments differ from Mondrian on the whole table in two ways: a first cut
sits at the sample's median, not the table's; and a cut Mondrian would make
lower down cannot cross a fragment's border.  ``benchmarks/distributed_mondrian.py``
measures what that costs (docs/scale.md, "Distributed Mondrian").
"""

from __future__ import annotations

import json
import math
import platform
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

import numpy as np
import pandas as pd

from anonset.core.dataset import Dataset, Role
from anonset.core.partition import Partition
from anonset.core.stats import ClassStats, aggregate
from anonset.errors import ConfigError, DataError, HierarchyError, InfeasibleError
from anonset.methods.mondrian.mondrian import SPARK_OPTIONS
from anonset.metrics import make_metric, reported_metrics
from anonset.metrics.base import Metric
from anonset.privacy.base import Requirements
from anonset.privacy.tcloseness import TCloseness
from anonset.release.caveats import useless_release
from anonset.release.facts import GroupingFacts, Provenance
from anonset.release.fragments import (
    FRAGMENT_ERRORS,
    STATS,
    FragmentJob,
    FragmentModel,
    combine_metrics,
    input_class_sizes,
)
from anonset.release.release import Release
from anonset.release.spark import SparkOutput, verify_frame
from anonset.release.stages import StageClock
from anonset.release.undeclared import SPARK_DECLARES_ALL, refuse_any_undeclared
from anonset.release.verify import require_verified
from anonset.risk.report import release_risk
from anonset.version import __version__

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from anonset.engine.spark.mondrian import Cut

__all__ = ["DEFAULT_SAMPLE_ROWS", "DISTRIBUTED_METHODS", "FRAGMENT_ROWS", "SPARK_OPTIONS", "DistributedFacts",
           "MondrianModel", "check_distributable", "default_fragments", "release_mondrian_on_spark"]

#: Methods that run distributed on Spark.
DISTRIBUTED_METHODS = frozenset({"mondrian"})
#: Records sampled to the driver for the first cuts when ``sample_rows`` is not set.
DEFAULT_SAMPLE_ROWS = 1_000_000
#: The default fragments hold at most about this many records each: a worker holding a million records of
#: the synthetic register peaked at about 1.5 GB, and a hundred fragments of a million-record table cost
#: no measurable utility (docs/scale.md, "Distributed Mondrian").
FRAGMENT_ROWS = 1_000_000


class MondrianModel(FragmentModel, Protocol):
    """The configured model (an :class:`~anonset.anonymizer.Anonymizer`): what the run reads of it."""

    requirements: Requirements
    method: str
    metric: str | Metric | None
    weights: Mapping[str, float] | None
    seed: int
    method_options: Mapping[str, Any] | None
    allow_unprotected: bool


@dataclass(frozen=True)
class DistributedFacts(GroupingFacts):
    """How distributed Mondrian grouped the records: a partitioning method's facts, and its fragments.

    ``method_seconds`` is the fragments' Mondrian time summed over the
    workers, ``classes`` and ``largest_class`` Mondrian's classes over all
    fragments.

    Attributes
    ----------
    fragments : int
        Fragments the workers partitioned.
    fragments_merged : int
        Fragments of the first cuts merged into a sibling because they failed a model as a whole.
    sample_rows : int
        Records sampled to the driver for the first cuts.
    """

    fragments: int = 1
    fragments_merged: int = 0
    sample_rows: int = 0

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "fragments": self.fragments, "fragments_merged": self.fragments_merged,
                "sample_rows": self.sample_rows}


def check_distributable(requirements: Requirements, method: str = "mondrian") -> None:
    """Refuse, before Spark starts, what distributed Mondrian cannot enforce fragment by fragment (one line)."""
    if method not in DISTRIBUTED_METHODS:
        raise ConfigError(f"method {method!r} needs the records in memory; with engine: spark use"
                          f" {' | '.join(sorted(DISTRIBUTED_METHODS))} or a full-domain method")
    for m in requirements.models:
        if isinstance(m, TCloseness):
            raise ConfigError(f"engine: spark with method: {method}: {m.describe()} compares every class with the"
                              " whole table's distribution, which no fragment holds; use engine: numpy, or"
                              " l-diversity instead")
    if requirements.max_suppression:
        raise ConfigError(f"mondrian suppresses no records; set max_suppression to 0"
                          f" (got {requirements.max_suppression:g})")


def default_fragments(spark: SparkSession, n_rows: int) -> int:
    """Three fragments per task slot of the cluster, and at least one per :data:`FRAGMENT_ROWS` records."""
    return max(3 * int(spark.sparkContext.defaultParallelism), math.ceil(n_rows / FRAGMENT_ROWS), 1)


def release_mondrian_on_spark(frame: DataFrame, dataset: Dataset, model: MondrianModel, output: str, *,
                              delimiter: str = ",", input_location: str | None = None,
                              global_ranges: bool = True) -> tuple[Release, SparkOutput]:
    """Release ``frame`` by distributed Mondrian into ``output`` (see the module docstring).

    Parameters
    ----------
    frame : pyspark.sql.DataFrame
        The table, as :func:`~anonset.engine.spark.source.read_frame` reads it.
    dataset : Dataset
        Its dataset, built from its value counts
        (:func:`~anonset.engine.spark.source.dataset_from_frame`): the
        hierarchies every fragment uses.
    model : MondrianModel
        The configured Anonymizer; ``method_options`` may hold ``fragments``
        (default :func:`default_fragments`) and ``sample_rows`` (default
        :data:`DEFAULT_SAMPLE_ROWS`).  Each fragment is fitted by a model of
        the same class, configured alike.
    output : str
        The folder Spark writes (refused when it exists).
    delimiter : str
        The CSV field separator of the release.
    input_location : str, optional
        The input's path, refused as the output.
    global_ranges : bool
        See :attr:`~anonset.release.fragments.FragmentJob.global_ranges`.

    Returns
    -------
    tuple of Release and SparkOutput
        The release (placed at ``output``) and its output, whose
        ``discard()`` deletes it again (when a later output of the run fails).
    """
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    from anonset.engine.spark.mondrian import (
        fragment_stats,
        prefer_worker_python,
        run_fragments,
        sample_records,
        with_fragments,
        worker_error,
    )
    from anonset.engine.spark.source import column_key, keyed, to_pandas
    from anonset.methods.mondrian.first_cuts import first_cuts

    clock = StageClock()
    requirements = model.requirements
    check_distributable(requirements, model.method)
    requirements.validate(dataset)
    refuse_any_undeclared(dataset, SPARK_DECLARES_ALL)
    spark = frame.sparkSession
    out = SparkOutput(spark, output, delimiter=delimiter, input_location=input_location)
    out.check()
    options = dict(model.method_options or {})
    given = {name: options.pop(name, None) for name in SPARK_OPTIONS}  # the driver's; no fragment gets them
    wanted = int(given["fragments"] or default_fragments(spark, dataset.n_rows))
    sample_rows = int(given["sample_rows"] or DEFAULT_SAMPLE_ROWS)
    specs = dataset.resolved_specs()  # the table's hierarchies: the sample and every fragment code values alike
    by_value = frozenset(q for q in dataset.quasi if _by_value(dataset, q))
    spans = {q: _span(dataset, q) for q in by_value}
    judged = [*dataset.quasi, *sorted(requirements.request.histograms | requirements.request.moments)]
    sample = sample_records(frame, judged, dataset.n_rows, sample_rows, model.seed)
    sampled = Dataset(sample, {c: specs[c] for c in dict.fromkeys(judged)}, source=f"{dataset.source} (sample)")
    tree = first_cuts(sampled, requirements, n_rows=dataset.n_rows, fragments=wanted, spans=spans,
                      by_value=by_value, weights=model.weights)
    first = tree.n_fragments
    data, key = keyed(frame)  # columns by position: no expression parses a name of the table
    stats, fetched = fragment_stats(with_fragments(data, dataset, tree, key), dataset, requirements.request, first,
                                    key)
    tree = _merge_failing(tree, stats, requirements, dataset)
    columns = tuple(c for c in dataset.columns if dataset.specs[c].role is not Role.IDENTIFIER)
    metrics = _metrics(model, dataset)
    released_specs = {c: spec for c, spec in specs.items() if spec.role is not Role.IDENTIFIER}
    job = FragmentJob(make_model=cast("Any", type(model)), specs=released_specs, requirements=requirements,
                      method=model.method, method_options=options,
                      weights=model.weights, seed=model.seed, allow_unprotected=model.allow_unprotected,
                      whole=dataset, metrics=tuple(metrics), columns=columns, source=dataset.source, spans=spans,
                      global_ranges=global_ranges)
    prefer_worker_python(spark)
    # identifiers are not released: they are not shuffled to the fragments' workers either; the released columns
    # are keyed by their position among them, as the job reads and writes them
    released_key = {c: column_key(i) for i, c in enumerate(columns)}
    released_frame = data.select(*[F.col(key[c]).alias(released_key[c]) for c in columns])
    applied = run_fragments(with_fragments(released_frame, dataset, tree, released_key), tree.n_fragments, job,
                            job.schema())
    applied = applied.persist(StorageLevel.MEMORY_AND_DISK)
    try:
        try:
            rows = to_pandas(applied.filter(F.col(STATS).isNotNull()).select(STATS))[STATS]
        except Exception as exc:  # Spark's own exception types (a worker lost, out of memory), as one line
            raise DataError(f"{dataset.source}: Spark could not run Mondrian on the fragments"
                            f" ({worker_error(exc)})") from None
        parts = sorted((json.loads(r) for r in rows), key=lambda p: int(p["fragment"]))
        _raise_failed(parts, dataset.source)
        clock.lap("search")
        out.stage(applied.filter(F.col(STATS).isNull()).select(*[F.col(released_key[c]).alias(c) for c in columns]))
        clock.lap("release")
        report = verify_frame(out.staged(), dataset, requirements, dataset.n_rows, expected_rows=dataset.n_rows)
        require_verified(report)
        released = sum(int(p["rows"]) for p in parts)
        if report.suppressed_rows or released != dataset.n_rows:
            raise RuntimeError(f"distributed Mondrian released {released} of {dataset.n_rows} records and the"
                               f" re-check counts {report.suppressed_rows} suppressed (this is a bug in anonset)")
        clock.lap("verify")
        out.place()
        clock.lap("write")
        scores, omitted = combine_metrics(metrics, dataset, parts)
        clock.lap("metrics")
        risk = release_risk(input_class_sizes(parts), report.released_sizes, 0)
        useless = useless_release(report.classes, 0, dataset.n_rows, requirements)
        clock.lap("verify")
    except BaseException:
        out.discard()
        raise
    finally:
        applied.unpersist()
    strict = bool(options.get("strict", True))
    search = DistributedFacts(method_seconds=sum(float(p["seconds"]) for p in parts),
                              classes=sum(int(p["classes"]) for p in parts),
                              largest_class=max(int(p["largest"]) for p in parts),
                              ranges_may_overlap=not strict or _unseen_branches(tree, dataset),
                              fragments=tree.n_fragments, fragments_merged=first - tree.n_fragments,
                              sample_rows=len(sample))
    metric = model.metric if isinstance(model.metric, str) or model.metric is None else model.metric.name
    provenance = Provenance(
        anonset=__version__, python=platform.python_version(), numpy=np.__version__, pandas=pd.__version__,
        seed=model.seed, method=model.method, metric=metric, method_options=dict(model.method_options or {}),
        source=dataset.source,
        requirements=tuple(m.summary() for m in requirements.models), max_suppression=requirements.max_suppression,
        engine="spark", database=f"Spark {spark.sparkContext.master}", output_table=output)
    release = Release(
        table=None, partition=Partition(values={}, sizes=report.released_sizes, n_suppressed=0), method=model.method,
        levels=None, metrics=scores, suppressed_rows=0, verified=True, requirements=requirements.describe(),
        search=search, seconds=clock.elapsed(), provenance=provenance, location=output, engine="spark",
        rows_fetched=fetched + len(parts), omitted_metrics=omitted, classes=report.classes,
        smallest_class=report.min_class_size, warnings=(useless,) if useless else (), risk=risk,
        stages=clock.times())
    return release, out


def _merge_failing(tree: Cut, stats: ClassStats, requirements: Requirements, dataset: Dataset) -> Cut:
    """Undo the parent cut of every fragment that fails a model as a whole, until none does."""
    from anonset.engine.spark.mondrian import collapsed

    while True:
        ok = np.logical_and.reduce([m.satisfied(stats) for m in requirements.models]
                                   + [np.ones(stats.n_classes, dtype=np.bool_)])
        if ok.all():
            return tree
        if tree.is_leaf:
            failed = next(m for m in requirements.models if not m.satisfied(stats)[0])
            raise InfeasibleError(f"the whole table ({dataset.n_rows} records) does not satisfy {failed.describe()},"
                                  " so no Mondrian partition can; relax the requirements or use more data")
        tree, mapping = collapsed(tree, {int(i) for i in np.flatnonzero(~ok)})
        stats = aggregate(mapping, tree.n_fragments, stats, np.zeros((tree.n_fragments, 0), dtype=np.int32), None)


def _raise_failed(parts: list[dict[str, Any]], source: str) -> None:
    """One line for the first fragment that failed on its worker (its error's own type when anonset's)."""
    for p in parts:
        error = p.get("error")
        if error is None:
            continue
        where = f"{source}: fragment {p['fragment']} ({p['rows']} records)"
        kinds: dict[str, type[Exception]] = {"ConfigError": ConfigError, "DataError": DataError,
                                             "HierarchyError": HierarchyError, "InfeasibleError": InfeasibleError}
        if error["type"] in FRAGMENT_ERRORS:
            raise kinds[error["type"]](f"{where}: {error['message']}")
        raise RuntimeError(f"{where} failed on its worker: {error['type']}: {error['message']} (this is a bug in"
                           " anonset)")


def _metrics(model: MondrianModel, dataset: Dataset) -> list[Metric]:
    """The metrics the release reports: the standard ones, and the configured metric when it is another."""
    out = reported_metrics(dataset, model.requirements.k, model.weights)
    named = model.metric if isinstance(model.metric, Metric) else (
        make_metric(model.metric, weights=model.weights, k=model.requirements.k) if model.metric else None)
    if named is not None and named.name not in {m.name for m in out}:
        out.append(named)
    return out


def _by_value(dataset: Dataset, name: str) -> bool:
    """Whether Mondrian compares ``name`` by value on the whole table: a number, date or rank on every record."""
    from anonset.core.dataset import BY_VALUE_TYPES

    enc = dataset.encoded[name]
    if dataset.specs[name].type not in BY_VALUE_TYPES or enc.numbers is None:
        return False
    present = np.asarray(enc.numbers, dtype=np.float64)[enc.counts() > 0]
    return bool(np.isfinite(present).all())


def _span(dataset: Dataset, name: str) -> float:
    """The table's range (max − min) of a quasi-identifier compared by value."""
    enc = dataset.encoded[name]
    assert enc.numbers is not None
    present = np.asarray(enc.numbers, dtype=np.float64)[enc.counts() > 0]
    return float(present.max() - present.min()) if len(present) else 0.0


def _unseen_branches(tree: Cut, dataset: Dataset) -> bool:
    """Whether a categorical first cut sent branches the sample did not hold to one child (whose classes may then
    cover a sibling's values)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.attribute is None:
            continue
        stack.extend(node.children)
        if node.level < 0:
            continue
        h = dataset.require_hierarchy(node.attribute)
        up = h.parent_map(node.level, node.level + 1)
        held = np.bincount(h.maps[node.level], weights=dataset.encoded[node.attribute].counts(),
                           minlength=h.size(node.level)) > 0
        siblings = np.flatnonzero((up == up[node.keys[0]]) & held)
        if not set(siblings.tolist()) <= set(node.keys):
            return True
    return False


