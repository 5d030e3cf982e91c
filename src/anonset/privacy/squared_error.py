"""Squared-error diversity (LeFevre et al.) for a numeric sensitive attribute.

A class satisfies it when the sum of squared deviations of the sensitive
values from the class mean is at least ``error``.  Merging classes never
lowers that sum, so the model is monotone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np

from anonset.core.specs import AttributeType
from anonset.core.stats import ClassStats, StatsRequest
from anonset.errors import ConfigError
from anonset.privacy.base import PrivacyModel, require_number, require_sensitive

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset


__all__ = ["SquaredErrorDiversity"]


class SquaredErrorDiversity(PrivacyModel):
    """Σ (s_i − mean)² >= ``error`` within every class.

    Parameters
    ----------
    attribute : str
        A numeric sensitive attribute.
    error : float
        Minimum within-class sum of squared errors (>= 0).
    """

    monotonic = True

    def __init__(self, attribute: str, error: float):
        self.attribute = attribute
        self.error = require_number(self._owner, "error", error, 0.0)

    @property
    def request(self) -> StatsRequest:
        return StatsRequest(moments=frozenset([self.attribute]))

    def validate(self, dataset: Dataset) -> None:
        """The attribute must be a numeric sensitive attribute."""
        require_sensitive(self._owner, dataset, self.attribute)
        if dataset.specs[self.attribute].type is not AttributeType.NUMERIC:
            raise ConfigError(f"{self._owner}: {self.attribute!r} must be numeric; set `type: numeric` on it")

    @property
    def _owner(self) -> str:
        return f"squared-error diversity on {self.attribute!r}"

    def satisfied(self, stats: ClassStats) -> NDArray[np.bool_]:
        """sumsq − sum²/n >= error per class."""
        s = stats.sums[self.attribute]
        sq = stats.sumsq[self.attribute]
        sse = sq - s * s / np.maximum(stats.sizes, 1)
        tol = 1e-9 * np.maximum(1.0, np.abs(sq))
        return cast("NDArray[np.bool_]", sse >= self.error - tol)

    def describe(self) -> str:
        return f"squared-error diversity >= {self.error:g} on {self.attribute}"
