"""``Anonymizer``: learn a recoding on one table, apply it to new rows (scikit-learn style).

``fit`` runs a method and keeps the learned recoding — the full-domain node
(``levels_``) of a search, or the classes and placement rule (``grouping_``,
a :class:`~anonset.core.grouping.Grouping`) of a partitioning method —
and the release of the fitted table (``release_``); ``transform`` applies the
same recoding to new records and re-checks every privacy model on the new
release — the guarantee does not carry over by itself.  Every release is
verified independently before it is returned.

Two release paths:

* a dataset held in memory (a DataFrame) is searched with the numpy engine
  (or the engine passed to ``fit``), rendered with pandas and re-checked by
  :func:`anonset.release.verify.verify_release`;
* a dataset of a table that stays in a database
  (:func:`anonset.engine.sql.profile.dataset_from_table`) is searched through
  the engine passed to ``fit`` and released through that engine's sink
  (:func:`anonset.release.sinks.sink_factory`; for the SQL engines a
  :class:`~anonset.release.database.DatabaseSink`), which checks
  ``output_table`` before any work, writes the release under a staging name,
  re-checks it where it was written and places it; only value counts and
  class tables travel to Python.  The Anonymizer itself holds no SQL and
  names no engine class.
"""

from __future__ import annotations

import inspect
import platform
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast, overload

import numpy as np
import pandas as pd
import pyarrow as pa

from anonset.core.dataset import AttributeSpec, Dataset, Role, row_values
from anonset.core.grouping import Grouping
from anonset.core.lattice import Lattice
from anonset.core.partition import Partition, grown_partition, partition_of_assignment
from anonset.core.stats import ClassStats, stats_from_assignment
from anonset.engine.base import Engine
from anonset.engine.numpy.engine import NumpyEngine
from anonset.engine.sql.base import TableName, table_parts
from anonset.errors import AnonsetWarning, ConfigError, DataError, HierarchyError, InfeasibleError
from anonset.methods import registry
from anonset.methods.base import Family, Method, Problem
from anonset.methods.full_domain.search import SearchResult
from anonset.methods.pareto.objectives import (
    OBJECTIVES,
    FrontMember,
    ParetoResult,
    budget_rows,
    suppression_threshold,
)
from anonset.metrics import SEARCH_METRICS, make_metric, reported_metrics
from anonset.metrics.base import Metric
from anonset.metrics.research_value import ResearchValue
from anonset.privacy.base import PrivacyModel, Requirements
from anonset.privacy.kanonymity import KAnonymity
from anonset.privacy.ldiversity import DistinctLDiversity
from anonset.progress import Task
from anonset.progress import reporting as progress_reporting
from anonset.progress import task as progress_task
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
from anonset.release.facts import (
    FrontFacts,
    GroupingFacts,
    MethodFacts,
    Provenance,
    SearchFacts,
    TransformFacts,
)
from anonset.release.release import Release, render_full_domain, render_partition
from anonset.release.sinks import EngineSink, NodeRelease, sink_factory
from anonset.release.stages import StageClock
from anonset.release.suppressed import group_of_rows, suppressed_group_violations, withheld_warning
from anonset.release.undeclared import refuse_rare_values, refuse_splitting, undeclared_columns, undeclared_note
from anonset.release.verify import require_verified, verify_release
from anonset.risk.report import class_sizes_of_codes, release_risk
from anonset.version import __version__

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Anonymizer", "ReleaseViolation", "anonymize", "protects"]


class ReleaseViolation(AnonsetWarning):
    """A transformed release violates the privacy requirements (``on_violation='warn'``)."""


