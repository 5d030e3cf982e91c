"""Utility metrics over partitions, and the registry used by configs and the CLI."""

from __future__ import annotations

from collections.abc import Mapping

from anonset.core.dataset import Dataset
from anonset.core.targets import target_columns
from anonset.errors import ConfigError
from anonset.metrics.ambiguity import Ambiguity
from anonset.metrics.base import CellMetric, Metric
from anonset.metrics.cell_metrics import GCP, GLM, NCP, Precision
from anonset.metrics.class_metrics import (
    AverageClassSize,
    ClassificationMetric,
    Discernibility,
    NonUniformEntropy,
)
from anonset.metrics.kl_divergence import KLDivergence
from anonset.metrics.loss import Loss
from anonset.metrics.publisher_payout import PublisherPayout
from anonset.metrics.research_value import ResearchValue
from anonset.metrics.total_il import TotalIL

__all__ = [
    "GCP",
    "GLM",
    "METRICS",
    "NCP",
    "SEARCH_METRICS",
    "Ambiguity",
    "AverageClassSize",
    "CellMetric",
    "ClassificationMetric",
    "Discernibility",
    "KLDivergence",
    "Loss",
    "Metric",
    "NonUniformEntropy",
    "Precision",
    "PublisherPayout",
    "TotalIL",
    "make_metric",
    "reported_metrics",
    "standard_metrics",
]

#: Metric name -> class.
METRICS: dict[str, type[Metric]] = {
    "loss": Loss, "glm": GLM, "ncp": NCP, "gcp": GCP, "precision": Precision,
    "discernibility": Discernibility, "aecs": AverageClassSize, "non_uniform_entropy": NonUniformEntropy,
    "total_il": TotalIL, "ambiguity": Ambiguity, "kl_divergence": KLDivergence, "publisher_payout": PublisherPayout,
    "cm": ClassificationMetric,
    "research_value": ResearchValue,
}

#: Metrics that can guide a search (those that need no record-level detail); the others are only reported.
SEARCH_METRICS: tuple[str, ...] = tuple(name for name, cls in METRICS.items() if not cls.needs_rows)

#: Metrics reported only when optimized (research value needs its configuration) or when the data has
#: what they measure (cm needs exactly one column with role target; see :func:`reported_metrics`).
CONFIGURED = frozenset({"research_value", "cm"})


def make_metric(name: str, *, weights: Mapping[str, float] | None = None, k: int = 1) -> Metric:
    """Build a metric by name (``weights`` for per-cell metrics, ``k`` for aecs)."""
    cls = METRICS.get(name)
    if cls is None:
        raise ConfigError(f"unknown metric {name!r}; use one of {' | '.join(METRICS)}")
    if issubclass(cls, CellMetric):
        return cls(weights=weights)
    if cls is AverageClassSize:
        return AverageClassSize(k)
    if cls is ResearchValue:
        return ResearchValue()
    if weights:
        raise ConfigError(f"metric {name!r} takes no attribute weights")
    return cls()


def reported_metrics(dataset: Dataset, k: int = 1, weights: Mapping[str, float] | None = None, *,
                     optimized: Metric | None = None) -> list[Metric]:
    """The metrics a release reports: the standard ones, the classification metric when exactly one column has
    role target, and the metric the run optimized (``optimized``), in place of the standard one of its name (it
    may carry parameters of its own: publisher payout's costs) or after them.

    With several target columns no one of them is *the* class label, so cm is
    not reported on its own (score ``ClassificationMetric(target=...)`` to get it).
    """
    out = standard_metrics(k, weights)
    if len(target_columns(dataset)) == 1:
        out.append(ClassificationMetric())
    if optimized is not None:
        names = [m.name for m in out]
        if optimized.name in names:
            out[names.index(optimized.name)] = optimized
        else:
            out.append(optimized)
    return out


def standard_metrics(k: int = 1, weights: Mapping[str, float] | None = None) -> list[Metric]:
    """Every metric, as reported in a release summary."""
    return [make_metric(name, weights=weights if issubclass(cls, CellMetric) else None, k=k)
            for name, cls in METRICS.items() if name not in CONFIGURED]
