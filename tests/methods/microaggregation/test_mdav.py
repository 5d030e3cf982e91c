"""MDAV and individual ranking: groups and means worked by hand, and the rules every result must keep."""

from __future__ import annotations

import numpy as np
import pytest

from anonset.methods.microaggregation.mdav import mdav
from anonset.methods.microaggregation.ranking import individual_ranking


def test_six_values_in_two_groups_by_hand() -> None:
    """1, 2, 3, 10, 11, 12 with k = 3: the centroid is 6.5, and 1 and 12 are equally far: the first (1) is r.
    Its three nearest, 1, 2, 3, are a group (mean 2); 3 records are left, fewer than 2k: the last group
    (mean 11)."""
    result = mdav(np.array([[1.0], [2], [3], [10], [11], [12]]), 3)
    assert result.group.tolist() == [0, 0, 0, 1, 1, 1]
    assert result.values[:, 0].tolist() == [2, 2, 2, 11, 11, 11]


def test_nine_values_r_and_s_by_hand() -> None:
    """1..9 with k = 3: 9 records leave 3k, so both r (1: tied with 9, the first) and s (9, the farthest from
    r) get a group: {1, 2, 3} then {7, 8, 9}; {4, 5, 6} is the last group."""
    result = mdav(np.arange(1.0, 10.0).reshape(-1, 1), 3)
    assert result.group.tolist() == [0, 0, 0, 2, 2, 2, 1, 1, 1]
    assert result.values[:, 0].tolist() == [2, 2, 2, 5, 5, 5, 8, 8, 8]


def test_attributes_are_compared_on_the_scale_of_their_variance() -> None:
    """Two attributes, one in thousands: without the division by the variance the second would decide
    alone; with it, the records pair up by both.  Records 0-1 are near on both attributes, 2-3 too."""
    x = np.array([[0.0, 0.0], [0.1, 100.0], [10.0, 5000.0], [10.1, 5100.0]])
    result = mdav(x, 2)
    assert result.group[0] == result.group[1] != result.group[2] == result.group[3]
    np.testing.assert_allclose(result.values[0], [0.05, 50.0])


@pytest.mark.parametrize(("seed", "n", "p", "k"), [(0, 100, 3, 3), (1, 57, 2, 5), (2, 200, 4, 7), (3, 30, 1, 10)])
def test_groups_of_k_to_2k_minus_1_each_released_as_its_mean(seed: int, n: int, p: int, k: int) -> None:
    x = np.random.default_rng(seed).normal(size=(n, p)) * np.arange(1, p + 1) * 10
    result = mdav(x, k)
    sizes = result.sizes
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1 and sizes.sum() == n
    assert (sizes > k).sum() <= 1  # only the last group is larger
    for g in range(len(sizes)):
        members = result.group == g
        np.testing.assert_allclose(result.values[members], np.broadcast_to(x[members].mean(axis=0),
                                                                           (members.sum(), p)))


def test_a_missing_value_stays_missing_and_the_mean_is_over_the_values_held() -> None:
    x = np.array([[1.0, 1.0], [2.0, np.nan], [3.0, 3.0], [20.0, 20.0], [21.0, 21.0], [22.0, 22.0]])
    result = mdav(x, 3)
    assert np.isnan(result.values[1, 1]) and result.group[:3].tolist() == [0, 0, 0]
    assert result.values[0].tolist() == [2.0, 2.0]  # (1 + 3) / 2 on the second attribute


def test_individual_ranking_by_hand() -> None:
    """Values 5, 1, 4, 2, 3, 9, 8 with k = 2: sorted 1 2 | 3 4 | 5 8 9 (7 is not a multiple of 2: the last
    group takes three), means 1.5, 3.5, 22/3."""
    out = individual_ranking(np.array([[5.0], [1], [4], [2], [3], [9], [8]]), 2)
    np.testing.assert_allclose(out[:, 0], [22 / 3, 1.5, 3.5, 1.5, 3.5, 22 / 3, 22 / 3])
    median = individual_ranking(np.array([[5.0], [1], [4], [2], [3], [9], [8]]), 2, measure="median")
    np.testing.assert_allclose(median[:, 0], [8, 1.5, 3.5, 1.5, 3.5, 8, 8])


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="between 1 and"):
        mdav(np.zeros((3, 1)), 4)
    with pytest.raises(ValueError, match="at least 2k records"):
        individual_ranking(np.zeros((3, 1)), 2)
    with pytest.raises(ValueError, match="no missing values"):
        individual_ranking(np.array([[np.nan], [1.0], [2.0], [3.0]]), 2)
