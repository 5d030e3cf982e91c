"""PRAM, additive noise, top and bottom coding: the rules worked by hand, the invariance PRAM promises, seeds."""

from __future__ import annotations

import numpy as np
import pytest

from anonset.methods.perturbation.noise import add_noise, bottom_code, top_code
from anonset.methods.perturbation.pram import invariant_matrix, pram


def test_the_invariant_matrix_keeps_the_category_shares() -> None:
    """p R = p: the expected share of each category in the release is its share in the data."""
    shares = np.array([0.5, 0.3, 0.15, 0.05])
    matrix = invariant_matrix(shares, np.array([0.9, 0.8, 0.85, 0.95]), alpha=0.5)
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0)
    np.testing.assert_allclose(shares @ matrix, shares, atol=1e-15)
    assert np.all(matrix >= 0)


def test_the_invariant_matrix_of_two_categories_by_hand() -> None:
    """Shares (0.75, 0.25), P keeps each with 0.8: p P = (0.65, 0.35); Q[0] = (0.8*0.75, 0.2*0.25)/0.65,
    Q[1] = (0.2*0.75, 0.8*0.25)/0.35; R = P Q; with alpha 1, R itself."""
    p = np.array([0.75, 0.25])
    forward = np.array([[0.8, 0.2], [0.2, 0.8]])
    backward = np.array([[0.6 / 0.65, 0.05 / 0.65], [0.15 / 0.35, 0.2 / 0.35]])
    np.testing.assert_allclose(invariant_matrix(p, np.array([0.8, 0.8]), alpha=1.0), forward @ backward)
    np.testing.assert_allclose(invariant_matrix(p, np.array([0.8, 0.8]), alpha=0.0), np.eye(2))


def test_pram_is_seeded_keeps_missing_values_and_follows_its_matrix() -> None:
    codes = np.random.default_rng(0).integers(0, 3, 20_000)
    codes[:50] = -1
    first, matrix = pram(codes, np.random.default_rng(7))
    again, _ = pram(codes, np.random.default_rng(7))
    assert np.array_equal(first, again) and np.all(first[:50] == -1)
    for i in range(3):  # the released categories of the records of category i follow row i
        released = first[codes == i]
        np.testing.assert_allclose(np.bincount(released, minlength=3) / len(released), matrix[i], atol=0.02)


def test_a_given_matrix_is_used_and_a_bad_one_refused() -> None:
    codes = np.array([0, 1, 1, 0])
    swap = np.array([[0.0, 1.0], [1.0, 0.0]])
    assert pram(codes, np.random.default_rng(0), matrix=swap)[0].tolist() == [1, 0, 0, 1]
    with pytest.raises(ValueError, match="rows summing to 1"):
        pram(codes, np.random.default_rng(0), matrix=np.array([[0.5, 0.4], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="pd must be"):
        pram(codes, np.random.default_rng(0), pd=0.0)


def test_additive_noise_has_the_asked_spread_and_is_seeded() -> None:
    x = np.random.default_rng(1).normal(10, [2.0, 50.0], size=(40_000, 2))
    noisy = add_noise(x, np.random.default_rng(3), noise=50)
    assert np.array_equal(noisy, add_noise(x, np.random.default_rng(3), noise=50))
    np.testing.assert_allclose((noisy - x).std(axis=0), 0.5 * x.std(axis=0, ddof=1), rtol=0.02)
    assert abs(np.corrcoef((noisy - x).T)[0, 1]) < 0.03  # independent per attribute


def test_correlated_noise_follows_the_covariance() -> None:
    rng = np.random.default_rng(2)
    base = rng.normal(size=40_000)
    x = np.column_stack([base, base + 0.5 * rng.normal(size=40_000)])
    noise = add_noise(x, np.random.default_rng(4), noise=100, method="correlated") - x
    np.testing.assert_allclose(np.cov(noise, rowvar=False), np.cov(x, rowvar=False), rtol=0.05)


def test_a_missing_value_stays_missing_under_noise() -> None:
    x = np.array([[1.0, 2.0], [np.nan, 3.0], [2.0, 5.0], [4.0, 1.0]])
    assert np.isnan(add_noise(x, np.random.default_rng(0))[1, 0])


def test_top_and_bottom_coding_as_sdcmicro() -> None:
    x = np.array([1.0, 5.0, 10.0, 11.0, np.nan])
    np.testing.assert_array_equal(top_code(x, 10, 10), [1, 5, 10, 10, np.nan])  # above 10, not 10 itself
    np.testing.assert_array_equal(bottom_code(x, 5, 0), [0, 5, 10, 11, np.nan])
