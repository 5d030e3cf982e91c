"""``Anonymizer``: learn a recoding on one table, apply it to new rows (scikit-learn style).

``fit`` runs a method (an exact full-domain search for now) and keeps the
learned recoding (``levels_``) and the release of the fitted table
(``release_``); ``transform`` applies the same recoding to new records and
re-checks every privacy model on the new release — the guarantee does not
carry over by itself.  Every release is verified by :mod:`anonset.verify`
before it is returned.
"""

from __future__ import annotations

import platform
import time
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from anonset import __version__
from anonset.dataset import AttributeSpec, Dataset
from anonset.engine import NumpyEngine
from anonset.errors import ConfigError, InfeasibleError
from anonset.metrics import make_metric, standard_metrics
from anonset.metrics.base import Metric
from anonset.metrics.research_value import ResearchValue
from anonset.partition import Partition
from anonset.privacy.base import Requirements
from anonset.release import Release, render_full_domain
from anonset.search.full_domain import SearchResult, exhaustive_search, optimal_search
from anonset.search.research_value import rv_global, rv_hybrid, rv_local, rv_partitioned
from anonset.verify import verify_release

__all__ = ["METHODS", "Anonymizer", "ReleaseViolation", "anonymize"]

SearchFunction = Callable[..., SearchResult]

#: Method name -> full-domain search.
METHODS: dict[str, SearchFunction] = {
    "optimal": optimal_search,
    "exhaustive": exhaustive_search,
    "rv-global": rv_global,
    "rv-local": rv_local,
    "rv-hybrid": rv_hybrid,
    "rv-partitioned": rv_partitioned,
}

#: Options each method accepts (``method_options``).
METHOD_OPTIONS: dict[str, frozenset[str]] = {
    "optimal": frozenset({"assume_practical_monotonicity"}),
    "rv-global": frozenset({"max_frequency_sets"}),
    "rv-hybrid": frozenset({"max_frequency_sets"}),
    "rv-partitioned": frozenset({"subset_size", "success_limit", "max_frequency_sets"}),
}

#: Methods that optimize research value (their default metric).
RESEARCH_VALUE_METHODS = frozenset({"rv-global", "rv-local", "rv-hybrid", "rv-partitioned"})


class ReleaseViolation(UserWarning):
    """A transformed release violates the privacy requirements (``on_violation='warn'``)."""


