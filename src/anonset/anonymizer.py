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
from anonset.partition import Partition
from anonset.privacy.base import Requirements
from anonset.release import Release, render_full_domain
from anonset.search.full_domain import SearchResult, exhaustive_search, optimal_search
from anonset.verify import verify_release

__all__ = ["METHODS", "Anonymizer", "ReleaseViolation", "anonymize"]

SearchFunction = Callable[..., SearchResult]

#: Method name -> full-domain search.
METHODS: dict[str, SearchFunction] = {"optimal": optimal_search, "exhaustive": exhaustive_search}


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
    method : {"optimal", "exhaustive"}
        Search method.
    metric : str
        Utility metric the search optimizes (see :data:`anonset.metrics.METRICS`).
    weights : mapping of str to float, optional
        Attribute weights for the metric.
    drop_suppressed : bool
        Drop suppressed records instead of writing ``*`` in their quasi-identifiers.
    on_violation : {"raise", "warn"}
        What ``transform`` does when the new release violates the requirements.
    seed : int
        Seed recorded in the provenance (the full-domain searches are deterministic).
    assume_practical_monotonicity : bool
        Let the optimal search prune as if l-diversity / t-closeness with a
        suppression budget were monotone (ARX's optional assumption). Much
        faster on some configurations but it can miss the optimum; off by default.
    """

    def __init__(self, attributes: Mapping[str, AttributeSpec | Mapping[str, Any]], requirements: Requirements,
                 method: str = "optimal", metric: str = "loss", weights: Mapping[str, float] | None = None,
                 drop_suppressed: bool = False, on_violation: str = "raise", seed: int = 0,
                 assume_practical_monotonicity: bool = False):
        if method not in METHODS:
            raise ConfigError(f"unknown method {method!r}; use one of {' | '.join(METHODS)}")
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
        self.assume_practical_monotonicity = assume_practical_monotonicity

    # ------------------------------------------------------------------ fit
    def fit(self, data: pd.DataFrame | Dataset, source: str = "<DataFrame>") -> Anonymizer:
        """Search the recoding on ``data``; sets ``levels_``, ``release_``, ``dataset_``, ``result_``."""
        started = time.perf_counter()
        dataset = data if isinstance(data, Dataset) else Dataset(data, self.attributes, source=source)
        metric = make_metric(self.metric, weights=self.weights, k=self.requirements.k)
        self.requirements.validate(dataset)
        if isinstance(metric, Metric) and metric.needs_rows:
            raise ConfigError(f"metric {self.metric!r} needs record-level detail and cannot guide the search;"
                              " use loss, glm, ncp, gcp, precision, discernibility or aecs")
        engine = NumpyEngine(dataset, self.requirements.request)
        options = {"assume_practical_monotonicity": True} if self.assume_practical_monotonicity else {}
        if options and self.method != "optimal":
            raise ConfigError("assume_practical_monotonicity applies to method 'optimal' only")
        result = METHODS[self.method](dataset, engine, self.requirements, metric, **options)
        row_class, stats = engine.row_classes(result.levels)
        verdict = self.requirements.judge(stats, dataset.n_rows)
        partition = Partition.from_node(dataset.quasi, stats, verdict.kept, row_class)
        self.dataset_ = dataset
        self.levels_ = dict(zip(dataset.quasi, result.levels))
        self.result_ = result
        self.release_ = self._release(dataset, result.levels, partition, started, search={
            "nodes_checked": result.checks, "lattice_size": result.lattice_size,
            "nodes_computed": engine.nodes_computed,
            "search_seconds": round(result.seconds, 4), "optimized": metric.name, **result.details,
        })
        return self

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
        metrics = {m.name: float(m.score(partition, dataset))
                   for m in standard_metrics(self.requirements.k, self.weights)}
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
                "pandas": pd.__version__, "seed": self.seed, "method": self.method, "metric": self.metric,
                "source": dataset.source, "requirements": [m.summary() for m in self.requirements.models],
                "max_suppression": self.requirements.max_suppression,
            },
        )


def anonymize(data: pd.DataFrame | Dataset, attributes: Mapping[str, AttributeSpec | Mapping[str, Any]] | None = None,
              *, requirements: Requirements, method: str = "optimal", metric: str = "loss", **options: Any) -> Release:
    """One-call anonymization: ``Anonymizer(...).fit_transform(data)``."""
    return Anonymizer(attributes or {}, requirements, method=method, metric=metric, **options).fit_transform(data)
