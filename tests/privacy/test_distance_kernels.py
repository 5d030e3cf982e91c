"""The compiled earth mover's distances equal the numpy formulas of t-closeness."""

from __future__ import annotations

import numpy as np
import pytest

from anonset.privacy.distance_kernels import equal_emd, ordered_emd
from anonset.privacy.tcloseness import emd


@pytest.mark.parametrize("seed", range(20))
def test_kernels_match_the_numpy_formulas(seed: int) -> None:
    rng = np.random.default_rng(seed)
    c, m = int(rng.integers(1, 60)), int(rng.integers(1, 25))
    histograms = rng.integers(0, 40, (c, m)).astype(np.int64)
    histograms[0] = 0  # an empty class: its distribution is taken as all zeros
    reference = rng.random(m)
    reference /= reference.sum()
    np.testing.assert_allclose(equal_emd(histograms, reference), emd(histograms, reference, "equal"),
                               rtol=0, atol=1e-14)
    np.testing.assert_allclose(ordered_emd(histograms, reference), emd(histograms, reference, "ordered"),
                               rtol=0, atol=1e-14)


def test_known_distances() -> None:
    # by hand: class (2, 0) against (1/2, 1/2): equal = (1/2 + 1/2) / 2; ordered = |1 - 1/2| / 1
    hist = np.array([[2, 0], [1, 1]], dtype=np.int64)
    reference = np.array([0.5, 0.5])
    assert equal_emd(hist, reference).tolist() == [0.5, 0.0]
    assert ordered_emd(hist, reference).tolist() == [0.5, 0.0]
    # three ordered values: class all in the first, table uniform: (|1 - 1/3| + |1 - 2/3|) / 2 = 1/2
    assert ordered_emd(np.array([[3, 0, 0]], dtype=np.int64), np.full(3, 1 / 3))[0] == pytest.approx(0.5)
