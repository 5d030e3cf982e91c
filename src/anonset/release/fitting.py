"""Fitting a method of each family and releasing its result: the flows of ``Anonymizer.fit``.

:func:`fit_method` runs the registered method and, by the
:class:`~anonset.methods.base.Family` its declaration states, turns what it
returns into a release:

* a full-domain search (:func:`fit_node`) returns a
  :class:`~anonset.methods.full_domain.search.SearchResult`: its node (or
  the success-list entry ``pick`` names) is counted by the engine, judged by
  the requirements and released;
* a partitioning method (:func:`fit_grouping`) returns a
  :class:`~anonset.core.grouping.Grouping`: each class gets its own
  generalized values;
* a trade-off search (:func:`fit_front`) returns a front
  (:func:`find_front`); which member is released, and the privacy it claims
  and is re-checked against, is the family's release policy
  (:mod:`anonset.methods.pareto.release_policy`).

Two release paths (:mod:`anonset.release.build`):

* a dataset held in memory is searched with the numpy engine (or the engine
  given), rendered with pandas and re-checked by
  :func:`anonset.recheck.verify.verify_release`;
* a dataset of a table that stays in a database
  (:func:`anonset.engine.sql.profile.dataset_from_table`) is searched
  through the engine given and released through that engine's sink
  (:func:`anonset.sinks.base.sink_factory`; for the SQL engines a
  :class:`~anonset.sinks.database.DatabaseSink`), which checks
  ``output_table`` before any work, writes the release under a staging name,
  re-checks it where it was written and places it; only value counts and
  class tables travel to Python.

Each flow returns a :class:`Fitted` record.  The flows are given the run's
:class:`~anonset.release.build.ReleaseSettings` and the parameters they
use, never the Anonymizer (a layer above this one); they hold no method
names and no SQL.  The Anonymizer also asks here which metric a method
optimizes (:func:`optimized_metric`) and whether an engine it was given fits
the dataset (:func:`check_engine`).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import numpy as np

from anonset.core.dataset import Dataset, Role
from anonset.core.grouping import Grouping, PartitionedGrouping
from anonset.core.partition import Partition, partition_of_assignment
from anonset.engine.base import Engine
from anonset.engine.numpy.engine import NumpyEngine
from anonset.engine.sql.base import TableName
from anonset.errors import AnonsetWarning, ConfigError
from anonset.methods import registry
from anonset.methods.base import Family, Method, Problem
from anonset.methods.full_domain.ranked import picked_levels
from anonset.methods.full_domain.search import SearchResult, fixed_node
from anonset.methods.pareto import release_policy as pareto
from anonset.methods.pareto.objectives import ParetoResult
from anonset.metrics import make_metric
from anonset.metrics.base import Metric
from anonset.metrics.research_value import ResearchValue
from anonset.privacy.base import Requirements
from anonset.recheck.undeclared import refuse_rare_values
from anonset.release.build import ReleaseSettings, engine_sink, release_in_memory, release_node, user_stacklevel
from anonset.release.facts import FrontFacts, GroupingFacts, SearchFacts
from anonset.release.release import Release
from anonset.release.stages import StageClock
from anonset.sinks.base import EngineSink

__all__ = ["Fitted", "check_engine", "find_front", "fit_front", "fit_grouping", "fit_method", "fit_node",
           "optimized_metric"]


@dataclass(frozen=True)
class Fitted:
    """What fitting a method learned, and the release of the fitted table.

    Attributes
    ----------
    dataset : Dataset
        The fitted dataset.
    metric : Metric
        The metric the method optimized.
    release_requirements : Requirements
        What the release claims and was re-checked against: a front
        member's own privacy, else the configured requirements.
    release : Release
        The release of the fitted table.
    sink : EngineSink, optional
        The sink a release of a database table was placed through, else None.
    levels : dict of str to int, optional
        The released full-domain node by quasi-identifier (a search's, or a
        front member's); None for a grouping.
    result : SearchResult, optional
        A full-domain search's result.
    grouping : Grouping, optional
        A partitioning method's classes and placement rule.
    front : ParetoResult, optional
        A trade-off search's front.
    """

    dataset: Dataset
    metric: Metric
    release_requirements: Requirements
    release: Release
    sink: EngineSink | None
    levels: dict[str, int] | None = None
    result: SearchResult | None = None
    grouping: Grouping | None = None
    front: ParetoResult | None = None


def fit_method(settings: ReleaseSettings, dataset: Dataset, engine: Engine | None, clock: StageClock, *,
               pick: int | None = None, output_table: TableName | None = None, replace_output: bool = False,
               allow_unprotected: bool = False) -> Fitted:
    """Fit ``settings.method`` on ``dataset`` and release its result, by the method's family.

    The caller (the Anonymizer) has checked its parameters, the dataset
    (its quasi-identifiers, what the requirements and the metric need of
    it) and the engine (:func:`check_engine`); ``clock`` has timed the
    encoding.  ``pick``,
    ``output_table``, ``replace_output`` and ``allow_unprotected`` are the
    Anonymizer's parameters of the same names.  Records in memory are
    released in memory, after their undeclared columns are checked; records
    in a database through the engine's sink, by a method that can run
    there (a partitioning method cannot declare that it runs there:
    :class:`~anonset.methods.base.Method` refuses the declaration).

    Raises
    ------
    ConfigError
        ``output_table`` for records in memory; a method that needs the
        records in memory for a dataset in a database.
    """
    spec = registry.get(settings.method)
    floored = [f"{q} {dataset.specs[q].min_level}" for q in dataset.quasi if dataset.specs[q].min_level]
    if floored and not spec.min_levels:
        honour = ", ".join(n for n in registry.names() if registry.get(n).min_levels)
        raise ConfigError(f"method {settings.method!r} does not search the full-domain lattice from a minimum"
                          f" generalization (min_level: {', '.join(floored)}); use {honour}, or remove min_level")
    if dataset.in_memory:
        refuse_rare_values(dataset, settings.requirements.k)
        if output_table is not None:
            raise ConfigError("output_table is where a table that lives in a database is released; this dataset"
                              " is in memory and its release is Release.table (write it with"
                              " anonset.io.tables.write_table)")
        _warn_single_class_targets(dataset)
    elif spec.in_memory:
        anywhere = [n for n in registry.names() if not registry.get(n).in_memory]
        raise ConfigError(f"{dataset.source}: method {settings.method!r} needs the records in memory; use engine:"
                          f" numpy (or a method that runs in the database: {', '.join(anywhere)})")
    if spec.family is Family.FRONT:
        return fit_front(settings, dataset, engine, clock, pick=pick, output_table=output_table,
                         replace_output=replace_output, allow_unprotected=allow_unprotected)
    if spec.family is Family.GROUPING and dataset.in_memory:
        return fit_grouping(settings, dataset, clock)
    return fit_node(settings, dataset, engine, clock, pick=pick, output_table=output_table,
                    replace_output=replace_output)


def fit_node(settings: ReleaseSettings, dataset: Dataset, engine: Engine | None, clock: StageClock, *,
             pick: int | None = None, output_table: TableName | None = None,
             replace_output: bool = False) -> Fitted:
    """Search a full-domain node and release it: in memory, or through the engine's sink into ``output_table``."""
    spec, requirements, metric = registry.get(settings.method), settings.requirements, settings.metric
    cells_wanted = settings.options.get("suppression") == "cells"
    if cells_wanted and not dataset.in_memory:
        raise ConfigError(f"{dataset.source}: suppression: cells blanks single values of records in memory; this"
                          " release is written where its records are: suppress whole records (the default)")
    sink = None
    drop_rows: Callable[[], None] | None = None  # an engine built here gives its records' classes back once scored
    if not dataset.in_memory:
        engine, sink = engine_sink(dataset, engine, output_table, replace_output)
    elif engine is None:  # counted at the minimum generalization: no node below it is searched or released
        engine = own = NumpyEngine(dataset, requirements.request, floor=dataset.min_levels)
        drop_rows = own.drop_rows
    metric.prepare(dataset, engine)
    fixed = requirements.fixed_levels(dataset)
    below = [q for q, level in zip(dataset.quasi, fixed or (), strict=False) if level < dataset.specs[q].min_level]
    if below:
        raise ConfigError(f"the privacy requirements fix the node {fixed} before seeing the data, with {below[0]!r}"
                          " below its min_level; remove min_level or choose a coarser generalization scheme")
    result = spec.fit(_problem(settings, dataset, engine)) if fixed is None else \
        fixed_node(dataset, engine, requirements, metric, fixed)
    if not isinstance(result, SearchResult):
        raise _broken_contract(spec, result, "a SearchResult")
    levels = picked_levels(result, dataset.quasi, pick)
    row_class, stats = engine.row_classes(levels) if sink is None else (None, engine.class_stats(levels))
    verdict = requirements.judge(stats, dataset.n_rows)
    partition = Partition.from_node(dataset.quasi, stats, verdict.kept, row_class)
    search = SearchFacts.of(result, nodes_computed=engine.nodes_computed, optimized=metric.name, picked=pick or 0)
    if cells_wanted:
        from anonset.methods.local_suppression.grouping import cells_instead_of_records

        assert row_class is not None
        partition, cells = cells_instead_of_records(dataset, levels, stats.keys[row_class].astype(np.int64),
                                                    requirements.k, settings.options.get("importance"))
        search = replace(search, suppressed_cells=cells)
    # a node fixed before seeing the data is not explained by other nodes: choosing one of them on what the
    # data shows would undo what fixing it protects
    release = release_node(settings, engine, levels, partition, stats, verdict.violating, clock, search, sink=sink,
                           explain=fixed is None, after_scoring=drop_rows)
    return Fitted(dataset=dataset, metric=metric, release_requirements=requirements, release=release, sink=sink,
                  levels=dict(zip(dataset.quasi, levels, strict=True)), result=result)


def fit_grouping(settings: ReleaseSettings, dataset: Dataset, clock: StageClock) -> Fitted:
    """Run a partitioning method on records in memory: each class gets its own generalized values."""
    spec = registry.get(settings.method)
    method_started = time.perf_counter()
    problem = _problem(settings, dataset, None)
    grouping = spec.fit(problem)
    if not isinstance(grouping, Grouping):
        raise _broken_contract(spec, grouping, "a Grouping (row_class and assign)")
    partition = (grouping.partition(dataset, grouping.row_class) if isinstance(grouping, PartitionedGrouping)
                 else partition_of_assignment(dataset, grouping.row_class))
    # local recoding's classes may overlap; strict partitioning's regions never share a value
    overlap = not problem.options.get("strict", False)
    cells = getattr(grouping, "cells", None) if partition.blanks_match_any else None
    search = GroupingFacts(method_seconds=time.perf_counter() - method_started, classes=partition.n_classes,
                           largest_class=int(partition.sizes.max()) if partition.n_classes else 0,
                           ranges_may_overlap=bool(overlap), suppressed_cells=cells,
                           microaggregation=getattr(grouping, "aggregation", None))
    release = release_in_memory(settings, dataset, None, partition, clock, search=search)
    return Fitted(dataset=dataset, metric=settings.metric, release_requirements=settings.requirements,
                  release=release, sink=None, grouping=grouping)


def fit_front(settings: ReleaseSettings, dataset: Dataset, engine: Engine | None, clock: StageClock, *,
              pick: int | None = None, output_table: TableName | None = None, replace_output: bool = False,
              allow_unprotected: bool = False) -> Fitted:
    """Find the front of minimal property based generalizations and release one member of it.

    The suppression budget η is ``requirements.max_suppression``; privacy
    is measured by the objectives.  Which member is released, and the
    privacy it claims and is re-verified against, is the trade-off
    family's release policy (:mod:`anonset.methods.pareto.release_policy`):
    member ``pick``, or the least-loss member meeting the floors the
    requirements state; with neither, the fit is refused before any work.
    A dataset that lives in a database or on Spark is searched through its
    engine and the member released through the engine's sink, re-checked
    where written.  A member that protects nothing is refused unless
    ``allow_unprotected``.
    """
    requirements = settings.requirements
    floors = pareto.front_floors(settings.method, requirements, settings.options)
    pareto.require_member_rule(settings.method, pick, floors)
    sink = None
    if not dataset.in_memory:  # released where the records are, through the engine's sink
        engine, sink = engine_sink(dataset, engine, output_table, replace_output)
    front = find_front(settings, dataset, engine)
    index = pareto.chosen_member(front, floors, pick)
    member, eta = front.front[index], requirements.max_suppression
    drop_rows: Callable[[], None] | None = None  # an engine built here gives its records' classes back once scored
    if engine is None:
        engine = own = NumpyEngine(dataset, requirements.request, floor=dataset.min_levels)
        drop_rows = own.drop_rows
    levels = member.levels
    row_class, stats = engine.row_classes(levels) if sink is None else (None, engine.class_stats(levels))
    k = pareto.member_threshold(stats.sizes, eta, dataset.n_rows)
    partition = Partition.from_node(dataset.quasi, stats, stats.sizes >= k, row_class)
    claimed = pareto.claimed_requirements(member, k, eta, settings.options.get("sensitive"), dataset)
    if not allow_unprotected:
        pareto.refuse_unprotected(index, claimed)
    search = FrontFacts.of(front, picked=index, chosen_by="pick" if pick is not None else "floor",
                           floors=floors, eta=eta)
    release = release_node(settings, engine, levels, partition, stats, stats.sizes < k, clock, search,
                           sink=sink, requirements=claimed, explain=False, after_scoring=drop_rows)
    return Fitted(dataset=dataset, metric=settings.metric, release_requirements=claimed, release=release,
                  sink=sink, levels=dict(zip(dataset.quasi, levels, strict=True)), front=front)


def find_front(settings: ReleaseSettings, dataset: Dataset, engine: Engine | None) -> ParetoResult:
    """The front a trade-off method finds on ``dataset``, without releasing any member."""
    spec = registry.get(settings.method)
    front = spec.fit(_problem(settings, dataset, engine))
    if not isinstance(front, ParetoResult):
        raise _broken_contract(spec, front, "a ParetoResult")
    return front


def optimized_metric(method: str, metric: str | Metric | None, weights: Mapping[str, float] | None,
                     requirements: Requirements) -> Metric:
    """The metric ``method`` optimizes: ``metric`` (a name or an instance), else the method's default.

    Raises
    ------
    ConfigError
        A metric the method cannot optimize.
    """
    if isinstance(metric, Metric):
        return metric
    spec = registry.get(method)
    name = spec.default_metric if metric is None else metric
    if spec.metrics is not None and name not in spec.metrics:
        raise ConfigError(f"method {method!r} optimizes {' | '.join(sorted(spec.metrics))}; drop the metric"
                          f" {name!r} or choose another method")
    if name == "research_value":
        return ResearchValue()
    return make_metric(name, weights=weights, k=requirements.k)


def check_engine(engine: Engine, dataset: Dataset, requirements: Requirements) -> None:
    """An engine passed to ``fit`` must belong to this dataset and carry the statistics the models need."""
    if engine.dataset is not dataset:
        raise ConfigError("the engine passed to fit() was built for another dataset; pass the dataset the"
                          " engine was built for (engine.dataset) as data")
    have = engine.request
    need = requirements.request
    if not (need.histograms <= have.histograms and need.moments <= have.moments):
        raise ConfigError("the engine passed to fit() lacks statistics the privacy models need; build it"
                          " with the requirements' request (requirements.request)")
    floor = dataset.min_levels
    if any(counted > level for counted, level in zip(engine.bottom_levels, floor, strict=True)):
        raise ConfigError(f"the engine passed to fit() counted its classes at levels {engine.bottom_levels}, above"
                          f" the quasi-identifiers' min_level {floor}: no search could start at the floor; build it"
                          " with floor=dataset.min_levels")


def _warn_single_class_targets(dataset: Dataset) -> None:
    """Warn about a target column with one class only: CM is 0 whatever the release, and no method can use it."""
    for name, spec in dataset.specs.items():
        if spec.role is Role.TARGET and name in dataset.columns:
            values = dataset.column(name).astype(str).unique()
            if len(values) == 1:
                warnings.warn(f"{dataset.source}, column {name!r}: the target has one class only ({values[0]!r});"
                              " the classification metric (cm) is 0 for every release and class_penalty has no"
                              " effect", AnonsetWarning, stacklevel=user_stacklevel())


def _problem(settings: ReleaseSettings, dataset: Dataset, engine: Engine | None) -> Problem:
    """What the method's ``fit`` receives: the options checked and completed with their defaults."""
    options = registry.get(settings.method).check_options(settings.options)
    return Problem(dataset=dataset, requirements=settings.requirements, engine=engine, metric=settings.metric,
                   weights=settings.weights, seed=settings.seed, options=options)


def _broken_contract(spec: Method, result: object, promised: str) -> TypeError:
    return TypeError(f"method {spec.name!r} ({spec.family.value}) returned {type(result).__name__}, not {promised}"
                     " as its family promises (this is a bug in the method's module)")
