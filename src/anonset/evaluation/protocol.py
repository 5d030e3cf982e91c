"""LeFevre et al.'s evaluation protocol: learn the recoding on training records only, apply it to the test records.

For each split of the records (k folds, one held-out fraction, or given
training and test tables):

1. the anonymization method is fitted on the training records alone (any
   anonset method: a partitioning method's classes, or a full-domain node);
2. the same recoding is applied to the test records — a partitioning method
   places them with its :meth:`~anonset.core.grouping.Grouping.assign`
   (Mondrian: down its tree), a full-domain node generalizes them — without
   looking at their labels and without a privacy re-check (the test records
   are not released, they are what a model trained on the release meets);
3. regions become points (:mod:`anonset.evaluation.features`), a model is
   trained on the recoded training records and scored on the recoded test
   records; the same model trained and scored on the original records is the
   baseline.

Reported per split and on average: accuracy (classification) or mean absolute
error (regression) of each model on anonymized and original data, the
conditional entropy of the class label given the training partition (LeFevre
et al.'s point: it tracks accuracy, while the average class size does not),
the average class size, and the imprecision of given selection predicates.

The dataset is encoded once on all the records (so hierarchies built from the
data cover training and test values alike) and split by rows; nothing about
the test records enters the recoding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonset.anonymizer import Anonymizer
from anonset.core.dataset import Dataset
from anonset.core.selections import Predicate
from anonset.errors import ConfigError
from anonset.evaluation.features import level_features, original_features, partition_features
from anonset.evaluation.labels import label_values, target_and_task
from anonset.evaluation.models import CLASSIFIERS, REGRESSORS, make_model
from anonset.metrics.imprecision import imprecision
from anonset.privacy.base import Requirements
from anonset.progress import task as progress_task

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["EvaluationResult", "evaluate", "split_rows"]


@dataclass
class EvaluationResult:
    """Scores of every model on anonymized and original data, per split, and the partitions' statistics.

    Attributes
    ----------
    task : str
        ``classification`` (score: accuracy) or ``regression`` (score: mean absolute error).
    target : str
        The label column.
    method : str
        The anonymization method evaluated.
    rows : list of dict
        One entry per split and model: ``split``, ``model``, ``anonymized``, ``original``.
    splits : list of dict
        One entry per split: ``train_rows``, ``test_rows``, ``classes``, ``average_class_size``,
        ``conditional_entropy`` (classification), ``imprecision`` (with predicates), ``test_unplaced``.
    """

    task: str
    target: str
    method: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    splits: list[dict[str, Any]] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """Per split and model: the scores on anonymized and original data."""
        return pd.DataFrame(self.rows, columns=["split", "model", "anonymized", "original"])

    def summary(self) -> dict[str, Any]:
        """Means over the splits: per model the two scores, and the partition statistics (JSON-ready)."""
        frame = self.to_frame()
        means = frame.groupby("model", sort=False)[["anonymized", "original"]].mean()
        stats = pd.DataFrame(self.splits)
        out: dict[str, Any] = {
            "task": self.task, "target": self.target, "method": self.method, "splits": len(self.splits),
            "score": "accuracy" if self.task == "classification" else "mean_absolute_error",
            "models": {m: {"anonymized": float(r.anonymized), "original": float(r.original)}
                       for m, r in means.iterrows()},
        }
        for column in ("average_class_size", "conditional_entropy", "imprecision", "classes", "test_unplaced"):
            if column in stats and stats[column].notna().any():
                out[column] = float(stats[column].mean())
        return out


def split_rows(n: int, *, folds: int | None = None, test_fraction: float | None = None,
               seed: int = 0) -> list[tuple[NDArray[np.int64], NDArray[np.int64]]]:
    """Train/test row indices: ``folds``-fold cross-validation or one held-out ``test_fraction`` (seeded shuffle)."""
    if (folds is None) == (test_fraction is None):
        raise ConfigError("give either folds (cross-validation) or test_fraction (one held-out share), not both")
    order = np.random.default_rng(seed).permutation(n)
    if folds is not None:
        if isinstance(folds, bool) or not isinstance(folds, int) or not 2 <= folds <= n:
            raise ConfigError(f"folds must be an integer from 2 to the number of records ({n}); got {folds!r}")
        parts = np.array_split(order, folds)
        return [(np.sort(np.concatenate(parts[:i] + parts[i + 1:])), np.sort(parts[i])) for i in range(folds)]
    assert test_fraction is not None
    if not 0 < test_fraction < 1:
        raise ConfigError(f"test_fraction must be between 0 and 1 (exclusive); got {test_fraction!r}")
    n_test = max(1, round(test_fraction * n))
    if n_test >= n:
        raise ConfigError(f"test_fraction {test_fraction} leaves no training record out of {n}")
    return [(np.sort(order[n_test:]), np.sort(order[:n_test]))]


def _subset(dataset: Dataset, rows: NDArray[np.int64], source: str) -> Dataset:
    """The records ``rows`` as a dataset with the full dataset's attributes and hierarchies."""
    assert dataset.table is not None
    return Dataset(dataset.table.iloc[rows].reset_index(drop=True), dataset.resolved_specs(), source=source)


