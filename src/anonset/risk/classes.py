"""The input every risk figure reads: released class sizes, checked, and their frequencies of frequencies.

A :class:`ClassSizes` holds the sizes f_j of the released equivalence classes
(records suppressed from the release are not in any class; their count is
kept as ``records_excluded`` and never enters a figure).  The frequencies of
frequencies (how many classes have size 1, 2, ...) are what the
population-uniqueness models read, which makes them independent of the number
of records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from anonset.errors import ConfigError

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["ClassSizes", "check_fraction"]


def check_fraction(value: float, what: str) -> float:
    """``value`` as a float in (0, 1]; a one-line ConfigError naming ``what`` otherwise."""
    v = float(value)
    if not (0.0 < v <= 1.0):
        raise ConfigError(f"{what} must be in (0, 1], got {value!r}")
    return v


@dataclass(frozen=True, eq=False)
class ClassSizes:
    """Sizes of the released equivalence classes, and the records left out of them.

    Attributes
    ----------
    sizes : numpy.ndarray
        (c,) int64 records per released class, each at least 1.
    records_excluded : int
        Records suppressed (in no released class); reported, never counted.
    size_values, size_counts : numpy.ndarray
        The frequencies of frequencies: ``size_counts[i]`` classes have
        ``size_values[i]`` records (``size_values`` ascending).
    """

    sizes: NDArray[np.int64]
    records_excluded: int = 0
    size_values: NDArray[np.int64] = field(init=False, repr=False)
    size_counts: NDArray[np.int64] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        values, counts = np.unique(self.sizes, return_counts=True)
        object.__setattr__(self, "size_values", values.astype(np.int64))
        object.__setattr__(self, "size_counts", counts.astype(np.int64))

    @classmethod
    def of(cls, sizes: ArrayLike, records_excluded: int = 0) -> ClassSizes:
        """Checked class sizes: a non-empty 1-d array of integers >= 1, and a count of excluded records >= 0."""
        arr = np.asarray(sizes)
        if arr.ndim != 1 or arr.size == 0:
            raise ConfigError(f"class sizes must be a non-empty 1-d array, got shape {arr.shape}")
        whole = np.issubdtype(arr.dtype, np.integer) or (
            np.issubdtype(arr.dtype, np.floating) and bool(np.all(arr == np.round(arr))))
        if not whole:
            raise ConfigError("class sizes must be whole numbers of records")
        sizes64 = arr.astype(np.int64)
        if int(sizes64.min()) < 1:
            raise ConfigError(f"every class size must be at least 1, got {int(sizes64.min())}")
        excluded = int(records_excluded)
        if excluded < 0 or excluded != records_excluded:
            raise ConfigError(f"records_excluded must be a whole number >= 0, got {records_excluded!r}")
        return cls(sizes64, excluded)

    @property
    def n_records(self) -> int:
        """n: records in the released classes."""
        return int(self.sizes.sum())

    @property
    def n_classes(self) -> int:
        """Number of released classes."""
        return int(self.sizes.size)

    def classes_of_size(self, size: int) -> int:
        """How many classes have exactly ``size`` records."""
        hit = self.size_values == size
        return int(self.size_counts[hit][0]) if hit.any() else 0
