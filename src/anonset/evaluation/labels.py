"""The label a utility check predicts: which column, which task, and its values, decided one way for every check.

The train/test protocol and pattern survival both grow models on a label: the
column named, or the only column with role target; it must be in the records
and not a quasi-identifier; the task is regression for a numeric column and
classification otherwise unless given; a regression label must be a number
in every record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from anonset.core.specs import AttributeType
from anonset.core.targets import target_columns
from anonset.errors import ConfigError

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset

__all__ = ["TASKS", "label_values", "target_and_task"]

#: The tasks a label can be predicted for.
TASKS = ("classification", "regression")


def target_and_task(dataset: Dataset, target: str | None, task: str | None) -> tuple[str, str]:
    """The label column and the task (see the module docstring); a one-line ``ConfigError`` otherwise."""
    if target is None:
        targets = target_columns(dataset)
        if len(targets) != 1:
            raise ConfigError(f"{dataset.source}: name the label column (evaluation.target); columns with role"
                              f" target: {', '.join(targets) or 'none'}")
        target = targets[0]
    if not dataset.in_memory:
        raise ConfigError(f"{dataset.source}: models need the records in memory (engine: numpy)")
    if target not in dataset.columns:
        raise ConfigError(f"{dataset.source}: label column {target!r} is not in the data")
    if target in dataset.quasi:
        raise ConfigError(f"{dataset.source}: label column {target!r} is a quasi-identifier; give it role target")
    if task is None:
        spec = dataset.specs.get(target)
        task = "regression" if spec is not None and spec.type is AttributeType.NUMERIC else "classification"
    if task not in TASKS:
        raise ConfigError(f"task must be classification or regression; got {task!r}")
    return target, task


def label_values(frame: pd.DataFrame, target: str, task: str, source: str) -> NDArray[Any]:
    """The label of every record: strings for a classification, numbers for a regression."""
    values = frame[target]
    if task == "classification":
        return cast("NDArray[Any]", values.astype(str).to_numpy())
    numbers = pd.to_numeric(values, errors="coerce")
    bad = np.flatnonzero(numbers.isna().to_numpy())
    if len(bad):
        raise ConfigError(f"{source}, column {target!r}: value {values.iloc[bad[0]]!r} is not a number, but a"
                          " regression needs a numeric label; fix the value or use task: classification")
    return cast("NDArray[np.float64]", numbers.to_numpy(dtype=np.float64))
