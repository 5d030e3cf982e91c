"""Local suppression's blanking (sdcMicro's heuristic) against sdcMicro's published counts and a brute-force check.

sdcMicro's tests/testthat/test_localSuppression.R draws a ten-record table with R's generator
(``set.seed(3)``; three uniform columns on [1, 100], then three rounded uniform factors) and prints
the total suppressions of ``localSuppression``: 2 for k = 2 on Var4 and Var5 (default importance),
10 for k = 2 on Var3, Var4 and Var5 with importance (3, 2, 1).  The table is drawn here with R's
generator (tests/r_random.py).  Every result is re-checked by counting, record by record, the
records that agree with each record wherever both hold a value.
"""

from __future__ import annotations

import numpy as np
import pytest

from anonset.methods.local_suppression.blanking import blank_to_k, default_importance
from r_random import RRandom


def _sdcmicro_sample() -> dict[str, np.ndarray]:
    """sdcMicro's sample_Data: Var1..Var3 uniform on [1, 100] (filled column by column), Var4..Var6 rounded."""
    r = RRandom(3)
    numbers = r.runif(30, 1, 100).reshape(3, 10)  # R fills the (10, 3) array column by column
    columns = {f"Var{j + 1}": numbers[j] for j in range(3)}
    columns["Var4"] = np.round(r.runif(10, 1, 3))
    columns["Var5"] = np.round(r.runif(10, 1, 2))
    columns["Var6"] = np.round(r.runif(10, 1, 4))
    return columns


def _codes(columns: dict[str, np.ndarray], names: list[str]) -> np.ndarray:
    return np.column_stack([np.unique(columns[n], return_inverse=True)[1].reshape(-1) for n in names])


def _matched_by_hand(codes: np.ndarray) -> np.ndarray:
    """Per record: the records agreeing with it wherever both hold a value (sdcMicro's count, alpha 1).

    A record with no value matches everyone; with two columns or more a record holding every value does
    not count one with no value.
    """
    n, d = codes.shape
    out = np.zeros(n)
    for i in range(n):
        if np.all(codes[i] < 0):
            out[i] = n
            continue
        for j in range(n):
            both = (codes[i] >= 0) & (codes[j] >= 0)
            if np.any(codes[i][both] != codes[j][both]):
                continue
            if d >= 2 and np.all(codes[i] >= 0) and np.all(codes[j] < 0):
                continue
            out[i] += 1
    return out


def _check(codes: np.ndarray, k: int, **kwargs: object) -> np.ndarray:
    result = blank_to_k(codes, k, **kwargs)
    released = np.where(result.blanked, -1, codes)
    assert not np.any(result.blanked & (codes < 0))  # only values that were there are blanked
    strata = kwargs.get("strata")
    groups = np.zeros(len(codes), dtype=int) if strata is None else np.asarray(strata)
    for g in np.unique(groups):
        rows = groups == g
        assert _matched_by_hand(released[rows]).min() >= k
    return result.blanked


def test_the_table_is_the_one_r_draws() -> None:
    """R prints set.seed(3); runif(3) as 0.1680415 0.8075164 0.3849424."""
    np.testing.assert_allclose(RRandom(3).runif(3), [0.1680415, 0.8075164, 0.3849424], atol=5e-8)


def test_sdcmicros_published_count_with_its_default_importance() -> None:
    codes = _codes(_sdcmicro_sample(), ["Var4", "Var5"])
    assert _check(codes, 2).sum() == 2


def test_sdcmicros_published_count_with_an_importance() -> None:
    codes = _codes(_sdcmicro_sample(), ["Var3", "Var4", "Var5"])
    assert _check(codes, 2, importance=[3, 2, 1]).sum() == 10


def test_the_default_importance_keeps_the_attributes_with_fewer_values() -> None:
    """Distinct values 3, 2, 3, 1 (a missing value not counted): importance 3, 2, 4, 1 (a tie in column order)."""
    codes = np.array([[0, 0, 0, 0], [1, 1, 1, 0], [2, 1, 2, 0], [2, -1, 2, 0]])
    assert default_importance(codes).tolist() == [3, 2, 4, 1]


@pytest.mark.parametrize(("seed", "k", "d"), [(0, 2, 3), (1, 3, 4), (2, 5, 3), (3, 2, 5)])
def test_every_key_is_shared_by_k_after_blanking(seed: int, k: int, d: int) -> None:
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, size=(120, d))
    codes[rng.random(codes.shape) < 0.05] = -1
    blanked = _check(codes, k)
    assert blanked.sum() > 0


def test_the_least_important_attribute_is_blanked_first() -> None:
    """Records 0-3 share a and b; record 4 differs from them only on c, the attribute to blank first."""
    codes = np.array([[0, 0, 0], [0, 0, 0], [0, 0, 1], [0, 0, 1], [0, 0, 2]])
    blanked = _check(codes, 2, importance=[1, 2, 3])
    assert blanked.tolist() == [[False] * 3] * 4 + [[False, False, True]]
    blanked = _check(codes, 2, importance=[3, 2, 1])  # c is kept longest: still the only difference
    assert blanked[4].tolist() == [False, False, True]


def test_each_stratum_is_made_k_anonymous_on_its_own() -> None:
    rng = np.random.default_rng(9)
    codes = rng.integers(0, 3, size=(90, 3))
    strata = rng.integers(0, 3, 90)
    assert _check(codes, 3, strata=strata).sum() > 0


def test_bad_arguments_are_refused() -> None:
    codes = np.zeros((4, 2), dtype=int)
    with pytest.raises(ValueError, match="fewer than k"):
        blank_to_k(codes, 5)
    with pytest.raises(ValueError, match="a number from 1 to 2"):
        blank_to_k(codes, 2, importance=[1, 3])
