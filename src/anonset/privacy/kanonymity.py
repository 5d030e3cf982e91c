"""k-anonymity (Samarati and Sweeney): every class has at least k records."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from anonset.core.stats import ClassStats
from anonset.errors import ConfigError
from anonset.privacy.base import PrivacyModel, require_int

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset


__all__ = ["KAnonymity"]


class KAnonymity(PrivacyModel):
    """Every equivalence class holds at least ``k`` records.

    Parameters
    ----------
    k : int
        Minimum class size, >= 1 (k = 1 is no protection and allowed only for comparison).
    """

    monotonic = True
    size_only = True

    def __init__(self, k: int):
        self.k = require_int("k-anonymity", "k", k, 1)

    @property
    def min_class_size(self) -> int:
        """k."""
        return self.k

    @property
    def protects(self) -> bool:
        """k >= 2: 1-anonymity holds for every table."""
        return self.k >= 2

    def satisfied(self, stats: ClassStats) -> NDArray[np.bool_]:
        """Class size >= k."""
        return stats.sizes >= self.k

    def validate(self, dataset: Dataset) -> None:
        """k may not exceed the number of records."""
        if self.k > dataset.n_rows:
            raise ConfigError(
                f"k = {self.k} is larger than the table ({dataset.n_rows} records in {dataset.source});"
                " lower k or use more data"
            )

    def describe(self) -> str:
        """E.g. ``5-anonymity``."""
        return f"{self.k}-anonymity"
