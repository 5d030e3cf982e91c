"""Pattern survival: does a tree grown on the release find the patterns a tree grown on the raw data finds?

The records are split (seeded) into training and held-out rows.  Two trees of
:mod:`anonset.evaluation.models` (``decision_tree`` for a classification target, ``regression_tree`` for a
numeric one) are grown on the training rows: one on the release (each record as the box of its class,
:func:`anonset.evaluation.features.partition_features`), one on the raw records
(:func:`~anonset.evaluation.features.original_features`).  Both are scored on the held-out raw records
(accuracy, or mean absolute error), and the attributes their top splits use (the first ``depth`` levels,
3 by default) are compared: per tree the attributes in split order, and the overlap of the two sets
(intersection over union, 1.0 when both trees have no split).

The release covers all records, held-out ones included: this check judges a given release, it does not
keep the held-out records out of the recoding.  :func:`anonset.evaluation.evaluate` is the strict protocol
that learns the recoding on training records only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from anonset.core.dataset import Dataset
from anonset.core.partition import Partition
from anonset.evaluation.features import original_features, partition_features
from anonset.evaluation.labels import label_values, target_and_task
from anonset.evaluation.models import make_model
from anonset.evaluation.protocol import split_rows

__all__ = ["PatternSurvival", "pattern_survival", "top_split_attributes"]


@dataclass(frozen=True, eq=False)
class PatternSurvival:
    """Scores of the release tree and the raw tree on held-out raw records, and the attributes of their top splits.

    Attributes
    ----------
    task : str
        ``classification`` (score: accuracy) or ``regression`` (score: mean absolute error).
    release_score, raw_score : float
        Score on the held-out raw records of the tree grown on the release, and of the one grown on the raw data.
    release_splits, raw_splits : tuple of str
        Attributes of the splits in each tree's first levels, breadth first (repeats kept).
    overlap : float
        |A ∩ B| / |A ∪ B| of the two trees' sets of top-split attributes (1.0 when both are empty).
    release_tree, raw_tree
        The fitted scikit-learn models.
    """

    task: str
    release_score: float
    raw_score: float
    release_splits: tuple[str, ...]
    raw_splits: tuple[str, ...]
    overlap: float
    release_tree: Any
    raw_tree: Any

    def summary(self) -> dict[str, Any]:
        """The figures, JSON-ready."""
        return {"task": self.task, "score": "accuracy" if self.task == "classification" else "mean_absolute_error",
                "release": self.release_score, "raw": self.raw_score, "release_splits": list(self.release_splits),
                "raw_splits": list(self.raw_splits), "overlap": self.overlap}


def top_split_attributes(model: Any, quasi: tuple[str, ...], depth: int = 3) -> tuple[str, ...]:
    """Attributes of the splits in the first ``depth`` levels of a fitted tree over 2·d box features, breadth first."""
    tree = model.regressor_.tree_ if hasattr(model, "regressor_") else model.tree_
    out: list[str] = []
    level = [0]
    for _ in range(depth):
        following: list[int] = []
        for node in level:
            feature = int(tree.feature[node])
            if feature < 0:  # a leaf
                continue
            out.append(quasi[feature // 2])
            following += [int(tree.children_left[node]), int(tree.children_right[node])]
        level = following
    return tuple(out)


def _labels(dataset: Dataset, target: str, task: str | None) -> tuple[NDArray[Any], str]:
    target, task = target_and_task(dataset, target, task)
    assert dataset.table is not None
    return label_values(dataset.table, target, task, dataset.source), task


def pattern_survival(dataset: Dataset, partition: Partition, target: str, *, task: str | None = None,
                     test_fraction: float = 0.3, depth: int = 3, seed: int = 0) -> PatternSurvival:
    """Grow a tree on the release and one on the raw data; score both on held-out raw records (see the module).

    Parameters
    ----------
    dataset : Dataset
        The raw records (in memory) with the target column.
    partition : Partition
        The release of ``dataset``'s records (``row_class`` required).
    target : str
        The label column (not a quasi-identifier).
    task : {"classification", "regression"}, optional
        Default: regression for a numeric target, classification otherwise.
    test_fraction : float
        Share of records held out (seeded split).
    depth : int
        Levels of each tree whose split attributes are reported.
    seed : int
        Seed of the split and of the trees.
    """
    if partition.row_class is None or len(partition.row_class) != dataset.n_rows:
        raise ValueError("pattern survival needs the release's class of every record of the dataset")
    y, task = _labels(dataset, target, task)
    train, test = split_rows(dataset.n_rows, test_fraction=test_fraction, seed=seed)[0]
    raw = original_features(dataset)
    released = partition_features(dataset, partition, partition.row_class)
    name = "decision_tree" if task == "classification" else "regression_tree"
    release_tree = make_model(name, task, seed).fit(released[train], y[train])
    raw_tree = make_model(name, task, seed).fit(raw[train], y[train])

    def score(model: Any) -> float:
        predicted = model.predict(raw[test])
        if task == "classification":
            return float(np.mean(predicted == y[test]))
        return float(np.mean(np.abs(predicted - y[test])))

    release_splits = top_split_attributes(release_tree, dataset.quasi, depth)
    raw_splits = top_split_attributes(raw_tree, dataset.quasi, depth)
    a, b = set(release_splits), set(raw_splits)
    overlap = len(a & b) / len(a | b) if a | b else 1.0
    return PatternSurvival(task=task, release_score=score(release_tree), raw_score=score(raw_tree),
                           release_splits=release_splits, raw_splits=raw_splits, overlap=overlap,
                           release_tree=release_tree, raw_tree=raw_tree)
