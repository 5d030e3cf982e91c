"""Building a release: rendered, scored, re-checked and explained, in memory or through an engine's sink.

Each family's fit (:mod:`anonset.release.fitting`) finds what to release (a
full-domain node, a partition of the records, a front member) and hands it
here with the :class:`ReleaseSettings` of the run:

* :func:`release_in_memory` scores the release, renders the released table
  with pandas (an engine built for the run has given its per-record arrays
  back by then), re-checks it from the released values
  (:func:`~anonset.recheck.verify.verify_release`) and says what a reader
  should know (:func:`notices`);
* :func:`release_through_sink` stages the release of a node in its engine's
  sink (a database, a Spark cluster: :func:`engine_sink`), has it re-checked
  there and places it, or discards it on any failure;
* :func:`release_node` releases a full-domain node either way: a search's
  own node (a useless release names the models that bind it, a lost
  attribute is told the cheapest release that keeps it: :func:`keeping`),
  or a front member's, judged by the privacy it claims;
* :func:`released_frame` is a release as the DataFrame that ``transform``
  returns, indexed like its input.

These functions hold no method names and no SQL: what differs between the
method families is what they are given.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa

from anonset.core.dataset import Dataset, Role
from anonset.core.memory import give_back_freed_memory
from anonset.core.partition import Partition
from anonset.errors import AnonsetWarning, ConfigError, InfeasibleError
from anonset.methods import registry
from anonset.metrics import reported_metrics as metrics_to_report
from anonset.progress import Task
from anonset.progress import reporting as progress_reporting
from anonset.progress import task as progress_task
from anonset.recheck.suppressed import group_of_rows, suppressed_group_violations, withheld_warning
from anonset.recheck.undeclared import refuse_any_undeclared, refuse_splitting, undeclared_columns, undeclared_note
from anonset.recheck.verify import VerificationReport, require_verified, verify_release
from anonset.release.caveats import (
    LostAttribute,
    binding_models,
    concentrated_suppression,
    lost_attributes,
    lost_warning,
    suppressed_counts_of_node,
    suppressed_counts_of_rows,
    useless_release,
)
from anonset.release.facts import FrontFacts, MethodFacts, Provenance, SearchFacts
from anonset.release.perturbation import Treatment, perturb
from anonset.release.release import Release, render_full_domain, render_partition
from anonset.risk.report import class_sizes_of_codes, release_risk
from anonset.sinks.base import EngineSink, NodeRelease, sink_factory

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.stats import ClassStats
    from anonset.engine.base import Engine
    from anonset.engine.sql.base import TableName
    from anonset.methods.full_domain.search import LevelFloors
    from anonset.metrics.base import Metric
    from anonset.privacy.base import Requirements
    from anonset.release.stages import StageClock

__all__ = [
    "InputSizes",
    "Keeping",
    "ReleaseSettings",
    "engine_sink",
    "keeping",
    "notices",
    "release_in_memory",
    "release_node",
    "release_through_sink",
    "released_frame",
    "user_stacklevel",
    "warn_user",
]


@dataclass(frozen=True)
class ReleaseSettings:
    """What a release needs of the run that makes it: the Anonymizer's parameters and the metric it optimized.

    Attributes
    ----------
    method : str
        The method's name.
    requirements : Requirements
        The configured requirements (a release is re-checked against them
        unless it is given its own: a front member's claimed privacy).
    metric : Metric
        The metric the search optimized (reported with the others).
    named_metric : str, optional
        The metric as the provenance names it (None: the method's default).
    weights : mapping of str to float, optional
        The attribute weights of the metrics.
    options : mapping
        The method's options as given.
    seed : int
        The seed, for the provenance.
    drop_suppressed : bool
        Drop suppressed records instead of writing ``*`` in their quasi-identifiers.
    perturbation : tuple of Treatment
        The perturbations applied to the released table after the method
        (:mod:`anonset.release.perturbation`), seeded by ``seed``.
    """

    method: str
    requirements: Requirements
    metric: Metric
    named_metric: str | None
    weights: Mapping[str, float] | None
    options: Mapping[str, Any]
    seed: int
    drop_suppressed: bool
    perturbation: tuple[Treatment, ...] = ()


#: Describes the cheapest release that keeps a lost attribute, given the release's own score (None: unknown).
Keeping = Callable[[LostAttribute, float | None], str | None]

#: How to ask the search for a release that keeps an attribute.
_WEIGHTS_HINT = ("to prefer keeping {name!r}, give it a larger weight (method.weights in the config, weights= in the"
                 " API)")


def reported_metrics(settings: ReleaseSettings, dataset: Dataset,
                     in_memory: bool = True) -> tuple[list[Metric], dict[str, str]]:
    """The metrics a release reports, and those left out (with the reason) when the rows are not in memory."""
    reported = metrics_to_report(dataset, settings.requirements.k, settings.weights, optimized=settings.metric)
    if in_memory:
        return reported, {}
    omitted = {m.name: "needs record-level rows, which stay in the database" for m in reported if m.needs_rows}
    return [m for m in reported if not m.needs_rows], omitted


def provenance(settings: ReleaseSettings, dataset: Dataset, engine: str | None = None, database: str | None = None,
               output_table: str | None = None) -> Provenance:
    """Where a release comes from: versions, seed, method, metric, options, source, requirements, engine."""
    from anonset.release.facts import provenance as made_now  # the one provenance of every release

    return made_now(method=settings.method, method_options=settings.options, metric=settings.named_metric,
                    seed=settings.seed, source=dataset.source, requirements=settings.requirements, engine=engine,
                    database=database, output_table=output_table,
                    perturbation=tuple({"kind": t.kind, "attributes": list(t.attributes), **t.parameters}
                                       for t in settings.perturbation))


def withheld_models(settings: ReleaseSettings, dataset: Dataset, group: ClassStats,
                    requirements: Requirements) -> list[str]:
    """The models the suppressed records' group breaks, when their sensitive values must be withheld, else []."""
    return [] if settings.drop_suppressed else suppressed_group_violations(dataset, group, requirements)


def release_in_memory(settings: ReleaseSettings, dataset: Dataset, levels: tuple[int, ...] | None,
                      partition: Partition, clock: StageClock, search: MethodFacts, check: bool = True,
                      engine: str = "numpy", rows_fetched: int | None = None,
                      requirements: Requirements | None = None, binding: Callable[[], list[str]] | None = None,
                      input_sizes: InputSizes | None = None, keeping: Keeping | None = None,
                      after_scoring: Callable[[], None] | None = None) -> Release:
    """Score, render and re-check a release (full-domain node, or any partition when ``levels`` is None).

    ``input_sizes``: the input's class sizes when an engine already counted them (its bottom node, at the
    levels it counted them at), for the risk section; else they are counted from the encoded records.
    ``requirements``: what the release is re-checked against (default the
    configured ones).  The release's classes are those the re-check
    recomputed from the released values; its warnings say when it is
    useless (``binding`` names the models that forced that), when it
    withheld the suppressed records' sensitive values, lost an attribute
    (``keeping`` describes the cheapest release that keeps it), or
    suppressed mostly one value, and which undeclared columns it releases
    unchanged (one that could single people out is refused).  ``after_scoring``
    runs once the metrics are scored, before the release is rendered: what
    only the search and the scores needed can be given back there.
    """
    requirements = requirements or settings.requirements
    assert partition.row_class is not None
    clock.lap("search")
    suppressed = partition.row_class < 0
    reported, _ = reported_metrics(settings, dataset)
    recheck: VerificationReport | None = None
    verified = False
    classes: int | None = None
    smallest: int | None = None
    warnings_: list[str] = []
    risk: dict[str, Any] | None = None
    group = group_of_rows(dataset, suppressed, requirements) if dataset.sensitive and suppressed.any() else None
    withheld = [] if group is None else withheld_models(settings, dataset, group, requirements)
    withhold = bool(withheld)
    with progress_task("releasing: scoring", total=1 + len(reported) + int(check), unit="steps") as bar:
        metrics = _scores(reported, partition, dataset, bar)
        clock.lap("metrics")
        if after_scoring is not None:
            after_scoring()
        bar.update(description="releasing: rendering")
        if levels is None or partition.blanks_match_any:  # a node whose blanked values are classes of their own
            table = render_partition(dataset, partition, settings.drop_suppressed, withhold)
        else:
            table = render_full_domain(dataset, levels, suppressed, settings.drop_suppressed, withhold)
        if partition.blanks_match_any:  # its identical rows are not its classes: no column may be undeclared
            refuse_any_undeclared(dataset, "a release with blanked values is judged by the records each matches")
        else:
            refuse_splitting(table, dataset, requirements.k)
        clock.lap("release")
        give_back_freed_memory()  # rendering's temporaries, before the re-check builds its own
        bar.advance()
        if check:
            bar.update(description="releasing: re-checking")
            report = recheck = verify_release(table, dataset, requirements, dataset.n_rows,
                                              blanks_match_any=partition.blanks_match_any)
            require_verified(report, culprit=registry.accountable(settings.method))  # anonset's, or an outside method's
            verified = True
            classes, smallest = report.classes, report.min_class_size
            before = InputSizes(class_sizes_of_codes(dataset.qi_codes()), {}) if input_sizes is None else input_sizes
            risk = release_risk(before.sizes, report.released_sizes, report.suppressed_rows, report.released_matched,
                                counted_at=before.counted_at)
            useless = useless_release(classes, report.suppressed_rows, dataset.n_rows, requirements,
                                      binding() if binding is not None and classes <= 1 else None)
            note = undeclared_note(undeclared_columns(dataset, tuple(map(str, table.columns))))
            warnings_ = notices(dataset, partition, requirements, useless, withheld,
                                suppressed_counts_of_rows(dataset, suppressed), keeping,
                                metrics.get(settings.metric.name))
            warnings_ += [note] if note else []
            clock.lap("verify")
            bar.advance()
    perturbed: dict[str, Any] = {}
    if settings.perturbation:
        table, perturbed, after = _perturbed(settings, dataset, table, requirements, partition.blanks_match_any, check)
        recheck = after or recheck
        clock.lap("verify")
    return Release(
        table=table, partition=partition, method=settings.method,
        levels=None if levels is None else dict(zip(dataset.quasi, levels, strict=True)),
        metrics=metrics, suppressed_rows=int(suppressed.sum()), verified=verified,
        requirements=requirements.describe(), models=tuple(requirements.parts()), withheld=tuple(withheld),
        search=search,
        seconds=clock.elapsed(), stages=clock.times(),
        provenance=provenance(settings, dataset), engine=engine, rows_fetched=rows_fetched,
        warnings=tuple(warnings_), classes=classes, smallest_class=smallest, risk=risk, recheck=recheck,
        perturbation=perturbed,
    )


def _perturbed(settings: ReleaseSettings, dataset: Dataset, table: pd.DataFrame, requirements: Requirements,
               blanks_match_any: bool, check: bool
               ) -> tuple[pd.DataFrame, dict[str, Any], VerificationReport | None]:
    """The released table with the run's perturbations applied, what each did, and its re-check (when ``check``).

    Raises
    ------
    InfeasibleError
        The perturbed release breaks the requirements (a perturbed sensitive
        attribute judged as released): nothing is released.
    """
    table, perturbed = perturb(table, dataset, settings.perturbation, settings.seed)
    after = None
    if check:
        after = verify_release(table, dataset, requirements, dataset.n_rows, blanks_match_any=blanks_match_any)
        if not after.ok:
            done = "; ".join(t.describe() for t in settings.perturbation)
            raise InfeasibleError(f"{dataset.source}: after the perturbation ({done}) the release breaks"
                                  f" {requirements.describe()}: {'; '.join(after.problems)}; perturb other"
                                  " attributes or less, or relax the requirements")
    return table, perturbed, after


def release_node(settings: ReleaseSettings, engine: Engine, levels: tuple[int, ...], partition: Partition,
                 stats: ClassStats, violating: NDArray[np.bool_], clock: StageClock, search: SearchFacts | FrontFacts,
                 sink: EngineSink | None = None, requirements: Requirements | None = None,
                 explain: bool = True, after_scoring: Callable[[], None] | None = None) -> Release:
    """The release of a full-domain node: in memory, or through the engine's ``sink`` where its records are.

    ``stats`` are the node's classes, ``violating`` those suppressed (the
    partition's), judged by ``requirements`` (default the configured ones).
    With ``explain`` (a full-domain search's own node) a useless release
    names the models that bind it, the input's class sizes are the engine's
    bottom node, and a lost attribute is told the cheapest release that
    keeps it; a front member's release, judged by the privacy it claims,
    says none of that.  ``after_scoring``: see :func:`release_in_memory`
    (an engine built for this release alone gives back its records' classes there).
    """
    dataset = engine.dataset
    if sink is not None:
        node = NodeRelease(engine=engine, levels=levels, violating_keys=stats.keys[violating],
                           suppressed_rows=partition.n_suppressed,
                           requirements=requirements or settings.requirements,
                           drop_suppressed=settings.drop_suppressed,
                           withheld=tuple(withheld_models(settings, dataset, stats.subset(violating).merged(),
                                                          requirements or settings.requirements)))
        return release_through_sink(settings, sink, node, partition, clock, search,
                                    keeping=keeping(settings, engine) if explain else None)
    if not explain:
        return release_in_memory(settings, dataset, levels, partition, clock, search=search,
                                 requirements=requirements, after_scoring=after_scoring)
    rows_fetched = engine.rows_fetched
    return release_in_memory(settings, dataset, levels, partition, clock, search=search, engine=engine.name,
                             rows_fetched=rows_fetched, requirements=requirements,
                             binding=lambda: binding_models(engine, settings.requirements, levels, dataset.n_rows),
                             input_sizes=input_class_sizes(engine), keeping=keeping(settings, engine),
                             after_scoring=after_scoring)


def engine_sink(dataset: Dataset, engine: Engine | None, output_table: TableName | None,
                replace_output: bool) -> tuple[Engine, EngineSink]:
    """The engine of a dataset that lives in a database and the sink its release goes to, checked before any work.

    Raises
    ------
    ConfigError
        No engine, an engine without a sink, or no ``output_table``.
    """
    factory = None if engine is None else sink_factory(engine.name)
    if engine is None or factory is None:
        raise ConfigError(f"{dataset.source}: the rows of this dataset stay in a database; pass"
                          " engine=SqlEngine(dataset, requirements.request, backend, table) to fit()")
    if output_table is None:
        raise ConfigError(f"{dataset.source}: a table in a database is released into a new table of the same"
                          " database; give Anonymizer(..., output_table='schema.name')")
    sink = factory(engine, output_table, replace_output)
    sink.check()
    return engine, sink


def release_through_sink(settings: ReleaseSettings, sink: EngineSink, node: NodeRelease, partition: Partition,
                         clock: StageClock, search: SearchFacts | FrontFacts,
                         keeping: Keeping | None = None) -> Release:
    """Stage the node's release in the sink, have it re-checked there, place it; discard it on any failure.

    Nothing is left behind on failure, and an output that is replaced
    goes only when the checked release is placed (see the sink).  The
    release is judged by the node's requirements (a front member's: the
    privacy it claims).
    """
    engine, dataset = node.engine, node.engine.dataset
    requirements = node.requirements
    clock.lap("search")
    reported, omitted = reported_metrics(settings, dataset, in_memory=False)
    with progress_task("releasing: writing", total=3 + len(reported), unit="steps") as bar:
        try:
            sink.stage(node)
            clock.lap("release")
            bar.update(completed=1, description="releasing: re-checking")
            report = sink.verify()
            undeclared = sink.undeclared(requirements.k)
            clock.lap("verify")
            bar.update(completed=2, description="releasing: placing")
            sink.place()
            clock.lap("write")
        except BaseException:
            sink.discard()
            raise
        useless = useless_release(report.classes, report.suppressed_rows, dataset.n_rows, requirements,
                                  binding_models(engine, requirements, node.levels, dataset.n_rows)
                                  if report.classes <= 1 else None)
        clock.lap("verify")
        bar.update(completed=3, description="releasing: scoring")
        metrics = _scores(reported, partition, dataset, bar)
        clock.lap("metrics")
        warnings_ = notices(dataset, partition, requirements, useless, list(node.withheld),
                            suppressed_counts_of_node(engine, node.levels, node.violating_keys), keeping,
                            metrics.get(settings.metric.name))
        before = input_class_sizes(engine)
        risk = release_risk(before.sizes, report.released_sizes, report.suppressed_rows, counted_at=before.counted_at)
        clock.lap("verify")
    rows_fetched = engine.rows_fetched
    where = provenance(settings, dataset, engine=engine.name, database=sink.database, output_table=sink.output_table)
    return Release(
        table=None, partition=partition, method=settings.method,
        levels=dict(zip(dataset.quasi, node.levels, strict=True)),
        metrics=metrics, suppressed_rows=partition.n_suppressed, verified=True,
        requirements=requirements.describe(), models=tuple(requirements.parts()), withheld=node.withheld,
        search=search, seconds=clock.elapsed(),
        provenance=where, location=sink.location, engine=engine.name,
        rows_fetched=rows_fetched, omitted_metrics=omitted, classes=report.classes,
        smallest_class=report.min_class_size,
        warnings=tuple(warnings_ + undeclared), risk=risk,
        stages=clock.times(),
    )


def notices(dataset: Dataset, partition: Partition, requirements: Requirements, useless: str | None,
            withheld: list[str], suppressed_counts: Mapping[str, NDArray[np.int64]],
            keeping: Keeping | None, score: float | None) -> list[str]:
    """A release's warnings: useless, sensitive values withheld, attributes lost, suppression concentrated.

    ``withheld``: the models the suppressed records' group breaks (their
    sensitive values were withheld); ``score``: the release's value of
    the metric the search optimized.
    """
    out = [useless] if useless else []
    if withheld:
        out.append(withheld_warning(partition.n_suppressed, dataset.sensitive, withheld))
    if not useless:
        out += [lost_warning(lost, keeping(lost, score) if keeping is not None else None)
                for lost in lost_attributes(dataset, partition)]
    out += concentrated_suppression(dataset, suppressed_counts, requirements.k)
    return out


def keeping(settings: ReleaseSettings, engine: Engine) -> Keeping:
    """For a full-domain release: the cheapest feasible release that keeps a lost attribute, in words.

    The exact search again, on the part of the lattice where the
    attribute stays at or below the highest level that still tells two of
    its values apart; when the node it finds still releases one value of
    the attribute (its other values are suppressed), the text says so.
    Left out (None) when the metric gives the search no bound and that
    part of the lattice is large.
    """
    dataset = engine.dataset
    metric = settings.metric
    full = [h.max_level for h in dataset.hierarchies]
    shared: list[LevelFloors] = []  # the prefilter's tables, counted at the first search, shared by the others

    def describe(lost: LostAttribute, current: float | None) -> str | None:
        if lost.keep_level is None or lost.keep_level < dataset.specs[lost.name].min_level:
            return None
        from anonset.methods.full_domain.search import lattice_of, level_floors, optimal_search

        j = dataset.quasi.index(lost.name)
        capped = lattice_of(dataset, [lost.keep_level if i == j else m for i, m in enumerate(full)])
        if metric.node_bounds(dataset, capped.nodes[:1]) is None and capped.size > 5_000:
            return _WEIGHTS_HINT.format(name=lost.name)
        requirements = settings.requirements
        if not shared:
            shared.append(level_floors(dataset, engine, requirements, requirements.monotonic))
        try:
            with progress_reporting(None):  # a short second search: not a progress bar of its own
                found = optimal_search(dataset, engine, requirements, metric, lattice=capped, floors=shared[0])
        except InfeasibleError:
            return (f"no feasible release keeps it (every generalization with {lost.name!r} at level"
                    f" {lost.keep_level} or below breaks the requirements within the suppression budget)")
        where = ", ".join(f"{q} {v}" for q, v in zip(dataset.quasi, found.levels, strict=True))
        if len(np.unique(found.stats.keys[found.verdict.kept, j])) < 2:
            return (f"the cheapest feasible release with {lost.name!r} at level {lost.keep_level} or below"
                    f" (levels {where}) still shows one value of it: its other values belong only to records"
                    " that have to be suppressed")
        than = "" if current is None else f" against {current:.4g} for this release"
        return (f"the cheapest feasible release that keeps it has levels {where} ({metric.name}"
                f" {found.score:.4g}{than}); " + _WEIGHTS_HINT.format(name=lost.name))

    return describe


def released_frame(release: Release, data: pd.DataFrame | pa.Table | Dataset, fitted: Dataset) -> pd.DataFrame:
    """The released records as a DataFrame indexed like ``data``, unchanged columns with their own dtypes.

    ``data`` is what :meth:`Anonymizer.fit` or :meth:`Anonymizer.transform`
    was given; the release keeps its rows in that order (the suppressed ones
    dropped with ``drop_suppressed``).  The columns taken back from a
    DataFrame given as it was: every column that is not a quasi-identifier,
    except sensitive ones whose suppressed records' values were withheld
    (roles as ``fitted``, the dataset the recoding was learned on, declares them)
    and those a perturbation changed.
    """
    table = release.table
    if table is None:
        raise ConfigError(f"the release is not in memory ({release.location}): ask for the release itself"
                          " (release_, or fit_transform(..., return_release=True))")
    frame = data if isinstance(data, pd.DataFrame) else None
    if isinstance(data, Dataset) and data.arrow is None and data.in_memory:
        frame = data.table
    rows = (np.flatnonzero(release.partition.row_class >= 0)
            if len(table) < release.partition.n_rows and release.partition.row_class is not None
            else np.arange(len(table)))
    out = table.copy(deep=False)
    out.index = frame.index[rows] if frame is not None else pd.RangeIndex(release.partition.n_rows)[rows]
    if frame is None:
        return out
    perturbed = {str(a) for done in release.perturbation.get("treatments", ()) for a in done["attributes"]}
    for name in out.columns:
        spec = fitted.specs.get(str(name))
        role = Role.INSENSITIVE if spec is None else spec.role
        if role is Role.QUASI or (role is Role.SENSITIVE and release.withheld) or str(name) in perturbed:
            continue
        out[name] = frame[name].iloc[rows].set_axis(out.index)
    return out


@dataclass(frozen=True)
class InputSizes:
    """The input's class sizes on its quasi-identifiers, and the levels above 0 they were counted at."""

    sizes: NDArray[np.int64]
    counted_at: dict[str, int]


def input_class_sizes(engine: Engine) -> InputSizes:
    """Class sizes of the engine's dataset on its quasi-identifiers: its bottom node, which every engine counts
    (at the minimum generalization when the engine counted it there)."""
    levels = engine.bottom_levels
    return InputSizes(engine.class_stats(levels).sizes,
                      {q: level for q, level in zip(engine.dataset.quasi, levels, strict=True) if level})


def warn_user(messages: Sequence[str]) -> None:
    """Issue each of a release's warnings as an :class:`~anonset.errors.AnonsetWarning`, pointing at the caller."""
    level = user_stacklevel()
    for message in messages:
        warnings.warn(message, AnonsetWarning, stacklevel=level)


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning issued by the caller point at the first frame outside anonset."""
    package = __name__.split(".")[0]
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == package:
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def _scores(metrics: Sequence[Metric], partition: Partition, dataset: Dataset, bar: Task) -> dict[str, float]:
    """Each metric's score of the release's partition, one step of ``bar`` per metric."""
    out: dict[str, float] = {}
    for m in metrics:
        out[m.name] = float(m.score(partition, dataset))
        bar.advance()
    return out
