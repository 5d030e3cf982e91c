"""SUDA2 (anonset.risk.suda2) against sdcMicro's published examples and a record-by-record MSU search.

The expected scores and contributions are those in sdcMicro's tests/testthat/test_suda2.R (the
"book example", the "sdc guideline" table and the four column orders of the contribution example).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from anonset.risk.suda2 import suda2
from anonset.risk.survey import key_codes

GUIDELINE = pd.DataFrame({
    "Residence": ["Urban", "Urban", "Urban", "Urban", "Rural", "Urban", "Urban", "Urban", "Urban", "Urban"],
    "Gender": ["Female", "Female", "Female", "Male", "Female", "Male", "Female", "Male", "Female", "Female"],
    "Education": ["Secondary incomplete", "Secondary incomplete", "Primary incomplete", "Secondary complete",
                  "Secondary complete", "Secondary complete", "Primary complete", "Post-secondary",
                  "Secondary incomplete", "Secondary incomplete"],
    "Labor": ["Employed", "Employed", "Non-LF", "Employed", "Unemployed", "Employed", "Non-LF", "Unemployed",
              "Non-LF", "Non-LF"],
})


def _codes(table: pd.DataFrame) -> np.ndarray:
    return key_codes(table, list(table.columns))


def test_the_book_example_scores() -> None:
    table = pd.DataFrame({"age": ["20s"] * 7 + ["60s"], "gender": ["male"] * 4 + ["female"] * 3 + ["male"],
                          "income": ["50k+", "50k+"] + ["50k-"] * 6,
                          "education": ["highschool"] * 4 + ["university", "highschool", "middleschool",
                                                             "university"]})
    assert suda2(_codes(table)).scores[4:8].tolist() == [4, 2, 6, 8]


def test_the_sdc_guideline_scores() -> None:
    assert suda2(_codes(GUIDELINE)).scores.tolist() == [0, 0, 6, 0, 12, 0, 6, 10, 0, 0]


@pytest.mark.parametrize(("order", "expected"), [("abc", [50, 37.5, 37.5]), ("acb", [50, 37.5, 37.5]),
                                                 ("cab", [37.5, 50, 37.5]), ("cba", [37.5, 37.5, 50])])
def test_attribute_contributions_as_sdcmicro(order: str, expected: list[float]) -> None:
    table = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})[list(order)]
    np.testing.assert_allclose(suda2(_codes(table)).attribute_contributions, expected, atol=1e-12)


def test_dis_scores_from_the_formula_worked_by_hand() -> None:
    """The guideline table: records 1-2, 4-6 and 9-10 share their whole keys (3 pairs: 6 records), 3, 5, 7
    and 8 are unique (4); scores 6, 12, 6, 10; M = 4, so Q = 1 + (8 - 4)/20 = 1.2; DisFraction 0.01."""
    uniques, paired, fraction, q = 4, 6, 0.01, 1.2
    dis = uniques * fraction / (uniques * fraction + paired * (1 - fraction))
    scores = np.array([6.0, 12.0, 6.0, 10.0])
    adjust = np.sum(scores ** -q)
    expected = np.zeros(10)
    expected[[2, 4, 6, 7]] = 1 / (1 + (uniques / dis - uniques) / (scores**q * adjust))
    np.testing.assert_allclose(suda2(_codes(GUIDELINE)).dis_scores, expected, rtol=1e-6)  # sdcMicro: float32 steps


def _msus_by_search(codes: np.ndarray, max_size: int) -> list[list[tuple[int, ...]]]:
    """Each record's MSUs: every set of columns, the record compared with every other record."""
    n, m = codes.shape
    out: list[list[tuple[int, ...]]] = []
    for r in range(n):
        def unique(columns: tuple[int, ...], r: int = r) -> bool:
            others = np.delete(codes[:, list(columns)], r, axis=0)
            return not np.any(np.all(others == codes[r, list(columns)], axis=1))
        found = [columns for size in range(1, max_size + 1) for columns in itertools.combinations(range(m), size)
                 if unique(columns) and not any(unique(columns[:i] + columns[i + 1:]) for i in range(size))]
        out.append(found)
    return out


