"""A release's metrics added up over parts of its records: each part's partial sums, and the metrics from them.

Distributed Mondrian partitions each fragment of a table on its own worker;
no worker holds the release, so each returns :func:`partial_sums` of its
part's partition (JSON-ready), and the driver adds them up into the
release's metrics with :func:`combine_partial_sums`:

- per-cell metrics (NCP, GCP, GLM, Loss, precision, Total-IL): per
  quasi-identifier the sum over classes of size × cell cost, the costs taken
  against the *whole table* (its value ranges and hierarchies), so the sums
  add up to exactly the release's;
- discernibility (Σ size²), the classes and records (average class size);
- the additive metrics (:attr:`~anonset.metrics.base.Metric.additive`: ambiguity, publisher payout),
  each part scored against the whole table's hierarchies and ranges;
- the classification metric (records outside their class's majority label).

Any other metric measures each record's cell against value counts of the
whole table, which no part holds: it is reported as omitted, with why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from anonset.metrics.base import CellMetric, Metric
from anonset.metrics.class_metrics import AverageClassSize, ClassificationMetric, Discernibility

if TYPE_CHECKING:
    from anonset.core.dataset import Dataset
    from anonset.core.partition import Partition

__all__ = ["combine_partial_sums", "partial_sums"]


def partial_sums(partition: Partition, data: Dataset, whole: Dataset, metrics: Sequence[Metric]) -> dict[str, Any]:
    """The partial sums of ``metrics`` over one part of the records (see the module docstring).

    Parameters
    ----------
    partition : Partition
        The part's partition (nothing suppressed).
    data : Dataset
        The part's records.
    whole : Dataset
        The whole table's dataset: the value ranges and hierarchies cell costs are measured against.
    metrics : sequence of Metric
        The metrics the release reports.

    Returns
    -------
    dict
        JSON-ready: ``rows``, ``classes``, ``squares`` (Σ size²), ``sums`` (per additive metric), ``cells`` (per
        per-cell metric, one sum per quasi-identifier of ``whole``) and
        ``outside`` (per classification metric, the records outside their
        class's majority label).
    """
    sizes = partition.sizes.astype(np.float64)
    cells: dict[str, list[float]] = {}
    outside: dict[str, float] = {}
    sums: dict[str, float] = {}
    for m in metrics:
        if m.additive:
            sums[m.name] = m.score(partition, whole)
        elif isinstance(m, CellMetric):
            cells[m.name] = [float(np.dot(sizes, m.class_costs(whole, q, partition.values[q]))) for q in whole.quasi]
        elif isinstance(m, ClassificationMetric):
            outside[m.name] = data.n_rows * m.score(partition, data)
    return {"rows": data.n_rows, "classes": partition.n_classes, "squares": float((sizes * sizes).sum()),
            "sums": sums, "cells": cells, "outside": outside}


def combine_partial_sums(metrics: Sequence[Metric], whole: Dataset,
                         parts: Sequence[Mapping[str, Any]]) -> tuple[dict[str, float], dict[str, str]]:
    """The release's metrics from the parts' :func:`partial_sums`, and those that cannot be added up (with why)."""
    n = sum(int(p["rows"]) for p in parts)
    classes = sum(int(p["classes"]) for p in parts)
    scores: dict[str, float] = {}
    omitted: dict[str, str] = {}
    for m in metrics:
        if isinstance(m, CellMetric):
            sums = np.sum([np.asarray(p["cells"][m.name], dtype=np.float64) for p in parts], axis=0)
            scores[m.name] = float(m.combine(whole, sums))
        elif isinstance(m, Discernibility):
            scores[m.name] = float(sum(float(p["squares"]) for p in parts))
        elif m.additive:
            scores[m.name] = float(sum(float(p["sums"][m.name]) for p in parts))
        elif isinstance(m, AverageClassSize):
            scores[m.name] = n / classes / m.k if classes else float("inf")
        elif isinstance(m, ClassificationMetric):
            scores[m.name] = float(sum(float(p["outside"][m.name]) for p in parts)) / n
        else:
            omitted[m.name] = ("measures each record's cell against value counts of the whole table, which no"
                               " fragment holds; not added up over fragments")
    return scores, omitted