class Anonymizer:
    """Find a recoding that satisfies the privacy requirements with the best utility.

    After ``fit``: ``levels_`` (the full-domain node — for a trade-off search
    the released member's — or None for a partitioning method), ``result_``
    (a full-domain search's result, else None), ``grouping_`` (a partitioning
    method's classes and placement rule), ``front_`` (a trade-off search's
    :class:`~anonset.methods.pareto.ParetoResult`), ``dataset_``, ``metric_``,
    ``release_`` and ``sink_`` (the sink a release of a database table was
    placed through, else None).

    Parameters
    ----------
    attributes : mapping of str to AttributeSpec or dict
        Roles, types and hierarchies by column.
    requirements : Requirements
        Privacy models and suppression budget.
    method : str
        A registered method (:func:`anonset.methods.registry.names`; ``anonset
        methods`` and docs/methods.md list them with their options).
    metric : str or Metric, optional
        Utility metric the search optimizes (a name from :data:`anonset.metrics.METRICS`
        or an instance such as a configured ResearchValue); default ``loss``, or
        research value for the rv-* methods.
    weights : mapping of str to float, optional
        Attribute weights for the metric, and for the partitioning methods'
        own costs (Xu's weighted NCP; Mondrian's normalized ranges).
    drop_suppressed : bool
        Drop suppressed records instead of writing ``*`` in their quasi-identifiers.
    on_violation : {"raise", "warn"}
        What ``transform`` does when the new release violates the requirements.
    seed : int
        Seed recorded in the provenance (the full-domain searches are deterministic).
    method_options : mapping, optional
        The method's options, as its declaration lists them
        (``registry.get(method).options``); an unknown or ill-typed option is
        a ``ConfigError`` naming what the method accepts.
    pick : int, optional
        Which entry of a research-value search's success list to release
        (default 0, the best), or which member of a trade-off search's front
        (as listed, sorted by the first objective).  A front method releases
        a member only when it is picked or when the requirements state a
        floor (``KAnonymity(K)``, and ``DistinctLDiversity(attribute, L)``
        when ``l`` is an objective); with a floor and no pick, the member
        meeting the floor with the least loss is released.  Other methods
        return one release and refuse ``pick``.
    allow_unprotected : bool
        Release even when the requirements protect nothing (no model beyond
        1-anonymity) or the released member of a front is 1-anonymous.  Off
        by default: anonset refuses to write such a release unless asked by
        name.
    output_table : str or tuple of str, optional
        Where the release of a dataset that lives in a database is written:
        a new table in the same database (``"name"``, ``"schema.name"``, or a
        tuple of parts).  Required for such datasets; an error with an
        in-memory dataset, whose release is ``Release.table``.
    replace_output : bool
        Replace ``output_table`` when it exists (it is an error otherwise).
        The old table is dropped only once the new release has passed the
        re-check, in the transaction that renames it into place.
    """

    levels_: dict[str, int] | None
    result_: SearchResult | None
    sink_: EngineSink | None
    release_: Release
    dataset_: Dataset

    def __init__(self, attributes: Mapping[str, AttributeSpec | Mapping[str, Any]], requirements: Requirements,
                 method: str = "optimal", metric: str | Metric | None = None,
                 weights: Mapping[str, float] | None = None, drop_suppressed: bool = False,
                 on_violation: str = "raise", seed: int = 0, method_options: Mapping[str, Any] | None = None,
                 pick: int | None = None, output_table: TableName | None = None, replace_output: bool = False,
                 allow_unprotected: bool = False):
        # stored as given (scikit-learn's clone() checks that), then checked
        self.attributes = attributes
        self.requirements = requirements
        self.method = method
        self.metric = metric
        self.weights = weights
        self.drop_suppressed = drop_suppressed
        self.on_violation = on_violation
        self.seed = seed
        self.method_options = method_options
        self.pick = pick
        self.output_table = output_table
        self.replace_output = replace_output
        self.allow_unprotected = allow_unprotected
        self._check_params()

    # ------------------------------------------------------------------ parameters (scikit-learn's protocol)
    @classmethod
    def _param_names(cls) -> list[str]:
        """The constructor's parameters, in order."""
        return [name for name in inspect.signature(cls.__init__).parameters if name != "self"]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters as set (scikit-learn's protocol: ``sklearn.base.clone`` uses it).

        ``deep`` is accepted for scikit-learn; an Anonymizer holds no other estimator.
        """
        del deep
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> Anonymizer:
        """Set constructor parameters (checked as the constructor checks them) and return the Anonymizer.

        A fitted Anonymizer keeps its fitted state until it is fitted again.

        Raises
        ------
        ConfigError
            An unknown parameter name, or a value the constructor refuses
            (the parameters are then left as they were).
        """
        names = self._param_names()
        unknown = [name for name in params if name not in names]
        if unknown:
            raise ConfigError(f"Anonymizer has no parameter {unknown[0]!r}; its parameters are {', '.join(names)}")
        before = self.get_params()
        for name, value in params.items():
            setattr(self, name, value)
        try:
            self._check_params()
        except BaseException:
            for name, value in before.items():
                setattr(self, name, value)
            raise
        return self

    def __sklearn_tags__(self) -> Any:
        """scikit-learn's description of this estimator: a transformer of tables with text and missing values.

        scikit-learn is imported only when it asks (it is not needed otherwise).
        """
        from sklearn.utils import InputTags, Tags, TargetTags, TransformerTags

        return Tags(estimator_type=None, target_tags=TargetTags(required=False), transformer_tags=TransformerTags(),
                    no_validation=True, non_deterministic=False,
                    input_tags=InputTags(two_d_array=True, categorical=True, string=True, allow_nan=True))

    @property
    def _options(self) -> dict[str, Any]:
        """The method's options as given (an empty mapping when none)."""
        return dict(self.method_options or {})

    def _check_params(self) -> None:
        """Refuse parameters that cannot describe a run, with a one-line ConfigError (before any data is read)."""
        method, pick, requirements = self.method, self.pick, self.requirements
        spec = registry.get(method)
        spec.check_options(self._options)
        if pick is not None and (isinstance(pick, bool) or not isinstance(pick, int) or pick < 0):
            raise ConfigError(f"pick must be an int >= 0; got {pick!r}")
        if pick is not None and not spec.ranked:
            raise ConfigError(f"pick (--pick) chooses an entry of a research-value search's success list or a member"
                              f" of a trade-off front; method {method!r} returns one release, so drop it")
        if not isinstance(self.allow_unprotected, bool):
            raise ConfigError(f"allow_unprotected must be True or False; got {self.allow_unprotected!r}")
        spec.check_requirements(requirements)
        if spec.family is not Family.FRONT and not self.allow_unprotected and not protects(requirements):
            raise ConfigError(f"the requirements ({requirements.describe()}) protect nothing: the release would be"
                              " the input itself; set k >= 2 or another privacy model (or allow an unprotected"
                              " release by name: allow_unprotected / --allow-unprotected)")
        if self.on_violation not in ("raise", "warn"):
            raise ConfigError(f"on_violation must be 'raise' or 'warn'; got {self.on_violation!r}")
        output_table = self.output_table
        if output_table is not None:
            if not isinstance(output_table, (str, tuple)):
                raise ConfigError(f"output_table must be a table name such as 'schema.name'; got {output_table!r}")
            try:
                table_parts(output_table)
            except DataError as exc:
                raise ConfigError(f"output_table: {exc}") from None
        if not isinstance(self.replace_output, bool):
            raise ConfigError(f"replace_output must be True or False; got {self.replace_output!r}")

    # ------------------------------------------------------------------ fit
    def fit(self, data: pd.DataFrame | pa.Table | Dataset, y: object = None, *, source: str = "<DataFrame>",
            engine: Engine | None = None) -> Anonymizer:
        """Search the recoding on ``data``; sets ``levels_``, ``release_``, ``dataset_``, ``result_``; returns self.

        Every warning of the release (``release_.warnings``) is also issued as
        an :class:`~anonset.errors.AnonsetWarning`.

        Parameters
        ----------
        data : pandas.DataFrame, pyarrow.Table or Dataset
            The records (a table read by
            :func:`anonset.io.tables.read_arrow_table` is encoded without
            turning its values into Python objects), or a dataset: in memory,
            or built from the profile of a table that stays in a database
            (:func:`anonset.engine.sql.profile.dataset_from_table`).
        y : ignored
            Accepted so that a scikit-learn pipeline can pass its labels; a
            column the release should keep as a label is declared with role
            ``target`` in ``attributes``.
        source : str
            How messages name a DataFrame.
        engine : Engine, optional
            The engine that computes class statistics, built for this very
            dataset with (at least) ``requirements.request``; default a
            :class:`~anonset.engine.NumpyEngine`.  A dataset that lives in a
            database needs an engine over its table that has a release sink
            (:func:`anonset.release.sinks.sink_factory`: a
            :class:`~anonset.engine.sql.engine.SqlEngine`); its release is
            written into ``output_table`` in the same database and re-checked
            there (``release_.table`` is then ``None``, ``release_.location``
            names the table and ``sink_`` is the sink).  The caller owns the
            engine and closes it.

        Raises
        ------
        ConfigError
            Bad parameters, an engine built for another dataset, or a
            database dataset without an engine that has a sink, or without
            ``output_table``.
        DataError
            The output table exists (without ``replace_output``), or a
            query fails.
        InfeasibleError
            No node satisfies the requirements.
        """
        # one task over the whole fit, so that progress is shown for a long fit of short steps too
        with progress_task(f"anonymizing ({self.method})"):
            self._fit(data, source, engine)
        _warn_user(self.release_.warnings)
        return self

    def _fit(self, data: pd.DataFrame | pa.Table | Dataset, source: str, engine: Engine | None) -> Anonymizer:
        """The body of :meth:`fit`."""
        clock = StageClock()
        dataset = data if isinstance(data, Dataset) else Dataset(data, self.attributes, source=source)
        clock.lap("encode")
        _require_quasi(dataset)
        metric = self._metric()
        self.requirements.validate(dataset)
        if metric.needs_rows:
            raise ConfigError(f"metric {metric.name!r} needs record-level detail and cannot guide the search"
                              f" (every release reports it); use one of {' | '.join(SEARCH_METRICS)}")
        if engine is not None:
            self._check_engine(engine, dataset)
        if dataset.in_memory:
            refuse_rare_values(dataset, self.requirements.k)
        spec = registry.get(self.method)
        if not dataset.in_memory:
            if spec.in_memory:
                anywhere = [n for n in registry.names() if not registry.get(n).in_memory]
                raise ConfigError(f"{dataset.source}: method {self.method!r} needs the records in memory; use engine:"
                                  f" numpy (or a method that runs in the database: {', '.join(anywhere)})")
            return self._fit_in_database(dataset, engine, metric, clock)
        if self.output_table is not None:
            raise ConfigError("output_table is where a table that lives in a database is released; this dataset"
                              " is in memory and its release is Release.table (write it with"
                              " anonset.io.tables.write_table)")
        _warn_single_class_targets(dataset)
        if spec.family is Family.GROUPING:
            return self._fit_partition(dataset, metric, clock)
        if spec.family is Family.FRONT:
            return self._fit_pareto(dataset, engine, metric, clock)
        if engine is None:
            engine = NumpyEngine(dataset, self.requirements.request)
        metric.prepare(dataset, engine)
        result = _node_result(spec, spec.fit(self._problem(dataset, engine, metric)))
        levels = self._picked(result, dataset)
        row_class, stats = engine.row_classes(levels)
        verdict = self.requirements.judge(stats, dataset.n_rows)
        partition = Partition.from_node(dataset.quasi, stats, verdict.kept, row_class)
        self.dataset_ = dataset
        self.levels_ = dict(zip(dataset.quasi, levels, strict=True))
        self.result_ = result
        self.metric_ = metric
        self.sink_ = None
        self.release_ = self._release(dataset, levels, partition, clock,
                                      search=self._search_facts(result, engine, metric),
                                      engine=engine.name, rows_fetched=engine.rows_fetched,
                                      binding=_binding(engine, self.requirements, levels, dataset.n_rows),
                                      input_sizes=_input_class_sizes(engine),
                                      keeping=self._keeping(engine, metric))
        return self

    def _fit_partition(self, dataset: Dataset, metric: Metric, clock: StageClock) -> Anonymizer:
        """Run a partitioning method: each class gets its own generalized values."""
        method_started = time.perf_counter()
        problem = self._problem(dataset, None, metric)
        spec = registry.get(self.method)
        grouping = spec.fit(problem)
        if not isinstance(grouping, Grouping):
            raise _broken_contract(spec, grouping, "a Grouping (row_class and assign)")
        partition = partition_of_assignment(dataset, grouping.row_class)
        self.dataset_ = dataset
        self.levels_ = None
        self.result_ = None
        self.grouping_ = grouping
        self.metric_ = metric
        self.sink_ = None
        # local recoding's classes may overlap; strict partitioning's regions never share a value
        overlap = not problem.options.get("strict", False)
        search = GroupingFacts(method_seconds=time.perf_counter() - method_started, classes=partition.n_classes,
                               largest_class=int(partition.sizes.max()) if partition.n_classes else 0,
                               ranges_may_overlap=bool(overlap))
        self.release_ = self._release(dataset, None, partition, clock, search=search)
        return self

    def _fit_pareto(self, dataset: Dataset, engine: Engine | None, metric: Metric, clock: StageClock) -> Anonymizer:
        """Find the front of minimal property based generalizations and release one member of it.

        The suppression budget η is ``requirements.max_suppression``; privacy
        is measured by the objectives.  The released member is member
        ``pick``, or, without a pick, the member that meets the floors of the
        requirements (``KAnonymity(K)``: its ``k`` >= K; ``DistinctLDiversity``:
        its ``l`` >= L) with the least loss.  Without either nothing could be
        chosen on the user's behalf, and ``fit`` refuses before any work.
        The released member is re-verified against the privacy it claims:
        k-anonymity with its ``k`` (the η rule's) and, when ``l`` is an
        objective, distinct l-diversity with its ``l``.  A dataset that lives
        in a database or on Spark is searched through its engine and the
        member released through the engine's sink, re-checked where written.
        """
        floors = self._front_floors()
        if self.pick is None and not floors:
            raise ConfigError(f"method {self.method!r} finds a front of releases and releases one only when told"
                              " which: pick a member (--pick N; run without an output to see the front) or state"
                              " a floor such as privacy.k (KAnonymity(K) in the API)")
        sink = None
        if not dataset.in_memory:  # released where the records are, through the engine's sink
            engine, sink = self._engine_sink(dataset, engine)
        result = self._front(dataset, engine)
        index = self._chosen_member(result, floors)
        member = result.front[index]
        levels = member.levels
        eta = self.requirements.max_suppression
        if engine is None:
            engine = NumpyEngine(dataset, self.requirements.request)
        if sink is None:
            row_class, stats = engine.row_classes(levels)
        else:
            row_class, stats = None, engine.class_stats(levels)
        k = suppression_threshold(stats.sizes, budget_rows(eta, dataset.n_rows))
        partition = Partition.from_node(dataset.quasi, stats, stats.sizes >= k, row_class)
        claimed: list[PrivacyModel] = [KAnonymity(int(k))]
        if "l" in member.objectives:
            sensitive = self._options.get("sensitive") or dataset.sensitive[0]
            claimed.append(DistinctLDiversity(sensitive, member.objectives["l"]))
        release_requirements = Requirements(claimed, eta)
        if not self.allow_unprotected and not protects(release_requirements):
            raise ConfigError(f"member {index} of the front is 1-anonymous ({release_requirements.describe()}): it"
                              " protects nothing; pick another member, state a floor such as privacy.k, or allow"
                              " an unprotected release by name (--allow-unprotected)")
        self.release_requirements_ = release_requirements
        self.dataset_ = dataset
        self.levels_ = dict(zip(dataset.quasi, levels, strict=True))
        self.result_ = None
        self.front_ = result
        self.metric_ = metric
        self.sink_ = None
        search = FrontFacts.of(result, picked=index, chosen_by="pick" if self.pick is not None else "floor",
                               floors=floors, eta=eta)
        if sink is not None:
            violating = stats.sizes < k
            node = NodeRelease(engine=engine, levels=levels, violating_keys=stats.keys[violating],
                               suppressed_rows=partition.n_suppressed, requirements=release_requirements,
                               drop_suppressed=self.drop_suppressed,
                               withheld=tuple(self._withheld(dataset, stats.subset(violating).merged(),
                                                             release_requirements)))
            self.release_ = self._release_through(sink, node, partition, clock, search)
            self.sink_ = sink
            return self
        self.release_ = self._release(dataset, levels, partition, clock, search=search,
                                      requirements=release_requirements)
        return self

    def member_rule(self) -> str | None:
        """How a trade-off method chooses the member it releases: ``pick``, ``floor``, or None (it cannot).

        None for every other method, which returns one release.
        """
        if registry.get(self.method).family is not Family.FRONT:
            return None
        if self.pick is not None:
            return "pick"
        return "floor" if self._front_floors() else None

    def front(self, data: pd.DataFrame | pa.Table | Dataset, source: str = "<DataFrame>",
              engine: Engine | None = None) -> ParetoResult:
        """The front of a trade-off method (``pareto-*``) on ``data``, without releasing any member.

        Use it to look at the front before choosing a member (``pick``) or a
        floor.  The requirements may state floors; they do not filter the
        front returned here.
        """
        if registry.get(self.method).family is not Family.FRONT:
            fronts = [n for n in registry.names() if registry.get(n).family is Family.FRONT]
            raise ConfigError(f"front() is for the trade-off methods ({', '.join(fronts)}); method"
                              f" {self.method!r} returns one release: call fit()")
        dataset = data if isinstance(data, Dataset) else Dataset(data, self.attributes, source=source)
        _require_quasi(dataset)
        self.requirements.validate(dataset)
        if engine is not None:
            self._check_engine(engine, dataset)
        self._front_floors()
        return self._front(dataset, engine)

    def _front(self, dataset: Dataset, engine: Engine | None) -> ParetoResult:
        spec = registry.get(self.method)
        front = spec.fit(self._problem(dataset, engine, self._metric()))
        if not isinstance(front, ParetoResult):
            raise _broken_contract(spec, front, "a ParetoResult")
        return front

    def _front_floors(self) -> dict[str, float]:
        """The floors the requirements state for a front member: ``{"k": K, "l": L}`` (absent when trivial).

        A trade-off search takes k-anonymity and distinct l-diversity as floors
        on its members' ``k`` and ``l`` objectives; any other model is refused.
        """
        objectives = tuple(self._options.get("objectives", ("k", "glm")))
        floors: dict[str, float] = {}
        for m in self.requirements.models:
            if isinstance(m, KAnonymity):
                name, value = "k", float(m.k)
            elif isinstance(m, DistinctLDiversity):
                name, value = "l", float(m.l)
                sensitive = self._options.get("sensitive")
                if sensitive is not None and m.attribute != sensitive:
                    raise ConfigError(f"method {self.method!r}: the l floor is on {m.attribute!r} but the l objective"
                                      f" measures {sensitive!r}; use the same attribute")
            else:
                raise ConfigError(f"method {self.method!r} measures privacy through its objectives (k, l, s_k, s_l);"
                                  f" {m.describe()} cannot be a floor: keep k and distinct l-diversity only")
            if value <= 1:
                continue
            if name not in objectives:
                raise ConfigError(f"method {self.method!r}: a floor on {name} needs {name} among the objectives"
                                  f" (objectives: {', '.join(objectives)})")
            floors[name] = max(value, floors.get(name, value))
        return floors

    def _chosen_member(self, result: ParetoResult, floors: Mapping[str, float]) -> int:
        """Index of the member to release: ``pick``, or the least-loss member that meets every floor."""
        front = result.front
        meets = [all(m.objectives[name] >= value for name, value in floors.items()) for m in front]
        if self.pick is not None:
            if self.pick >= len(front):
                raise ConfigError(f"--pick {self.pick}: the front has {len(front)} members (0 to {len(front) - 1})")
            if not meets[self.pick]:
                raise ConfigError(f"--pick {self.pick}: that member ({_objective_text(front[self.pick])}) is below"
                                  f" the floor {_floor_text(floors)}; pick a member that meets it, or drop --pick")
            return self.pick
        candidates = [i for i, ok in enumerate(meets) if ok]
        if not candidates:
            best = max(front, key=lambda m: tuple(m.objectives[name] for name in floors))
            raise InfeasibleError(f"no member of the front meets the floor {_floor_text(floors)} within the"
                                  f" suppression budget; the front reaches {_objective_text(best)}")
        losses = [name for name in result.objectives if not OBJECTIVES[name].maximize]
        gains = [name for name in result.objectives if OBJECTIVES[name].maximize]

        def rank(i: int) -> tuple[float, ...]:
            m = front[i]
            return (*(m.objectives[n] for n in losses), float(m.suppressed_rows),
                    *(-m.objectives[n] for n in gains), float(i))

        return min(candidates, key=rank)

    def _search_facts(self, result: SearchResult, engine: Engine, metric: Metric) -> SearchFacts:
        """How the full-domain search found the release."""
        return SearchFacts.of(result, nodes_computed=engine.nodes_computed, optimized=metric.name,
                              picked=self.pick or 0)

    def _check_engine(self, engine: Engine, dataset: Dataset) -> None:
        """An engine passed to ``fit`` must belong to this dataset and carry the statistics the models need."""
        if engine.dataset is not dataset:
            raise ConfigError("the engine passed to fit() was built for another dataset; pass the dataset the"
                              " engine was built for (engine.dataset) as data")
        have = engine.request
        need = self.requirements.request
        if not (need.histograms <= have.histograms and need.moments <= have.moments):
            raise ConfigError("the engine passed to fit() lacks statistics the privacy models need; build it"
                              " with the requirements' request (requirements.request)")

    # ------------------------------------------------------------------ fit inside a database
    def _engine_sink(self, dataset: Dataset, engine: Engine | None) -> tuple[Engine, EngineSink]:
        """The engine of a dataset that lives in a database and the sink its release goes to (checked)."""
        factory = None if engine is None else sink_factory(engine.name)
        if engine is None or factory is None:
            raise ConfigError(f"{dataset.source}: the rows of this dataset stay in a database; pass"
                              " engine=SqlEngine(dataset, requirements.request, backend, table) to fit()")
        if self.output_table is None:
            raise ConfigError(f"{dataset.source}: a table in a database is released into a new table of the same"
                              " database; give Anonymizer(..., output_table='schema.name')")
        sink = factory(engine, self.output_table, self.replace_output)
        sink.check()
        return engine, sink

    def _fit_in_database(self, dataset: Dataset, engine: Engine | None, metric: Metric,
                         clock: StageClock) -> Anonymizer:
        """Search through the engine, release through its sink into ``output_table``, re-checked where written."""
        spec = registry.get(self.method)
        if spec.family is Family.FRONT:
            return self._fit_pareto(dataset, engine, metric, clock)
        engine, sink = self._engine_sink(dataset, engine)
        metric.prepare(dataset, engine)
        result = _node_result(spec, spec.fit(self._problem(dataset, engine, metric)))
        levels = self._picked(result, dataset)
        stats = engine.class_stats(levels)
        verdict = self.requirements.judge(stats, dataset.n_rows)
        partition = Partition.from_node(dataset.quasi, stats, verdict.kept)
        self.dataset_ = dataset
        self.levels_ = dict(zip(dataset.quasi, levels, strict=True))
        self.result_ = result
        self.metric_ = metric
        node = NodeRelease(engine=engine, levels=levels, violating_keys=stats.keys[verdict.violating],
                           suppressed_rows=partition.n_suppressed, requirements=self.requirements,
                           drop_suppressed=self.drop_suppressed,
                           withheld=tuple(self._withheld(dataset, stats.subset(verdict.violating).merged(),
                                                         self.requirements)))
        self.release_ = self._release_through(sink, node, partition, clock,
                                              self._search_facts(result, engine, metric),
                                              keeping=self._keeping(engine, metric))
        self.sink_ = sink
        return self

    def _release_through(self, sink: EngineSink, node: NodeRelease, partition: Partition, clock: StageClock,
                         search: SearchFacts | FrontFacts, keeping: Keeping | None = None) -> Release:
        """Stage the node's release in the sink, have it re-checked there, place it; discard it on any failure.

        Nothing is left behind on failure, and an output that is replaced
        goes only when the checked release is placed (see the sink).  The
        release is judged by the node's requirements (a front member's: the
        privacy it claims).
        """
        engine, dataset = node.engine, node.engine.dataset
        requirements = node.requirements
        clock.lap("search")
        reported, omitted = self._reported_metrics(dataset, in_memory=False)
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
            notices = self._notices(dataset, partition, requirements, useless, list(node.withheld),
                                    suppressed_counts_of_node(engine, node.levels, node.violating_keys), keeping,
                                    metrics.get(getattr(self, "metric_", self._metric()).name))
            risk = release_risk(_input_class_sizes(engine), report.released_sizes, report.suppressed_rows)
            clock.lap("verify")
        rows_fetched = engine.rows_fetched
        provenance = self._provenance(dataset, engine=engine.name, database=sink.database,
                                      output_table=sink.output_table)
        return Release(
            table=None, partition=partition, method=self.method,
            levels=dict(zip(dataset.quasi, node.levels, strict=True)),
            metrics=metrics, suppressed_rows=partition.n_suppressed, verified=True,
            requirements=requirements.describe(), models=tuple(requirements.parts()), withheld=node.withheld,
            search=search, seconds=clock.elapsed(),
            provenance=provenance, location=sink.location, engine=engine.name,
            rows_fetched=rows_fetched, omitted_metrics=omitted, classes=report.classes,
            smallest_class=report.min_class_size,
            warnings=tuple(notices + undeclared), risk=risk,
            stages=clock.times(),
        )

    def _withheld(self, dataset: Dataset, group: ClassStats, requirements: Requirements) -> list[str]:
        """The models the suppressed records' group breaks, when their sensitive values must be withheld, else []."""
        return [] if self.drop_suppressed else suppressed_group_violations(dataset, group, requirements)

    def _notices(self, dataset: Dataset, partition: Partition, requirements: Requirements, useless: str | None,
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

    def _keeping(self, engine: Engine, metric: Metric) -> Keeping:
        """For a full-domain release: the cheapest feasible release that keeps a lost attribute, in words.

        The exact search again, on the part of the lattice where the
        attribute stays at or below the highest level that still tells two of
        its values apart; when the node it finds still releases one value of
        the attribute (its other values are suppressed), the text says so.
        Left out (None) when the metric gives the search no bound and that
        part of the lattice is large.
        """
        dataset = engine.dataset
        full = [h.max_level for h in dataset.hierarchies]

        def describe(lost: LostAttribute, current: float | None) -> str | None:
            if lost.keep_level is None:
                return None
            j = dataset.quasi.index(lost.name)
            capped = Lattice([lost.keep_level if i == j else m for i, m in enumerate(full)], dataset.quasi)
            if metric.node_bounds(dataset, capped.nodes[:1]) is None and capped.size > 5_000:
                return _WEIGHTS_HINT.format(name=lost.name)
            from anonset.methods.full_domain.search import optimal_search

            try:
                with progress_reporting(None):  # a short second search: not a progress bar of its own
                    found = optimal_search(dataset, engine, self.requirements, metric, lattice=capped)
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

    def _problem(self, dataset: Dataset, engine: Engine | None, metric: Metric) -> Problem:
        """What the method's ``fit`` receives: the options checked and completed with their defaults."""
        options = registry.get(self.method).check_options(self._options)
        return Problem(dataset=dataset, requirements=self.requirements, engine=engine, metric=metric,
                       weights=self.weights, seed=self.seed, options=options)

    def _metric(self) -> Metric:
        if isinstance(self.metric, Metric):
            return self.metric
        spec = registry.get(self.method)
        name = spec.default_metric if self.metric is None else self.metric
        if spec.metrics is not None and name not in spec.metrics:
            raise ConfigError(f"method {self.method!r} optimizes {' | '.join(sorted(spec.metrics))}; drop the metric"
                              f" {name!r} or choose another method")
        if name == "research_value":
            return ResearchValue()
        return make_metric(name, weights=self.weights, k=self.requirements.k)

    def _picked(self, result: SearchResult, dataset: Dataset) -> tuple[int, ...]:
        """The levels to release: the search's choice, or entry ``pick`` of its success list."""
        if not self.pick:
            return result.levels
        entries = cast("list[dict[str, Any]]", result.details.get("success_list") or [])
        if self.pick >= len(entries):
            raise ConfigError(f"--pick {self.pick}: the success list has {len(entries)} entries (0 to"
                              f" {len(entries) - 1})")
        chosen = entries[self.pick]["levels"]
        return tuple(int(chosen[q]) for q in dataset.quasi)

    @overload
    def fit_transform(self, data: pd.DataFrame | pa.Table | Dataset, y: object = None, *, source: str = ...,
                      engine: Engine | None = ..., return_release: Literal[False] = ...) -> pd.DataFrame: ...

    @overload
    def fit_transform(self, data: pd.DataFrame | pa.Table | Dataset, y: object = None, *, source: str = ...,
                      engine: Engine | None = ..., return_release: Literal[True]) -> Release: ...

    def fit_transform(self, data: pd.DataFrame | pa.Table | Dataset, y: object = None, *,
                      source: str = "<DataFrame>", engine: Engine | None = None,
                      return_release: bool = False) -> pd.DataFrame | Release:
        """Fit on ``data`` (see :meth:`fit`) and return its released records, as :meth:`transform` returns them.

        With ``return_release=True`` the :class:`Release` itself (also
        ``release_`` after the fit).  A release written into a database has
        no records in memory: ask for the release.
        """
        release = self.fit(data, y, source=source, engine=engine).release_
        return release if return_release else _released_frame(release, data, self.dataset_)

    # ------------------------------------------------------------------ transform
    @overload
    def transform(self, data: pd.DataFrame | pa.Table | Dataset, *, source: str = ...,
                  return_release: Literal[False] = ...) -> pd.DataFrame: ...

    @overload
    def transform(self, data: pd.DataFrame | pa.Table | Dataset, *, source: str = ...,
                  return_release: Literal[True]) -> Release: ...

    def transform(self, data: pd.DataFrame | pa.Table | Dataset, *, source: str = "<DataFrame>",
                  return_release: bool = False) -> pd.DataFrame | Release:
        """Apply the learned recoding to new records and re-check the requirements on them.

        Returns the released records as a DataFrame with the index of
        ``data`` (the rows of suppressed records kept, with ``*`` in their
        quasi-identifiers, unless ``drop_suppressed``); the columns a release
        does not change (insensitive, target, and sensitive ones unless the
        suppressed records' values were withheld) keep the dtypes they had.
        With ``return_release=True`` the :class:`Release` instead: its
        figures, warnings and re-check.  Every warning of the release is also
        issued as an :class:`~anonset.errors.AnonsetWarning`.

        Classes of the new release that violate the requirements are
        suppressed while the budget allows; beyond it the configured
        ``on_violation`` applies (raise :class:`InfeasibleError` or warn).
        A record the fitted recoding does not cover (a category it never
        saw; for a partitioning method also a number or date outside the
        range its classes were learned on) raises a one-line
        :class:`~anonset.errors.InputError` naming the column and values.
        The new records must be in memory (a DataFrame, an Arrow table, or a
        Dataset holding one); a table in a database cannot be transformed yet.
        """
        release = self._transform(data, source)
        _warn_user(release.warnings)
        return release if return_release else _released_frame(release, data, self.dataset_)

    def _transform(self, data: pd.DataFrame | pa.Table | Dataset, source: str = "<DataFrame>") -> Release:
        """The body of :meth:`transform`: the release of the new records."""
        if not hasattr(self, "levels_"):
            raise ConfigError("this Anonymizer is not fitted yet; call fit() first")
        if isinstance(data, Dataset):
            if not data.in_memory:
                raise ConfigError(f"{data.source}: transform() is not supported for tables in a database yet;"
                                  " fit on that table instead, or pass the new records as a DataFrame")
            source = data.source
            data = data.arrow if data.arrow is not None else cast(pd.DataFrame, data.table)
        clock = StageClock()
        fitted = self.dataset_
        columns = set(map(str, data.column_names if isinstance(data, pa.Table) else data.columns))
        specs = {name: s for name, s in fitted.resolved_specs().items()
                 if name in columns and name in fitted.attributes}  # an undeclared column stays undeclared
        try:
            dataset = Dataset(data, specs, source=source)
        except HierarchyError as exc:
            raise HierarchyError(f"new records the recoding fitted on {fitted.source} does not cover: {exc}; or refit"
                                 " on data that includes them") from None
        clock.lap("encode")
        self.requirements.validate(dataset, new_rows=True)
        refuse_rare_values(dataset, self.requirements.k)
        if self.levels_ is None:
            return self._transform_partition(dataset, clock)
        # a front member is re-checked against the privacy it claims (its k and l under η)
        front = registry.get(self.method).family is Family.FRONT
        requirements = self.release_requirements_ if front else self.requirements
        engine = NumpyEngine(dataset, requirements.request)
        levels = tuple(self.levels_[q] for q in dataset.quasi)
        row_class, stats = engine.row_classes(levels)
        verdict = requirements.judge(stats, dataset.n_rows)
        if not verdict.feasible:
            message = (f"the learned recoding {self.levels_} applied to {source} leaves {verdict.suppressed_rows}"
                       f" records in classes violating {requirements.describe()}; the budget allows"
                       f" {verdict.budget_rows}")
            if self.on_violation == "raise":
                raise InfeasibleError(message + "; refit on more data or relax the requirements")
            warnings.warn(message, ReleaseViolation, stacklevel=_user_stacklevel())
            kept = np.ones(stats.n_classes, dtype=np.bool_)
            partition = Partition.from_node(dataset.quasi, stats, kept, row_class)
            return self._release(dataset, levels, partition, clock, search=TransformFacts(), check=False,
                                 requirements=requirements)
        partition = Partition.from_node(dataset.quasi, stats, verdict.kept, row_class)
        return self._release(dataset, levels, partition, clock, search=TransformFacts(),
                             requirements=requirements)

    def _transform_partition(self, dataset: Dataset, clock: StageClock) -> Release:
        """Place new records into the fitted classes, grow the classes' values, re-check the requirements."""
        _check_fitted_range(self.dataset_, dataset)
        row_class = self.grouping_.assign(dataset)
        partition = grown_partition(self.dataset_, self.grouping_.row_class, dataset, row_class)
        assert partition.row_class is not None
        stats = stats_from_assignment(dataset, partition.row_class, self.requirements.request)
        verdict = self.requirements.judge(stats, dataset.n_rows)
        search = TransformFacts(classes=partition.n_classes)
        if verdict.violating.any() or partition.n_suppressed > verdict.budget_rows:
            message = (f"the learned {self.method} classes applied to {dataset.source} leave"
                       f" {verdict.suppressed_rows} records in classes violating {self.requirements.describe()}"
                       + (f" and {partition.n_suppressed} records that fit no class" if partition.n_suppressed
                          else "") + " (a partitioning method suppresses nothing)")
            if self.on_violation == "raise":
                raise InfeasibleError(message + "; refit on more data or relax the requirements")
            warnings.warn(message, ReleaseViolation, stacklevel=_user_stacklevel())
            return self._release(dataset, None, partition, clock, search=search, check=False)
        return self._release(dataset, None, partition, clock, search=search)

    # ------------------------------------------------------------------ release
    def _reported_metrics(self, dataset: Dataset, in_memory: bool = True) -> tuple[list[Metric], dict[str, str]]:
        """The metrics a release reports, and those left out (with the reason) when the rows are not in memory."""
        reported = reported_metrics(dataset, self.requirements.k, self.weights)
        optimized = getattr(self, "metric_", None)
        if optimized is not None and optimized.name not in {m.name for m in reported}:
            reported.append(optimized)
        if in_memory:
            return reported, {}
        omitted = {m.name: "needs record-level rows, which stay in the database" for m in reported if m.needs_rows}
        return [m for m in reported if not m.needs_rows], omitted

    def _provenance(self, dataset: Dataset, engine: str | None = None, database: str | None = None,
                    output_table: str | None = None) -> Provenance:
        return Provenance(
            anonset=__version__, python=platform.python_version(), numpy=np.__version__, pandas=pd.__version__,
            seed=self.seed, method=self.method,
            metric=self.metric if isinstance(self.metric, str) or self.metric is None else self.metric.name,
            method_options=self._options, source=dataset.source,
            requirements=tuple(m.summary() for m in self.requirements.models),
            max_suppression=self.requirements.max_suppression,
            engine=engine, database=database, output_table=output_table,
        )

    def _release(self, dataset: Dataset, levels: tuple[int, ...] | None, partition: Partition, clock: StageClock,
                 search: MethodFacts, check: bool = True, engine: str = "numpy",
                 rows_fetched: int | None = None, requirements: Requirements | None = None,
                 binding: Callable[[], list[str]] | None = None,
                 input_sizes: NDArray[np.int64] | None = None, keeping: Keeping | None = None) -> Release:
        """Render, score and re-check a release (full-domain node, or any partition when ``levels`` is None).

        ``input_sizes``: the input's class sizes when an engine already counted them (its bottom node), for
        the risk section; else they are counted from the encoded records.
        ``requirements``: what the release is re-checked against (default the
        configured ones).  The release's classes are those the re-check
        recomputed from the released values; its warnings say when it is
        useless (``binding`` names the models that forced that), when it
        withheld the suppressed records' sensitive values, lost an attribute
        (``keeping`` describes the cheapest release that keeps it), or
        suppressed mostly one value, and which undeclared columns it releases
        unchanged (one that could single people out is refused).
        """
        requirements = requirements or self.requirements
        assert partition.row_class is not None
        clock.lap("search")
        suppressed = partition.row_class < 0
        reported, _ = self._reported_metrics(dataset)
        verified = False
        classes: int | None = None
        smallest: int | None = None
        warnings_: list[str] = []
        risk: dict[str, Any] | None = None
        group = group_of_rows(dataset, suppressed, requirements) if dataset.sensitive and suppressed.any() else None
        withheld = [] if group is None else self._withheld(dataset, group, requirements)
        withhold = bool(withheld)
        with progress_task("releasing: rendering", total=1 + len(reported) + int(check), unit="steps") as bar:
            if levels is None:
                table = render_partition(dataset, partition, self.drop_suppressed, withhold)
            else:
                table = render_full_domain(dataset, levels, suppressed, self.drop_suppressed, withhold)
            refuse_splitting(table, dataset, requirements.k)
            clock.lap("release")
            bar.update(completed=1, description="releasing: scoring")
            metrics = _scores(reported, partition, dataset, bar)
            clock.lap("metrics")
            if check:
                bar.update(description="releasing: re-checking")
                report = verify_release(table, dataset, requirements, dataset.n_rows)
                require_verified(report)
                verified = True
                classes, smallest = report.classes, report.min_class_size
                before = class_sizes_of_codes(dataset.qi_codes()) if input_sizes is None else input_sizes
                risk = release_risk(before, report.released_sizes,
                                    report.suppressed_rows)
                useless = useless_release(classes, report.suppressed_rows, dataset.n_rows, requirements,
                                          binding() if binding is not None and classes <= 1 else None)
                note = undeclared_note(undeclared_columns(dataset, tuple(map(str, table.columns))))
                warnings_ = self._notices(dataset, partition, requirements, useless, withheld,
                                          suppressed_counts_of_rows(dataset, suppressed), keeping,
                                          metrics.get(getattr(self, "metric_", self._metric()).name))
                warnings_ += [note] if note else []
                clock.lap("verify")
                bar.advance()
        return Release(
            table=table, partition=partition, method=self.method,
            levels=None if levels is None else dict(zip(dataset.quasi, levels, strict=True)),
            metrics=metrics, suppressed_rows=int(suppressed.sum()), verified=verified,
            requirements=requirements.describe(), models=tuple(requirements.parts()), withheld=tuple(withheld),
            search=search,
            seconds=clock.elapsed(), stages=clock.times(),
            provenance=self._provenance(dataset), engine=engine, rows_fetched=rows_fetched,
            warnings=tuple(warnings_), classes=classes, smallest_class=smallest, risk=risk,
        )


def anonymize(data: pd.DataFrame | pa.Table | Dataset,
              attributes: Mapping[str, AttributeSpec | Mapping[str, Any]] | None = None,
              *, requirements: Requirements, method: str = "optimal", metric: str = "loss",
              engine: Engine | None = None, **options: Any) -> Release:
    """One-call anonymization: the :class:`Release` of ``Anonymizer(...).fit(data, engine=engine)``."""
    return Anonymizer(attributes or {}, requirements, method=method, metric=metric,
                      **options).fit(data, engine=engine).release_


def _released_frame(release: Release, data: pd.DataFrame | pa.Table | Dataset, fitted: Dataset) -> pd.DataFrame:
    """The released records as a DataFrame indexed like ``data``, unchanged columns with their own dtypes.

    ``data`` is what :meth:`Anonymizer.fit` or :meth:`Anonymizer.transform`
    was given; the release keeps its rows in that order (the suppressed ones
    dropped with ``drop_suppressed``).  The columns taken back from a
    DataFrame given as it was: every column that is not a quasi-identifier,
    except sensitive ones whose suppressed records' values were withheld
    (roles as ``fitted``, the dataset the recoding was learned on, declares them).
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
    for name in out.columns:
        spec = fitted.specs.get(str(name))
        role = Role.INSENSITIVE if spec is None else spec.role
        if role is Role.QUASI or (role is Role.SENSITIVE and release.withheld):
            continue
        out[name] = frame[name].iloc[rows].set_axis(out.index)
    return out


def _check_fitted_range(fitted: Dataset, new: Dataset) -> None:
    """Refuse new records whose value lies outside the range the classes were learned on.

    A class would have to widen beyond the data it was learned on (a class
    ``57-60`` becoming ``57-150`` for one new record), which is a new
    generalization no check was made for when fitting.
    """
    for q in new.quasi:
        new_values = row_values(new, q)
        fitted_values = row_values(fitted, q)
        if new_values is None or fitted_values is None or not len(fitted_values):
            continue
        lo, hi = float(np.nanmin(fitted_values)), float(np.nanmax(fitted_values))
        outside = np.flatnonzero((new_values < lo) | (new_values > hi))
        if len(outside):
            new_column, fitted_column = new.column(q), fitted.column(q)
            shown = new_column.iloc[outside[:3]].astype(str).tolist()
            low, high = (str(fitted_column.iloc[int(np.nanargmin(fitted_values))]),
                         str(fitted_column.iloc[int(np.nanargmax(fitted_values))]))
            raise DataError(f"{new.source}, column {q!r}: {len(outside)} new record(s) outside the range the classes"
                            f" were learned on ({low} to {high}), e.g. {', '.join(repr(v) for v in shown)}; the"
                            " learned classes cannot take them without widening beyond their data: refit on data"
                            " that includes them, or remove them")


def _warn_single_class_targets(dataset: Dataset) -> None:
    """Warn about a target column with one class only: CM is 0 whatever the release, and no method can use it."""
    for name, spec in dataset.specs.items():
        if spec.role is Role.TARGET and name in dataset.columns:
            values = dataset.column(name).astype(str).unique()
            if len(values) == 1:
                warnings.warn(f"{dataset.source}, column {name!r}: the target has one class only ({values[0]!r});"
                              " the classification metric (cm) is 0 for every release and class_penalty has no"
                              " effect", AnonsetWarning, stacklevel=_user_stacklevel())


def _scores(metrics: Sequence[Metric], partition: Partition, dataset: Dataset, bar: Task) -> dict[str, float]:
    """Each metric's score of the release's partition, one step of ``bar`` per metric."""
    out: dict[str, float] = {}
    for m in metrics:
        out[m.name] = float(m.score(partition, dataset))
        bar.advance()
    return out


def _input_class_sizes(engine: Engine) -> NDArray[np.int64]:
    """Class sizes of the engine's dataset on its quasi-identifiers: its bottom node, which every engine counts."""
    return engine.class_stats(tuple(0 for _ in engine.dataset.quasi)).sizes


def _binding(engine: Engine, requirements: Requirements, levels: tuple[int, ...],
             n_rows: int) -> Callable[[], list[str]]:
    """The models that hold a full-domain release at ``levels``, computed only when asked."""
    return lambda: binding_models(engine, requirements, levels, n_rows)


def _node_result(spec: Method, result: object) -> SearchResult:
    """A full-domain method's result, or an error naming the method that broke its family's contract."""
    if not isinstance(result, SearchResult):
        raise _broken_contract(spec, result, "a SearchResult")
    return result


def _broken_contract(spec: Method, result: object, promised: str) -> TypeError:
    return TypeError(f"method {spec.name!r} ({spec.family.value}) returned {type(result).__name__}, not {promised}"
                     " as its family promises (this is a bug in the method's module)")


def protects(requirements: Requirements) -> bool:
    """Whether the requirements protect anything: a model beyond 1-anonymity, 1-diversity, t >= 1 or a risk of 1.

    A risk bound of 1 (average risk, sample or population uniqueness) holds for every table, as
    highest risk 1 is 1-anonymity.
    """
    from anonset.privacy.ldiversity import EntropyLDiversity, RecursiveCLDiversity
    from anonset.privacy.risk_models import AverageRisk, PopulationUniqueness, SampleUniqueness
    from anonset.privacy.tcloseness import TCloseness

    for m in requirements.models:
        if isinstance(m, KAnonymity):
            if m.k >= 2:
                return True
        elif isinstance(m, (DistinctLDiversity, EntropyLDiversity, RecursiveCLDiversity)):
            if m.l > 1:
                return True
        elif isinstance(m, TCloseness):
            if m.t < 1:
                return True
        elif isinstance(m, AverageRisk):
            if m.r < 1:
                return True
        elif isinstance(m, (SampleUniqueness, PopulationUniqueness)):
            if m.u < 1:
                return True
        else:
            return True
    return False


def _require_quasi(dataset: Dataset) -> None:
    """Refuse a dataset without quasi-identifiers: its release would be the input itself."""
    if not dataset.quasi:
        raise ConfigError(f"{dataset.source}: no attribute has role quasi, so nothing would be generalized and the"
                          " release would be the input itself; declare the quasi-identifiers (role: quasi)")


def _objective_text(member: FrontMember) -> str:
    return ", ".join(f"{name} = {value:g}" for name, value in member.objectives.items())


def _floor_text(floors: Mapping[str, float]) -> str:
    return ", ".join(f"{name} >= {value:g}" for name, value in floors.items())


#: Describes the cheapest release that keeps a lost attribute, given the release's own score (None: unknown).
Keeping = Callable[[LostAttribute, float | None], str | None]

#: How to ask the search for a release that keeps an attribute.
_WEIGHTS_HINT = ("to prefer keeping {name!r}, give it a larger weight (method.weights in the config, weights= in the"
                 " API)")


def _warn_user(messages: Sequence[str]) -> None:
    """Issue each of a release's warnings as an :class:`~anonset.errors.AnonsetWarning`, pointing at the caller."""
    level = _user_stacklevel()
    for message in messages:
        warnings.warn(message, AnonsetWarning, stacklevel=level)


def _user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning issued here point at the first frame outside anonset."""
    import sys

    package = __name__.split(".")[0]
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == package:
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level

