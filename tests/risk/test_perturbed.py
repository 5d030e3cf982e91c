"""Interval disclosure, record linkage and the information loss of perturbed data, worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from anonset.metrics.perturbation import perturbation_loss
from anonset.risk.perturbed import interval_disclosure, record_linkage


def test_interval_disclosure_by_hand() -> None:
    """Released 0, 10, 20, 30 (sd 12.91); k = 0.1: intervals of half-width 1.291.  Originals 0.5 (inside),
    12 (outside), 19 (inside), 35 (outside): half the records."""
    released = np.array([0.0, 10, 20, 30])
    assert interval_disclosure(np.array([0.5, 12, 19, 35]), released, k=0.1) == 0.5


def test_record_linkage_by_hand() -> None:
    """Originals 0, 10, 20; released 1, 16, 14.  Record 0 links to 0 (right); 16 is nearer 20 (wrong); 14 is
    nearer 10 (wrong): one in three."""
    original = np.array([[0.0], [10], [20]])
    assert record_linkage(original, np.array([[1.0], [16], [14]])) == pytest.approx(1 / 3)
    assert record_linkage(original, original) == 1.0
    # released 5 is as near 0 as 10: one chance in two for record 0
    assert record_linkage(original, np.array([[5.0], [10], [20]])) == pytest.approx((0.5 + 1 + 1) / 3)


def test_il1s_by_hand() -> None:
    """One attribute, originals 1, 2, 3 (sd 1), released 1, 3, 3: one cell off by 1: 1 / (1 * sqrt 2)."""
    loss = perturbation_loss(np.array([[1.0], [2], [3]]), np.array([[1.0], [3], [3]]))
    assert loss["il1s"] == pytest.approx(1 / np.sqrt(2))
    assert loss["means"] == pytest.approx(7 / 3 / 2 - 1)


def test_an_unchanged_release_loses_nothing() -> None:
    x = np.random.default_rng(0).normal(size=(50, 3))
    loss = perturbation_loss(x, x)
    assert loss == {"il1s": 0.0, "eigen": 0.0, "means": 0.0, "covariances": 0.0}
