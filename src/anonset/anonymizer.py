"""``Anonymizer``: learn a recoding on one table, apply it to new rows (scikit-learn style).

``fit`` runs a method and keeps the learned recoding — the full-domain node
(``levels_``) of a search, or the classes and placement rule (``grouping_``,
a :class:`~anonset.core.grouping.Grouping`) of a partitioning method —
and the release of the fitted table (``release_``); ``transform`` applies the
same recoding to new records and re-checks every privacy model on the new
release — the guarantee does not carry over by itself.  Every release is
verified independently before it is returned.

The Anonymizer checks its parameters and its inputs and keeps what a fit
learned; fitting the method of each family and releasing its result, in
memory or through an engine's sink, is :mod:`anonset.release.fitting`.  It
holds no SQL and names no engine class.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

import pandas as pd
import pyarrow as pa

from anonset.core.dataset import AttributeSpec, Dataset
from anonset.engine.base import Engine
from anonset.engine.sql.base import TableName, table_parts
from anonset.errors import AnonsetWarning, ConfigError, DataError, InfeasibleError
from anonset.methods import registry
from anonset.methods.base import Family
from anonset.methods.full_domain.search import SearchResult
from anonset.methods.pareto import release_policy as pareto
from anonset.methods.pareto.objectives import ParetoResult
from anonset.metrics import SEARCH_METRICS
from anonset.metrics.base import Metric
from anonset.privacy.base import Requirements
from anonset.progress import task as progress_task
from anonset.recheck.undeclared import refuse_rare_values
from anonset.release.build import ReleaseSettings, release_in_memory, released_frame, user_stacklevel, warn_user
from anonset.release.facts import TransformFacts
from anonset.release.fitting import check_engine, find_front, fit_method, optimized_metric
from anonset.release.perturbation import check_treatments, treatments
from anonset.release.reapply import grouping_on_new_records, new_records, node_on_new_records
from anonset.release.release import Release
from anonset.release.sampling import sample_records
from anonset.release.stages import StageClock
from anonset.sinks.base import EngineSink

__all__ = ["Anonymizer", "ReleaseViolation", "anonymize", "protects"]


@dataclass(frozen=True)
class _Rule:
    """A rule a constructor parameter must meet: ``check(value, parameters)`` true, else a one-line ConfigError.

    ``message`` is formatted with ``value`` and the parameters by name (the
    requirements as described).  A rule without a message is a check that
    raises its own one-line ConfigError (the method's declaration does).
    """

    name: str
    check: Callable[[Any, Mapping[str, Any]], object]
    message: str | None = None


def _table_name(table: Any, params: Mapping[str, Any]) -> None:
    """Refuse an output table name that cannot be split into parts, in one line."""
    if table is not None:
        try:
            table_parts(table)
        except DataError as exc:
            raise ConfigError(f"output_table: {exc}") from None


#: The constructor's parameters, in its order: what ``get_params`` returns and ``set_params`` accepts.
_PARAMETERS = ("attributes", "requirements", "method", "metric", "weights", "drop_suppressed", "on_violation", "seed",
               "method_options", "pick", "output_table", "replace_output", "allow_unprotected", "perturbation")

#: The rules they must meet, in the order they are checked (the method first: the other rules ask it what it
#: takes).  A parameter left None (optional) meets the rules of its type.
_RULES = (
    _Rule("method", lambda method, _: registry.get(method)),
    _Rule("method_options", lambda options, p: registry.get(p["method"]).check_options(dict(options or {}))),
    _Rule("pick", lambda pick, _: pick is None or (not isinstance(pick, bool) and isinstance(pick, int) and pick >= 0),
          "pick must be an int >= 0; got {value!r}"),
    _Rule("pick", lambda pick, p: pick is None or registry.get(p["method"]).ranked,
          "pick (--pick) chooses an entry of a research-value search's success list or a member of a trade-off"
          " front; method {method!r} returns one release, so drop it"),
    _Rule("allow_unprotected", lambda value, _: isinstance(value, bool),
          "allow_unprotected must be True or False; got {value!r}"),
    _Rule("requirements", lambda requirements, p: registry.get(p["method"]).check_requirements(requirements)),
    # a front's requirements are floors: the member it releases is judged instead (pareto.refuse_unprotected)
    _Rule("requirements", lambda requirements, p: registry.get(p["method"]).family is Family.FRONT
          or p["allow_unprotected"] or requirements.protects,
          "the requirements ({requirements}) protect nothing: the release would be the input itself; set k >= 2 or"
          " another privacy model (or allow an unprotected release by name: allow_unprotected / --allow-unprotected)"),
    _Rule("on_violation", lambda value, _: value in ("raise", "warn"),
          "on_violation must be 'raise' or 'warn'; got {value!r}"),
    _Rule("output_table", lambda table, _: table is None or isinstance(table, (str, tuple)),
          "output_table must be a table name such as 'schema.name'; got {value!r}"),
    _Rule("output_table", _table_name),
    _Rule("replace_output", lambda value, _: isinstance(value, bool),
          "replace_output must be True or False; got {value!r}"),
    _Rule("perturbation", lambda value, _: treatments(value)),
)


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
    perturbation : sequence of mapping, optional
        Perturbations of attributes that are not quasi-identifiers, applied
        in order to the released table after the method, seeded by ``seed``,
        before the release is re-checked: ``{"pram": ["occupation"], "pd":
        0.8}``, ``{"noise": ["income"], "percent": 150}``, ``{"top_code":
        ["income"], "above": 100000}``, ``{"bottom_code": [...], "below":
        ...}`` (see :mod:`anonset.release.perturbation`).  The records must
        be in memory.
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
                 allow_unprotected: bool = False, perturbation: Sequence[Mapping[str, Any]] | None = None):
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
        self.perturbation = perturbation
        self._check_params()

    # ------------------------------------------------------------------ parameters (scikit-learn's protocol)
    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's parameters as set (scikit-learn's protocol: ``sklearn.base.clone`` uses it).

        ``deep`` is accepted for scikit-learn; an Anonymizer holds no other estimator.
        """
        del deep
        return {name: getattr(self, name) for name in _PARAMETERS}

    def set_params(self, **params: Any) -> Anonymizer:
        """Set constructor parameters (checked as the constructor checks them) and return the Anonymizer.

        A fitted Anonymizer keeps its fitted state until it is fitted again.

        Raises
        ------
        ConfigError
            An unknown parameter name, or a value the constructor refuses
            (the parameters are then left as they were).
        """
        unknown = [name for name in params if name not in _PARAMETERS]
        if unknown:
            raise ConfigError(f"Anonymizer has no parameter {unknown[0]!r}; its parameters are"
                              f" {', '.join(_PARAMETERS)}")
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

    def _check_params(self) -> None:
        """Refuse parameters that cannot describe a run (``_RULES``), with a one-line ConfigError, before any data."""
        params = self.get_params()
        for rule in _RULES:
            value = params[rule.name]
            if not rule.check(value, params) and rule.message is not None:
                fields = {name: v.describe() if isinstance(v, Requirements) else v for name, v in params.items()}
                raise ConfigError(rule.message.format(value=value, **fields))

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
            (:func:`anonset.sinks.base.sink_factory`: a
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
        warn_user(self.release_.warnings)
        return self

    def _attributes_for_input(self) -> dict[str, Any]:
        """The attribute specs a table given to fit is encoded with (hierarchies built from a population, if any)."""
        return self.requirements.attributes_for(self.attributes)

    def _fit(self, data: pd.DataFrame | pa.Table | Dataset, source: str, engine: Engine | None) -> None:
        """The body of :meth:`fit`: check the inputs, fit the method (:func:`fit_method`), keep what it learned."""
        clock = StageClock()
        dataset = data if isinstance(data, Dataset) else Dataset(data, self._attributes_for_input(), source=source)
        clock.lap("encode")
        _require_quasi(dataset)
        dataset, sampled = sample_records(dataset, self.requirements, self.seed)
        metric = optimized_metric(self.method, self.metric, self.weights, self.requirements)
        self.requirements.validate(dataset)
        if metric.needs_rows:
            raise ConfigError(f"metric {metric.name!r} needs record-level detail and cannot guide the search"
                              f" (every release reports it); use one of {' | '.join(SEARCH_METRICS)}")
        if engine is not None:
            check_engine(engine, dataset, self.requirements)
        settings = self._settings(metric)
        if settings.perturbation:
            if not dataset.in_memory:
                raise ConfigError(f"{dataset.source}: perturbation changes the released table in memory; the"
                                  " records of this dataset stay in a database: leave perturbation out, or read"
                                  " the table into memory")
            check_treatments(dataset, settings.perturbation)
        if sampled is not None:  # no record of a class below k may be shown: the sample is all the guarantee covers
            settings = dataclasses.replace(settings, drop_suppressed=True)
        fitted = fit_method(settings, dataset, engine, clock, pick=self.pick,
                            output_table=self.output_table, replace_output=self.replace_output,
                            allow_unprotected=self.allow_unprotected)
        if sampled is not None:
            fitted = dataclasses.replace(fitted, release=dataclasses.replace(
                fitted.release, warnings=(sampled, *fitted.release.warnings)))
        self.dataset_, self.metric_, self.levels_ = fitted.dataset, fitted.metric, fitted.levels
        self.result_, self.release_, self.sink_ = fitted.result, fitted.release, fitted.sink
        # only the family that learns one sets grouping_, or front_ with the privacy its member claims
        if fitted.grouping is not None:
            self.grouping_ = fitted.grouping
        if fitted.front is not None:
            self.front_, self.release_requirements_ = fitted.front, fitted.release_requirements

    def member_rule(self) -> str | None:
        """How a trade-off method chooses the member it releases: ``pick``, ``floor``, or None (it cannot).

        None for every other method, which returns one release.
        """
        if registry.get(self.method).family is not Family.FRONT:
            return None
        if self.pick is not None:
            return "pick"
        return pareto.member_rule(None, pareto.front_floors(self.method, self.requirements, self._options))

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
        dataset = data if isinstance(data, Dataset) else Dataset(data, self._attributes_for_input(), source=source)
        _require_quasi(dataset)
        self.requirements.validate(dataset)
        if engine is not None:
            check_engine(engine, dataset, self.requirements)
        pareto.front_floors(self.method, self.requirements, self._options)
        metric = optimized_metric(self.method, self.metric, self.weights, self.requirements)
        return find_front(self._settings(metric), dataset, engine)

    def _settings(self, metric: Metric) -> ReleaseSettings:
        """What a fit and a release need of this Anonymizer: its parameters and the metric optimized."""
        named = self.metric if isinstance(self.metric, str) or self.metric is None else self.metric.name
        return ReleaseSettings(method=self.method, requirements=self.requirements, metric=metric,
                               named_metric=named, weights=self.weights, options=self._options, seed=self.seed,
                               drop_suppressed=self.drop_suppressed, perturbation=treatments(self.perturbation))

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
        return release if return_release else released_frame(release, data, self.dataset_)

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
        warn_user(release.warnings)
        return release if return_release else released_frame(release, data, self.dataset_)

    def _transform(self, data: pd.DataFrame | pa.Table | Dataset, source: str = "<DataFrame>") -> Release:
        """The body of :meth:`transform`: the release of the new records (:mod:`anonset.release.reapply`)."""
        if not hasattr(self, "levels_"):
            raise ConfigError("this Anonymizer is not fitted yet; call fit() first")
        sampling = self.requirements.sampling_model
        if sampling is not None:
            raise ConfigError(f"{sampling.describe()} covers the one sample its fit released; new records"
                              " get no guarantee from its recoding: fit a new release that includes them")
        clock = StageClock()
        dataset = new_records(data, self.dataset_, source)
        clock.lap("encode")
        self.requirements.validate(dataset, new_rows=True)
        refuse_rare_values(dataset, self.requirements.k)
        levels: tuple[int, ...] | None = None
        if self.levels_ is None:
            requirements = self.requirements
            partition, violation = grouping_on_new_records(self.dataset_, self.grouping_, dataset, requirements,
                                                           self.method)
            search = TransformFacts(classes=partition.n_classes)
        else:
            # a front member is re-checked against the privacy it claims (its k and l under η)
            front = registry.get(self.method).family is Family.FRONT
            requirements = self.release_requirements_ if front else self.requirements
            options = self._options
            levels, partition, violation = node_on_new_records(dataset, self.levels_, requirements,
                                                               cells=options.get("suppression") == "cells",
                                                               importance=options.get("importance"))
            search = TransformFacts()
        if violation is not None:
            if self.on_violation == "raise":
                raise InfeasibleError(violation + "; refit on more data or relax the requirements")
            warnings.warn(violation, ReleaseViolation, stacklevel=user_stacklevel())
        return release_in_memory(self._settings(self.metric_), dataset, levels, partition, clock, search=search,
                                 check=violation is None, requirements=requirements)


def anonymize(data: pd.DataFrame | pa.Table | Dataset,
              attributes: Mapping[str, AttributeSpec | Mapping[str, Any]] | None = None,
              *, requirements: Requirements, method: str = "optimal", metric: str = "loss",
              engine: Engine | None = None, **options: Any) -> Release:
    """One-call anonymization: the :class:`Release` of ``Anonymizer(...).fit(data, engine=engine)``."""
    return Anonymizer(attributes or {}, requirements, method=method, metric=metric,
                      **options).fit(data, engine=engine).release_


def protects(requirements: Requirements) -> bool:
    """Whether the requirements protect anything (:attr:`anonset.privacy.base.Requirements.protects`)."""
    return requirements.protects


def _require_quasi(dataset: Dataset) -> None:
    """Refuse a dataset without quasi-identifiers: its release would be the input itself."""
    if not dataset.quasi:
        raise ConfigError(f"{dataset.source}: no attribute has role quasi, so nothing would be generalized and the"
                          " release would be the input itself; declare the quasi-identifiers (role: quasi)")