class Anonymizer:
    """Find a recoding that satisfies the privacy requirements with the best utility.

    Parameters
    ----------
    attributes : mapping of str to AttributeSpec or dict
        Roles, types and hierarchies by column.
    requirements : Requirements
        Privacy models and suppression budget.
    method : str
        Search method: ``optimal``, ``exhaustive``, or a research-value search
        (``rv-global``, ``rv-local``, ``rv-hybrid``, ``rv-partitioned``).
    metric : str or Metric, optional
        Utility metric the search optimizes (a name from :data:`anonset.metrics.METRICS`
        or an instance such as a configured ResearchValue); default ``loss``, or
        research value for the rv-* methods.
    weights : mapping of str to float, optional
        Attribute weights for the metric.
    drop_suppressed : bool
        Drop suppressed records instead of writing ``*`` in their quasi-identifiers.
    on_violation : {"raise", "warn"}
        What ``transform`` does when the new release violates the requirements.
    seed : int
        Seed recorded in the provenance (the full-domain searches are deterministic).
    method_options : mapping, optional
        Method-specific options: ``assume_practical_monotonicity`` (optimal:
        prune as if l-diversity / t-closeness with a budget were monotone, ARX's
        optional assumption — faster, but it can miss the optimum), and
        ``subset_size`` / ``success_limit`` (rv-partitioned), ``max_frequency_sets``
        (rv-global, rv-hybrid, rv-partitioned: stop there and release the best
        string found, reported as not proven optimal).
    pick : int
        Which entry of a research-value search's success list to release (0 = the best).
    """

    def __init__(self, attributes: Mapping[str, AttributeSpec | Mapping[str, Any]], requirements: Requirements,
                 method: str = "optimal", metric: str | Metric | None = None,
                 weights: Mapping[str, float] | None = None, drop_suppressed: bool = False,
                 on_violation: str = "raise", seed: int = 0, method_options: Mapping[str, Any] | None = None,
                 pick: int = 0):
        if method not in METHODS:
            raise ConfigError(f"unknown method {method!r}; use one of {' | '.join(METHODS)}")
        options = dict(method_options or {})
        allowed = METHOD_OPTIONS.get(method, frozenset())
        for key in options:
            if key not in allowed:
                raise ConfigError(f"method {method!r} has no option {key!r}"
                                  + (f"; its options are {', '.join(sorted(allowed))}" if allowed else ""))
        if isinstance(pick, bool) or not isinstance(pick, int) or pick < 0:
            raise ConfigError(f"pick must be an int >= 0; got {pick!r}")
        if on_violation not in ("raise", "warn"):
            raise ConfigError(f"on_violation must be 'raise' or 'warn'; got {on_violation!r}")
        self.attributes = attributes
        self.requirements = requirements
        self.method = method
        self.metric = metric
        self.weights = weights
        self.drop_suppressed = drop_suppressed
        self.on_violation = on_violation
        self.seed = seed
        self.method_options = options
        self.pick = pick

    # ------------------------------------------------------------------ fit
    def fit(self, data: pd.DataFrame | Dataset, source: str = "<DataFrame>") -> Anonymizer:
        """Search the recoding on ``data``; sets ``levels_``, ``release_``, ``dataset_``, ``result_``."""
        started = time.perf_counter()
        dataset = data if isinstance(data, Dataset) else Dataset(data, self.attributes, source=source)
        metric = self._metric()
        self.requirements.validate(dataset)
        if metric.needs_rows:
            raise ConfigError(f"metric {metric.name!r} needs record-level detail and cannot guide the search;"
                              " use loss, glm, ncp, gcp, precision, discernibility, aecs or research_value")
        engine = NumpyEngine(dataset, self.requirements.request)
        result = METHODS[self.method](dataset, engine, self.requirements, metric, **self.method_options)
        levels = self._picked(result, dataset)
        row_class, stats = engine.row_classes(levels)
        verdict = self.requirements.judge(stats, dataset.n_rows)
        partition = Partition.from_node(dataset.quasi, stats, verdict.kept, row_class)
        self.dataset_ = dataset
        self.levels_ = dict(zip(dataset.quasi, levels))
        self.result_ = result
        self.metric_ = metric
        self.release_ = self._release(dataset, levels, partition, started, search={
            "nodes_checked": result.checks, "lattice_size": result.lattice_size,
            "nodes_computed": engine.nodes_computed,
            "search_seconds": round(result.seconds, 4), "optimized": metric.name, "picked": self.pick,
            **result.details,
        })
        return self

    def _metric(self) -> Metric:
        if isinstance(self.metric, Metric):
            return self.metric
        if self.metric is None:
            if self.method in RESEARCH_VALUE_METHODS:
                return ResearchValue()
            return make_metric("loss", weights=self.weights, k=self.requirements.k)
        return make_metric(self.metric, weights=self.weights, k=self.requirements.k)

    def _picked(self, result: SearchResult, dataset: Dataset) -> tuple[int, ...]:
        """The levels to release: the search's choice, or entry ``pick`` of its success list."""
        if self.pick == 0:
            return result.levels
        entries: list[dict[str, Any]] = list(result.details.get("success_list") or [])  # type: ignore[call-overload]
        if not entries:
            raise ConfigError(f"--pick {self.pick}: method {self.method!r} returns a single node, not a success"
                              " list; pick applies to the rv-* methods")
        if self.pick >= len(entries):
            raise ConfigError(f"--pick {self.pick}: the success list has {len(entries)} entries (0 to"
                              f" {len(entries) - 1})")
        chosen = entries[self.pick]["levels"]
        return tuple(int(chosen[q]) for q in dataset.quasi)

    def fit_transform(self, data: pd.DataFrame | Dataset, source: str = "<DataFrame>") -> Release:
        """Fit on ``data`` and return its release."""
        return self.fit(data, source).release_

    # ------------------------------------------------------------------ transform
    def transform(self, data: pd.DataFrame, source: str = "<DataFrame>") -> Release:
        """Apply the learned recoding to new records and re-check the requirements on them.

        Classes of the new release that violate the requirements are
        suppressed while the budget allows; beyond it the configured
        ``on_violation`` applies (raise :class:`InfeasibleError` or warn).
        """
        if not hasattr(self, "levels_"):
            raise ConfigError("this Anonymizer is not fitted yet; call fit() first")
        started = time.perf_counter()
        fitted = self.dataset_
        specs = {name: AttributeSpec(role=s.role, type=s.type, hierarchy=fitted.hierarchy(name) or s.hierarchy,
                                     missing=s.missing, missing_policy=s.missing_policy, order=s.order)
                 for name, s in fitted.specs.items() if name in data.columns}
        dataset = Dataset(data, specs, source=source)
        self.requirements.validate(dataset, new_rows=True)
        engine = NumpyEngine(dataset, self.requirements.request)
        levels = tuple(self.levels_[q] for q in dataset.quasi)
        row_class, stats = engine.row_classes(levels)
        verdict = self.requirements.judge(stats, dataset.n_rows)
        if not verdict.feasible:
            message = (f"the learned recoding {self.levels_} applied to {source} leaves {verdict.suppressed_rows}"
                       f" records in classes violating {self.requirements.describe()}; the budget allows"
                       f" {verdict.budget_rows}")
            if self.on_violation == "raise":
                raise InfeasibleError(message + "; refit on more data or relax the requirements")
            warnings.warn(message, ReleaseViolation, stacklevel=2)
            kept = np.ones(stats.n_classes, dtype=np.bool_)
            partition = Partition.from_node(dataset.quasi, stats, kept, row_class)
            return self._release(dataset, levels, partition, started, search={"transform": True}, check=False)
        partition = Partition.from_node(dataset.quasi, stats, verdict.kept, row_class)
        return self._release(dataset, levels, partition, started, search={"transform": True})

    # ------------------------------------------------------------------ release
    def _release(self, dataset: Dataset, levels: tuple[int, ...], partition: Partition, started: float,
                 search: dict[str, Any], check: bool = True) -> Release:
        assert partition.row_class is not None
        suppressed = partition.row_class < 0
        table = render_full_domain(dataset, levels, suppressed, self.drop_suppressed)
        reported = standard_metrics(self.requirements.k, self.weights)
        optimized = getattr(self, "metric_", None)
        if optimized is not None and optimized.name not in {m.name for m in reported}:
            reported.append(optimized)
        metrics = {m.name: float(m.score(partition, dataset)) for m in reported}
        verified = False
        if check:
            report = verify_release(table, dataset, self.requirements, dataset.n_rows)
            if not report.ok:
                raise RuntimeError("independent verification of the release failed (this is a bug in anonset): "
                                   + "; ".join(report.problems))
            verified = True
        return Release(
            table=table, partition=partition, method=self.method, levels=dict(zip(dataset.quasi, levels)),
            metrics=metrics, suppressed_rows=int(suppressed.sum()), verified=verified,
            requirements=self.requirements.describe(), search=search,
            seconds=time.perf_counter() - started,
            provenance={
                "anonset": __version__, "python": platform.python_version(), "numpy": np.__version__,
                "pandas": pd.__version__, "seed": self.seed, "method": self.method,
                "metric": self.metric if isinstance(self.metric, str) or self.metric is None else self.metric.name,
                "method_options": self.method_options,
                "source": dataset.source, "requirements": [m.summary() for m in self.requirements.models],
                "max_suppression": self.requirements.max_suppression,
            },
        )


def anonymize(data: pd.DataFrame | Dataset, attributes: Mapping[str, AttributeSpec | Mapping[str, Any]] | None = None,
              *, requirements: Requirements, method: str = "optimal", metric: str = "loss", **options: Any) -> Release:
    """One-call anonymization: ``Anonymizer(...).fit_transform(data)``."""
    return Anonymizer(attributes or {}, requirements, method=method, metric=metric, **options).fit_transform(data)
