"""Distributed Mondrian on Spark: first cuts on the driver from a sample, Mondrian per fragment on the workers.

:func:`release_mondrian_on_spark` releases a table that stays on Spark
(``engine: spark``, ``method: mondrian``) the way published distributed
Mondrian works; only a sample of the records reaches the driver:

1. **First cuts** (driver): a seeded sample of about ``sample_rows`` records
   (quasi-identifiers and judged sensitive attributes only) is cut by
   Mondrian's median rule into about ``fragments`` fragments, only where every
   fragment keeps room for valid classes
   (:func:`~anonset.methods.mondrian.first_cuts.first_cuts` states the rule;
   the tree is a :class:`~anonset.methods.mondrian.cut_tree.Cut`).
2. **Exact check** (one Spark job): every record gets its fragment by the
   cuts (:func:`~anonset.engine.spark.mondrian.with_fragments`), and each
   fragment's size and sensitive statistics are counted; a fragment that as a
   whole fails a model (too small, not l-diverse) is merged with its siblings
   (its parent cut undone) and the merged fragment checked again, until every
   fragment passes (:func:`~anonset.methods.mondrian.fragments.merge_failing`).
   Mondrian can only fail on a region that fails as a whole,
   so after this no fragment can fail; a table that fails as a whole is an
   :class:`~anonset.errors.InfeasibleError`, as in memory.
3. **Mondrian per fragment** (workers, ``groupBy(fragment).applyInPandas``):
   :class:`~anonset.distributed.worker.FragmentJob` fits the configured
   Anonymizer (``method="mondrian"``, same options) on the fragment's records,
   encoded with the table's hierarchies, and returns the released rows and
   the fragment's partial metric sums.  The result is kept on the cluster
   (memory and disk) while the statistics rows are collected and the release
   is written.
4. **Release**: the released rows are written by Spark to a staging folder
   beside ``output`` (:class:`~anonset.sinks.spark.SparkOutput`, as a
   full-domain release on Spark), re-checked there by
   :func:`~anonset.sinks.spark.verify_frame` (every input record read back
   once, the released labels grouped on the cluster, judged on the driver),
   and renamed into place; any failure deletes what was staged.

Every Spark expression names the table's columns by position
(:func:`~anonset.engine.spark.source.keyed`), and the fragments' records
travel under those keys: a column named ``a.b`` or ``x`y`` is a column like
any other.

The release's metrics are the fragments' partial sums added up
(:func:`~anonset.metrics.partial.combine_partial_sums`); a metric that cannot be
added up is reported in ``metrics_omitted`` with the reason.  The input's
class sizes for the risk report are the fragments' tables of sizes added up
(:func:`~anonset.distributed.worker.input_class_sizes`), not a pass of their own.  The summary's
``search`` gives the fragments, how many were merged and the records
sampled (``sample_rows``, the only records that reached the driver);
``rows_fetched`` counts the rows of per-fragment statistics.

Fragments differ from Mondrian on the whole table in two ways: a first cut
sits at the sample's median, not the table's; and a cut Mondrian would make
lower down cannot cross a fragment's border.  ``benchmarks/distributed_mondrian.py``
measures what that costs (docs/scale.md, "Distributed Mondrian").

That Mondrian runs distributed, with which driver options and what it cannot
enforce fragment by fragment, is declared by the method
(``registry.get("mondrian").distributed``, a
:class:`~anonset.methods.base.Distribution`); :func:`check_distributable`
asks the registry.  This module holds the release flow only.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

from anonset.core.dataset import Dataset, Role
from anonset.core.partition import Partition
from anonset.distributed.worker import FRAGMENT_ERRORS, STATS, FragmentJob, FragmentModel, input_class_sizes
from anonset.errors import ConfigError, DataError, HierarchyError, InfeasibleError
from anonset.methods import registry
from anonset.methods.mondrian.cut_tree import unseen_branches
from anonset.methods.mondrian.fragments import DEFAULT_SAMPLE_ROWS, default_fragments, merge_failing
from anonset.metrics import make_metric, reported_metrics
from anonset.metrics.base import Metric
from anonset.metrics.partial import combine_partial_sums
from anonset.privacy.base import Requirements
from anonset.recheck.undeclared import SPARK_DECLARES_ALL, refuse_any_undeclared
from anonset.recheck.verify import require_verified
from anonset.release.caveats import useless_release
from anonset.release.facts import GroupingFacts, provenance
from anonset.release.release import Release
from anonset.release.stages import StageClock
from anonset.risk.report import release_risk
from anonset.sinks.spark import SparkOutput, verify_frame

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["DistributedFacts", "MondrianModel", "check_distributable", "release_mondrian_on_spark"]


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
    """Refuse, before Spark starts, what ``method`` cannot do distributed (one line).

    A method whose declaration has no ``distributed`` needs the records in
    memory; a distributed one refuses what it cannot enforce fragment by
    fragment (:meth:`~anonset.methods.base.Method.check_distributed`).
    """
    spec = registry.get(method)
    if spec.distributed is None:
        raise ConfigError(f"method {method!r} needs the records in memory; with engine: spark use"
                          f" {' | '.join(registry.distributed())} or a full-domain method")
    spec.check_distributed(requirements)


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
        The configured Anonymizer; ``method_options`` may hold the driver's
        options of the method's :class:`~anonset.methods.base.Distribution`:
        ``fragments`` (default
        :func:`~anonset.methods.mondrian.fragments.default_fragments`) and
        ``sample_rows`` (default
        :data:`~anonset.methods.mondrian.fragments.DEFAULT_SAMPLE_ROWS`).
        Each fragment is fitted by a model of the same class, configured
        alike, without them.
    output : str
        The folder Spark writes (refused when it exists).
    delimiter : str
        The CSV field separator of the release.
    input_location : str, optional
        The input's path, refused as the output.
    global_ranges : bool
        See :attr:`~anonset.distributed.worker.FragmentJob.global_ranges`.

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
    from anonset.methods.mondrian.first_cuts import first_cuts, table_scales

    clock = StageClock()
    requirements = model.requirements
    check_distributable(requirements, model.method)
    requirements.validate(dataset)
    refuse_any_undeclared(dataset, SPARK_DECLARES_ALL)
    spark = frame.sparkSession
    out = SparkOutput(spark, output, delimiter=delimiter, input_location=input_location)
    out.check()
    distribution = registry.get(model.method).distributed
    assert distribution is not None  # check_distributable refused any other method
    options = dict(model.method_options or {})
    given = {name: options.pop(name, None) for name in distribution.option_names()}  # no fragment gets them
    wanted = int(given["fragments"] or default_fragments(spark.sparkContext.defaultParallelism, dataset.n_rows))
    sample_rows = int(given["sample_rows"] or DEFAULT_SAMPLE_ROWS)
    specs = dataset.resolved_specs()  # the table's hierarchies: the sample and every fragment code values alike
    by_value, spans = table_scales(dataset)
    judged = [*dataset.quasi, *sorted(requirements.request.histograms | requirements.request.moments)]
    sample = sample_records(frame, judged, dataset.n_rows, sample_rows, model.seed)
    sampled = Dataset(sample, {c: specs[c] for c in dict.fromkeys(judged)}, source=f"{dataset.source} (sample)")
    tree = first_cuts(sampled, requirements, n_rows=dataset.n_rows, fragments=wanted, spans=spans,
                      by_value=by_value, weights=model.weights)
    first = tree.n_fragments
    data, key = keyed(frame)  # columns by position: no expression parses a name of the table
    stats, fetched = fragment_stats(with_fragments(data, dataset, tree, key), dataset, requirements.request, first,
                                    key)
    tree = merge_failing(tree, stats, requirements, dataset.n_rows)
    columns = tuple(c for c in dataset.columns if dataset.specs[c].role is not Role.IDENTIFIER)
    metrics = reported_metrics(dataset, requirements.k, model.weights, optimized=_named_metric(model))
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
        scores, omitted = combine_partial_sums(metrics, dataset, parts)
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
                              ranges_may_overlap=not strict or unseen_branches(tree, dataset),
                              fragments=tree.n_fragments, fragments_merged=first - tree.n_fragments,
                              sample_rows=len(sample))
    made = provenance(method=model.method, method_options=model.method_options, metric=model.metric, seed=model.seed,
                      source=dataset.source, requirements=requirements, engine="spark",
                      database=f"Spark {spark.sparkContext.master}", output_table=output)
    release = Release(
        table=None, partition=Partition(values={}, sizes=report.released_sizes, n_suppressed=0), method=model.method,
        levels=None, metrics=scores, suppressed_rows=0, verified=True, requirements=requirements.describe(),
        search=search, seconds=clock.elapsed(), provenance=made, location=output, engine="spark",
        rows_fetched=fetched + len(parts), omitted_metrics=omitted, classes=report.classes,
        smallest_class=report.min_class_size, warnings=(useless,) if useless else (), risk=risk,
        stages=clock.times())
    return release, out


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


def _named_metric(model: MondrianModel) -> Metric | None:
    """The metric the model names (reported with the standard ones when it is another), or None."""
    if isinstance(model.metric, Metric):
        return model.metric
    return make_metric(model.metric, weights=model.weights, k=model.requirements.k) if model.metric else None