def _conditional_entropy(labels: NDArray[Any], row_class: NDArray[np.int64]) -> float:
    """H(label | class) in bits over the records (suppressed records, class −1, form one group)."""
    _, y = np.unique(labels, return_inverse=True)
    _, g = np.unique(row_class, return_inverse=True)
    joint = np.bincount(g * (y.max() + 1) + y, minlength=(g.max() + 1) * (y.max() + 1)).reshape(g.max() + 1, -1)
    n = joint.sum()
    per_class = joint.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(joint > 0, joint / per_class, 1.0)
        return float(-(joint * np.log2(p)).sum() / n)


def _score(task: str, truth: NDArray[Any], predicted: NDArray[Any]) -> float:
    if task == "classification":
        return float(np.mean(truth == predicted))
    return float(np.mean(np.abs(truth - predicted)))


def evaluate(data: pd.DataFrame | Dataset, attributes: Mapping[str, Any] | None = None, *,
             requirements: Requirements, method: str = "mondrian", method_options: Mapping[str, Any] | None = None,
             weights: Mapping[str, float] | None = None, target: str | None = None, task: str | None = None,
             models: Sequence[str] | None = None, folds: int | None = None, test_fraction: float | None = None,
             test: pd.DataFrame | None = None, predicates: Sequence[Predicate] | None = None,
             seed: int = 0) -> EvaluationResult:
    """Run the train/test protocol (see the module docstring) for one anonymization method.

    Parameters
    ----------
    data : pandas.DataFrame or Dataset
        All the records (or the training records when ``test`` is given).
    attributes : mapping, optional
        Roles, types and hierarchies by column (for a DataFrame).
    requirements : Requirements
        The privacy requirements of the recoding.
    method, method_options, weights
        As for :class:`~anonset.anonymizer.Anonymizer`.
    target : str, optional
        The label column (default: the only column with role target).
    task : {"classification", "regression"}, optional
        Default: regression for a numeric label, classification otherwise.
    models : sequence of str, optional
        Names from :data:`~anonset.evaluation.models.CLASSIFIERS` or
        :data:`~anonset.evaluation.models.REGRESSORS` (default: all of the task's).
    folds, test_fraction : optional
        k-fold cross-validation, or one held-out share (exactly one of them
        unless ``test`` is given).
    test : pandas.DataFrame, optional
        Separate test records (the paper's synthetic protocol).
    predicates : sequence of mapping, optional
        Selection predicates (as Selection Mondrian's ``selections``) whose
        summed imprecision over each training partition is reported (classes
        taken as their records' bounding boxes, which is what a partitioning
        method releases; a full-domain node releases wider boxes).
    seed : int
        Seed of the split, the method and the models.

    Raises
    ------
    ConfigError
        Bad parameters, an unknown model or label column.
    InfeasibleError
        The method finds no recoding of a training set.
    """
    if isinstance(data, Dataset):
        if data.table is None:
            raise ConfigError(f"{data.source}: evaluation needs the records in memory")
        frame, specs, source = data.table, dict(data.specs), data.source
    else:
        frame, specs, source = data, dict(attributes or {}), "<DataFrame>"
    if test is not None:
        if folds is not None or test_fraction is not None:
            raise ConfigError("give either a test table or folds / test_fraction, not both")
        n_train = len(frame)
        frame = pd.concat([frame, test], ignore_index=True)
        splits = [(np.arange(n_train), np.arange(n_train, len(frame)))]
    dataset = Dataset(frame, specs, source=source)
    if test is None:
        splits = split_rows(dataset.n_rows, folds=folds, test_fraction=test_fraction, seed=seed)
    target, task = target_and_task(dataset, target, task)
    names = list(models) if models is not None else list(CLASSIFIERS if task == "classification" else REGRESSORS)
    for name in names:
        make_model(name, task, seed)  # unknown names fail before any work
    y_all = label_values(frame, target, task, source)
    result = EvaluationResult(task=task, target=target, method=method)
    with progress_task(f"evaluating {method}", total=len(splits), unit="splits") as bar:
        for i, (train_rows, test_rows) in enumerate(splits):
            # one task per split: encoding its records, fitting (the method's tasks nest inside), recoding, models
            step = f"split {i + 1} of {len(splits)}"
            with progress_task(f"{step}: encoding", total=3 + len(names), unit="steps") as split_bar:
                train = _subset(dataset, train_rows, f"{source} (training records of split {i})")
                held_out = _subset(dataset, test_rows, f"{source} (test records of split {i})")
                split_bar.update(completed=1, description=f"{step}: fitting")
                anonymizer = Anonymizer({}, requirements, method=method, method_options=method_options,
                                        weights=weights, seed=seed)
                anonymizer.fit(train)
                partition = anonymizer.release_.partition
                assert partition.row_class is not None
                split_bar.update(completed=2, description=f"{step}: recoding")
                if anonymizer.levels_ is None:
                    test_class = anonymizer.grouping_.assign(held_out)
                    x_train = partition_features(train, partition, partition.row_class)
                    x_test = partition_features(train, partition, test_class)
                    unplaced = int((test_class < 0).sum())
                else:
                    levels = tuple(anonymizer.levels_[q] for q in train.quasi)
                    x_train = partition_features(train, partition, partition.row_class)
                    x_test = level_features(held_out, levels)
                    unplaced = 0
                o_train, o_test = original_features(train), original_features(held_out)
                y_train, y_test = y_all[train_rows], y_all[test_rows]
                split_bar.update(completed=3, description=f"{step}: training the models")
                for name in names:
                    anonymized = make_model(name, task, seed).fit(x_train, y_train).predict(x_test)
                    original = make_model(name, task, seed).fit(o_train, y_train).predict(o_test)
                    result.rows.append({"split": i, "model": name, "anonymized": _score(task, y_test, anonymized),
                                        "original": _score(task, y_test, original)})
                    split_bar.advance()
            kept = partition.row_class >= 0
            result.splits.append({
                "train_rows": len(train_rows), "test_rows": len(test_rows), "classes": partition.n_classes,
                "average_class_size": float(kept.sum() / max(partition.n_classes, 1)),
                "conditional_entropy": (_conditional_entropy(y_train, partition.row_class)
                                        if task == "classification" else None),
                "test_unplaced": unplaced,
                "imprecision": (float(imprecision(train, partition.row_class, list(predicates)).sum())
                                if predicates else None),
            })
            bar.advance()
    return result