@pytest.mark.parametrize(("seed", "m", "max_size"), [(0, 4, 4), (1, 5, 3), (2, 6, 6), (3, 3, 2)])
def test_msus_and_scores_equal_a_record_by_record_search(seed: int, m: int, max_size: int) -> None:
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 3, size=(40, m))
    result = suda2(codes, max_size=max_size)
    msus = _msus_by_search(codes, max_size)
    for r, found in enumerate(msus):
        sizes = [len(c) for c in found]
        assert result.msu_counts[r].tolist() == [sizes.count(k) for k in range(1, max_size + 1)]
        weight = [math.prod(m - i for i in range(len(c), max_size)) for c in found]
        assert result.scores[r] == sum(weight)
    assert np.all((result.dis_scores >= 0) & (result.dis_scores <= 1))
    assert np.array_equal(result.dis_scores > 0, result.scores > 0)


def test_non_original_scores_weigh_each_size_as_sdcmicro() -> None:
    """(2^(M-k) - 1) k! (M-k)! / M! per MSU of size k: M = 4, size 1: 7 * 6 / 24 = 1.75, 2: 3 * 4 / 24, 3: 6 / 24."""
    table = pd.DataFrame({"a": [1, 2, 2, 2], "b": [0, 0, 1, 1], "c": [0, 0, 0, 1], "d": [0, 0, 0, 0]})
    result = suda2(_codes(table), original_scores=False)
    expected = result.msu_counts @ np.array([1.75, 0.5, 0.25, 0.0])  # size 4: 2^0 - 1 = 0
    np.testing.assert_allclose(result.scores, expected)
    # the first record shares each pair of a, b, c with another record, but not the three: an MSU of size 3
    triple = pd.DataFrame({"a": [0, 0, 0, 1], "b": [0, 0, 1, 0], "c": [0, 1, 0, 0], "d": [0, 0, 0, 0]})
    np.testing.assert_allclose(suda2(_codes(triple), original_scores=False).scores, [0.25, 1.75, 1.75, 1.75])


def _msus_with_missing(codes: np.ndarray, max_size: int) -> list[list[tuple[int, ...]]]:
    """Each record's MSUs under sdcMicro's rule: a missing value (negative) is in no MSU and matches no value."""
    n, m = codes.shape
    out: list[list[tuple[int, ...]]] = []
    for r in range(n):
        def unique(columns: tuple[int, ...], r: int = r) -> bool:
            mine = codes[r, list(columns)]
            if np.any(mine < 0):
                return False
            others = np.delete(codes[:, list(columns)], r, axis=0)
            return not np.any(np.all(others == mine, axis=1))
        out.append([columns for size in range(1, max_size + 1) for columns in itertools.combinations(range(m), size)
                    if unique(columns) and not any(unique(columns[:i] + columns[i + 1:]) for i in range(size))])
    return out


@pytest.mark.parametrize(("seed", "m", "max_size"), [(4, 4, 4), (5, 5, 3), (6, 3, 3)])
def test_missing_values_are_in_no_msu_and_match_no_value(seed: int, m: int, max_size: int) -> None:
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 3, size=(40, m))
    codes[rng.random(codes.shape) < 0.15] = -1
    result = suda2(codes, max_size=max_size)
    for r, found in enumerate(_msus_with_missing(codes, max_size)):
        sizes = [len(c) for c in found]
        assert result.msu_counts[r].tolist() == [sizes.count(k) for k in range(1, max_size + 1)], r


def test_a_missing_value_by_hand() -> None:
    """Rows (a, b): (0, 0), (0, 0), (1, NA), (1, 1).  Row 3 misses b: unique on nothing it holds in full (a = 1
    is shared with row 4), so no MSU; row 4 is unique on b (no other row holds b = 1), and {a} is shared, so {b}."""
    codes = np.array([[0, 0], [0, 0], [1, -1], [1, 1]])
    result = suda2(codes)
    assert result.msu_counts[:, 0].tolist() == [0, 0, 0, 1]
    assert result.msu_counts[:, 1:].sum() == 0
    assert result.scores.tolist() == [0, 0, 0, 2]  # M = 3 after padding: (3 - 1)! = 2


def test_a_table_of_distinct_keys_with_counts_gives_the_records_figures() -> None:
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 3, size=(300, 5))
    codes[rng.random(codes.shape) < 0.05] = -1
    whole = suda2(codes, max_size=4)
    keys, first, inverse, counts = np.unique(codes, axis=0, return_index=True, return_inverse=True,
                                             return_counts=True)
    grouped = suda2(keys, max_size=4, counts=counts)
    inverse = inverse.reshape(-1)
    np.testing.assert_array_equal(grouped.scores[inverse], whole.scores)
    np.testing.assert_allclose(grouped.dis_scores[inverse], whole.dis_scores)
    np.testing.assert_allclose(grouped.attribute_contributions, whole.attribute_contributions)
