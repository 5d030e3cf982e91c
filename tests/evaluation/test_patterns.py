"""Pattern survival: the identity release grows the raw tree, suppression erases every split, the top splits."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonset import ConfigError
from anonset.core.dataset import Dataset
from anonset.core.partition import partition_of_assignment
from anonset.datasets import patient_register_dataset
from anonset.evaluation.patterns import pattern_survival
from anonset.evaluation.protocol import split_rows


def _threshold(n: int = 600) -> Dataset:
    """Label yes exactly when x >= 50 (x uniform on 0..99), a noise attribute z, and y = x numeric."""
    rng = np.random.default_rng(4)
    x = rng.integers(0, 100, n)
    table = pd.DataFrame({"x": x.astype(str), "z": rng.choice(list("pqrs"), n),
                          "label": np.where(x >= 50, "yes", "no"), "y": (2 * x).astype(str)})
    return Dataset(table, {"x": {"role": "quasi", "type": "numeric"}, "z": {"role": "quasi"},
                           "label": {"role": "target"}, "y": {"role": "insensitive", "type": "numeric"}})


def _identity(ds: Dataset) -> np.ndarray:
    _, row_class = np.unique(ds.qi_codes(), axis=0, return_inverse=True)
    return np.asarray(row_class.ravel(), dtype=np.int64)


def test_identity_release_grows_the_raw_tree() -> None:
    ds = patient_register_dataset(500, seed=3)
    for target in ("diagnosis", "length_of_stay"):
        result = pattern_survival(ds, partition_of_assignment(ds, _identity(ds)), target, seed=2)
        assert result.release_score == result.raw_score
        assert result.release_splits == result.raw_splits and result.overlap == 1.0
        a = result.release_tree.regressor_.tree_ if target == "length_of_stay" else result.release_tree.tree_
        b = result.raw_tree.regressor_.tree_ if target == "length_of_stay" else result.raw_tree.tree_
        assert a.feature.tolist() == b.feature.tolist() and a.threshold.tolist() == b.threshold.tolist()
    assert pattern_survival(ds, partition_of_assignment(ds, _identity(ds)), "length_of_stay").task == "regression"


def test_threshold_pattern_is_found_and_suppression_erases_it() -> None:
    """The raw tree splits on x once and is perfect; an all-suppressed release has no split to learn."""
    ds = _threshold()
    raw = pattern_survival(ds, partition_of_assignment(ds, _identity(ds)), "label", seed=0)
    assert raw.raw_score == 1.0 and raw.raw_splits[0] == "x"
    gone = pattern_survival(ds, partition_of_assignment(ds, np.full(ds.n_rows, -1)), "label", seed=0)
    assert gone.release_splits == () and gone.overlap == 0.0
    # the release tree predicts the training majority everywhere: its accuracy is that label's held-out share
    truth = ds.table["label"].to_numpy()
    train, test = split_rows(ds.n_rows, test_fraction=0.3, seed=0)[0]
    labels, counts = np.unique(truth[train], return_counts=True)
    assert gone.release_score == pytest.approx(float(np.mean(truth[test] == labels[counts.argmax()])))


def test_halves_keep_the_split_attribute() -> None:
    """Classes x < 50 and x >= 50 (z fully generalized): the release tree splits on x, between the boxes.

    The release's x boxes are [0, 49] and [50, 99]: a split on x.lo falls midway between 0 and 50 (25),
    one on x.hi midway between 49 and 99 (74).  A raw record is the point (x, x), so the release tree
    calls every held-out record above that threshold "yes": the attribute survives, the cut point does not.
    """
    ds = _threshold()
    x = ds.table["x"].astype(int).to_numpy()
    result = pattern_survival(ds, partition_of_assignment(ds, (x >= 50).astype(np.int64)), "label", seed=1)
    assert result.release_splits == ("x",) and result.raw_splits[0] == "x" and result.raw_score == 1.0
    threshold = float(result.release_tree.tree_.threshold[0])
    assert threshold in (25.0, 74.0)
    _, test = split_rows(ds.n_rows, test_fraction=0.3, seed=1)[0]
    assert result.release_score == pytest.approx(float(np.mean((x[test] > threshold) == (x[test] >= 50))))
    regression = pattern_survival(ds, partition_of_assignment(ds, (x >= 50).astype(np.int64)), "y", seed=1)
    assert regression.task == "regression" and regression.raw_score < regression.release_score


def test_bad_target() -> None:
    ds = _threshold()
    partition = partition_of_assignment(ds, _identity(ds))
    with pytest.raises(ConfigError, match="quasi-identifier"):
        pattern_survival(ds, partition, "x")
    with pytest.raises(ConfigError, match="not in the data"):
        pattern_survival(ds, partition, "nope")
