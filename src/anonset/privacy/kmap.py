"""Estimated k-map (El Emam and Dankar; ARX's ``KMap`` with an estimator): k-anonymity against the population.

k-map asks that every released class match at least ``k`` people of the
population the sample was drawn from, not only ``k`` records of the sample.
Without the population at hand, ARX estimates it: the sample holds a
fraction ``f = n / N`` of the population (or ``f`` is given), a class of the
population of size ``k`` is expected to leave ``λ = f · k`` records in the
sample, and a class-size floor ``k'`` is derived from the Poisson (or
zero-truncated Poisson) distribution with mean ``λ`` at a significance
level α; every class then needs at least ``k'`` records, which is
k'-anonymity.  anonset derives ``k'`` exactly as ARX 3.9.2 does:

- Poisson: ``k' = c + 2`` for the smallest ``c >= 0`` with
  ``P(X <= c) >= 1 − α``;
- zero-truncated Poisson: ``k' = c + 1`` for the smallest ``c >= 1`` with
  ``P(X <= c | X >= 1) >= 1 − α`` (the sum taken term by term, as ARX does);

each capped at ``k`` (a floor of ``k`` already guarantees ``k`` people).  A
floor above the number of records is refused, as k-anonymity refuses a k
larger than the table (ARX caps it at the records instead, which leaves one
class).  The type-I error is ``1 − P(...)`` at the ``c`` found (0 when the
floor was capped at ``k``).

A class-size floor (:attr:`~anonset.privacy.base.PrivacyModel.size_only`):
monotone with and without a suppression budget, enforced by every method
that enforces k-anonymity.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from anonset.core.stats import ClassStats
from anonset.errors import ConfigError
from anonset.privacy.base import PrivacyModel, require_int, require_number

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset

__all__ = ["KMAP_ESTIMATORS", "KMap", "derived_k"]

#: The cell-size estimators ARX offers.
KMAP_ESTIMATORS = ("poisson", "zero_truncated_poisson")


def _poisson_term(lam: float, c: int) -> float:
    """``P(X = c)`` for X ~ Poisson(λ), computed in logarithms (no overflow for large c)."""
    return math.exp(c * math.log(lam) - lam - math.lgamma(c + 1)) if lam > 0 else float(c == 0)


def derived_k(k: int, fraction: float, estimator: str, significance: float) -> tuple[int, float]:
    """ARX's class-size floor ``k'`` for k-map at sampling fraction ``fraction``, and its type-I error.

    Not compared with the number of records (:meth:`KMap.validate` refuses a floor above it).
    """
    lam = fraction * k
    threshold = 1.0 - significance
    if estimator == "poisson":
        value, c = 0.0, 0
        while c + 1 < k:
            value += _poisson_term(lam, c)
            if value >= threshold:
                return c + 2, 1.0 - value
            c += 1
        return k, 0.0
    truncated = -math.expm1(-lam)  # P(X >= 1)
    value, c = 0.0, 1
    while c + 1 < k:
        value += _poisson_term(lam, c) / truncated
        if value >= threshold:
            return c + 1, 1.0 - value
        c += 1
    return k, 0.0


class KMap(PrivacyModel):
    """Estimated k-map: every class holds at least the derived ``k'`` records (see the module).

    Parameters
    ----------
    k : int
        How many people of the population each class must match, >= 2.
    population_size : int, optional
        Records in the population the sample was drawn from (at least the
        sample's); the sampling fraction is then ``n / population_size``.
    sampling_fraction : float, optional
        The sample's share of the population, in (0, 1]; give this or
        ``population_size``.
    estimator : {"poisson", "zero_truncated_poisson"}
        The distribution of a population class's records in the sample.
    significance : float
        α, in (0, 1): the accepted chance that a class matches fewer than
        ``k`` people.
    """

    monotonic = True
    size_only = True

    def __init__(self, k: int, population_size: int | None = None, sampling_fraction: float | None = None,
                 estimator: str = "poisson", significance: float = 0.01):
        owner = "k-map"
        self.k = require_int(owner, "k", k, 2)
        if (population_size is None) == (sampling_fraction is None):
            raise ConfigError("k-map: give the population as population_size (its records) or sampling_fraction"
                              " (the sample's share of it), one of the two")
        self.population_size = None if population_size is None else require_int(owner, "population_size",
                                                                               population_size, 1)
        self.sampling_fraction = None if sampling_fraction is None else require_number(
            owner, "sampling_fraction", sampling_fraction, 0.0, 1.0, strict=True)
        if estimator not in KMAP_ESTIMATORS:
            raise ConfigError(f"k-map: the 'estimator' parameter must be one of {' | '.join(KMAP_ESTIMATORS)};"
                              f" got {estimator!r}")
        self.estimator = estimator
        self.significance = require_number(owner, "significance", significance, 0.0, 1.0, strict=True)
        if self.significance >= 1.0:
            raise ConfigError(f"k-map: the 'significance' parameter must be below 1; got {significance!r}")
        self._derived: tuple[int, float] | None = None
        if self.sampling_fraction is not None:
            self._derived = derived_k(self.k, self.sampling_fraction, estimator, self.significance)

    @property
    def min_class_size(self) -> int:
        """The derived floor ``k'`` (known once validated when the population is given by its size)."""
        return 1 if self._derived is None else self._derived[0]

    @property
    def type1_error(self) -> float | None:
        """The chance, under the estimator, that a class of ``k'`` records matches fewer than ``k`` people."""
        return None if self._derived is None else self._derived[1]

    def validate(self, dataset: Dataset) -> None:
        """Derive ``k'`` from the table's size (and the population's); a ``k'`` above the records is refused."""
        n = dataset.n_rows
        if self.population_size is not None:
            if self.population_size < n:
                raise ConfigError(f"k-map: population_size = {self.population_size:,} is smaller than the sample"
                                  f" ({n:,} records in {dataset.source}); give the population the sample was drawn"
                                  " from")
            fraction = n / self.population_size
        else:
            assert self.sampling_fraction is not None
            fraction = self.sampling_fraction
        floor, error = derived_k(self.k, fraction, self.estimator, self.significance)
        if floor > n:
            raise ConfigError(f"k-map: the derived class size {floor} is larger than the table ({n} records in"
                              f" {dataset.source}); lower k or use more data")
        self._derived = (floor, error)

    def satisfied(self, stats: ClassStats) -> NDArray[np.bool_]:
        """Class size >= ``k'``."""
        if self._derived is None:
            raise RuntimeError("KMap.validate(dataset) must be called before judging classes")
        return np.asarray(stats.sizes >= self._derived[0], dtype=np.bool_)

    def describe(self) -> str:
        """E.g. ``5-map (estimated as 2-anonymity, Poisson, significance 0.01)``."""
        estimate = "" if self._derived is None else f"as {self._derived[0]}-anonymity, "
        words = self.estimator.replace("_", "-").replace("poisson", "Poisson")
        return f"{self.k}-map (estimated {estimate}{words}, significance {self.significance:g})"

    def summary(self) -> dict[str, object]:
        """Parameters, the derived floor and its type-I error."""
        out: dict[str, object] = {"model": "KMap", "k": self.k, "estimator": self.estimator,
                                  "significance": self.significance}
        if self.population_size is not None:
            out["population_size"] = self.population_size
        if self.sampling_fraction is not None:
            out["sampling_fraction"] = self.sampling_fraction
        if self._derived is not None:
            out["derived_k"], out["type1_error"] = self._derived
        return out
