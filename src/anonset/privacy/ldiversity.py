"""l-diversity (Machanavajjhala et al.): distinct, entropy and recursive (c, l) variants.

Each judges the histogram of a categorical sensitive attribute within every
class.  All three are monotone under generalization without suppression.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import numpy as np

from anonset.core.stats import ClassStats, StatsRequest
from anonset.errors import ConfigError
from anonset.privacy.base import PrivacyModel, require_number, require_sensitive

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset


__all__ = ["VARIANTS", "DistinctLDiversity", "EntropyLDiversity", "RecursiveCLDiversity", "l_diversity"]

_EPS = 1e-9


class _LDiversity(PrivacyModel):
    monotonic = True
    variant = ""

    def __init__(self, attribute: str, l: float):
        self.attribute = attribute
        self.l = require_number(self.owner, "l", l, 1.0)

    @property
    def owner(self) -> str:
        """The model in user words, as messages name it: ``entropy l-diversity on 'disease'``."""
        return f"{self.variant} l-diversity on {self.attribute!r}"

    @property
    def request(self) -> StatsRequest:
        return StatsRequest(histograms=frozenset([self.attribute]))

    @property
    def protects(self) -> bool:
        """l > 1: every class is 1-diverse."""
        return self.l > 1

    def validate(self, dataset: Dataset) -> None:
        """The attribute must be sensitive and have at least l distinct values."""
        require_sensitive(self.owner, dataset, self.attribute)
        n_values = int((dataset.encoded[self.attribute].counts() > 0).sum())
        if self.l > n_values:
            raise ConfigError(
                f"{self.owner}: l = {self.l:g} is larger than the number of distinct values of {self.attribute!r}"
                f" ({n_values}); no class can be {self.l:g}-diverse: lower l"
            )

    @property
    def gives_violation_floor(self) -> bool:
        """True: a group with too few values."""
        return True

    def violation_floor(self, stats: ClassStats) -> NDArray[np.int64]:
        """A group with too few distinct values for a class of it to pass: all its records; else 0.

        A class holds at most the distinct values of the group it is part
        of, so when the group as a whole could not pass with its values
        spread evenly (fewer than ``l`` of them), no class of it passes.
        """
        distinct = (stats.histograms[self.attribute] > 0).sum(axis=1)
        return np.where(self.too_few(distinct), stats.sizes, 0).astype(np.int64)

    def too_few(self, distinct: NDArray[np.integer[Any]]) -> NDArray[np.bool_]:
        """Whether a class holding ``distinct`` values fails whatever their counts."""
        return distinct < self.l - _EPS

    def describe(self) -> str:
        return f"{self.variant} {self.l:g}-diversity on {self.attribute}"


class DistinctLDiversity(_LDiversity):
    """Every class holds at least ``l`` distinct sensitive values."""

    variant = "distinct"

    def satisfied(self, stats: ClassStats) -> NDArray[np.bool_]:
        """Distinct sensitive values per class >= l."""
        return cast("NDArray[np.bool_]", (stats.histograms[self.attribute] > 0).sum(axis=1) >= self.l - _EPS)


class EntropyLDiversity(_LDiversity):
    """The entropy of the sensitive values in every class is at least ``log(l)``."""

    variant = "entropy"

    def satisfied(self, stats: ClassStats) -> NDArray[np.bool_]:
        """-sum p log p >= log l per class."""
        h = stats.histograms[self.attribute].astype(np.float64)
        n = h.sum(axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            p = np.where(h > 0, h / np.maximum(n, 1), 1.0)
            entropy = -(np.where(h > 0, p * np.log(p), 0.0)).sum(axis=1)
        return cast("NDArray[np.bool_]", entropy >= np.log(self.l) - _EPS)

    def too_few(self, distinct: NDArray[np.integer[Any]]) -> NDArray[np.bool_]:
        """The entropy of ``distinct`` values is at most ``log(distinct)``: clearly below ``log(l)`` fails."""
        with np.errstate(divide="ignore"):
            return cast("NDArray[np.bool_]", np.log(distinct) + 1e-12 < np.log(self.l) - _EPS)


class RecursiveCLDiversity(_LDiversity):
    """Recursive (c, l)-diversity: ``r_1 < c (r_l + r_{l+1} + ... + r_m)``.

    ``r_i`` is the i-th largest count of a sensitive value within the class.
    """

    variant = "recursive"

    def __init__(self, attribute: str, l: float, c: float):
        super().__init__(attribute, l)
        if self.l != int(self.l) or self.l < 2:
            raise ConfigError(f"{self.owner}: the 'l' parameter must be an int >= 2; got {l!r}")
        self.c = require_number(self.owner, "c", c, 0.0, strict=True)

    @property
    def owner(self) -> str:
        """The model in user words: ``recursive (c, l)-diversity on 'disease'``."""
        return f"recursive (c, l)-diversity on {self.attribute!r}"

    def satisfied(self, stats: ClassStats) -> NDArray[np.bool_]:
        """Most frequent count < c times the tail sum from the l-th largest on."""
        h = -np.sort(-stats.histograms[self.attribute], axis=1)
        l_int = int(self.l)
        if h.shape[1] < l_int:
            return np.zeros(len(h), dtype=np.bool_)
        tail = h[:, l_int - 1 :].sum(axis=1)
        return cast("NDArray[np.bool_]", h[:, 0] < self.c * tail)

    def describe(self) -> str:
        return f"recursive ({self.c:g}, {int(self.l)})-diversity on {self.attribute}"


#: l-diversity variants by name.
VARIANTS = ("distinct", "entropy", "recursive")


def l_diversity(attribute: str, l: float, variant: str = "distinct", c: float | None = None) -> PrivacyModel:
    """The l-diversity model of a variant given by name (``recursive`` needs ``c``)."""
    if variant == "distinct":
        return DistinctLDiversity(attribute, l)
    if variant == "entropy":
        return EntropyLDiversity(attribute, l)
    if variant == "recursive":
        if c is None:
            raise ConfigError("recursive (c, l)-diversity needs c; give `c` (config) or --c (check)")
        return RecursiveCLDiversity(attribute, l, c)
    raise ConfigError(f"unknown l-diversity variant {variant!r}; use {' | '.join(VARIANTS)}")
