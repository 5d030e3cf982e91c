"""Risk-based privacy models: bounds on re-identification risk figures of the release.

Four models, each with a bound in (0, 1]:

- :class:`HighestRisk` ``r``: every released record has prosecutor risk
  ``1/f <= r``; that is exactly k-anonymity with ``k = ceil(1/r)`` (the
  smallest k with ``1/k <= r`` in floating point), and it is implemented as
  such (a :class:`~anonset.privacy.kanonymity.KAnonymity`, judged per class,
  monotone).
- :class:`AverageRisk` ``r``: the average risk of the released records,
  ``classes / records`` over the classes that are not suppressed
  (:mod:`anonset.risk.sample`), is at most r.
- :class:`SampleUniqueness` ``u``: the fraction of released records in
  classes of size 1 is at most u.
- :class:`PopulationUniqueness` ``u``: the estimated fraction of population
  records that are unique (Pitman, Zayatz, SNB, or Dankar et al.'s decision
  rule among them; :mod:`anonset.risk.population`), given the sampling
  fraction or the population size, is at most u.

The last three are properties of the whole release, not of each class
(``release_level = True``).  Their per-class verdict is a suppression rule:
the classes are removed smallest size first, a whole size at a time (every
class of the smallest remaining size together, so the verdict does not
depend on the order of the classes), until the figure computed over the
classes left is within the bound; the removed classes are the violating
ones.  Removing the smallest classes lowers the average risk (a class below
the mean size raises it) and removes uniques first, so this is the least
suppression of its kind.  For the uniqueness models the rule keeps every
class when the figure is within the bound and otherwise removes exactly the
classes of size 1 (with no sample uniques every estimate is 0).  When no
class can be kept, every class violates.  :meth:`Requirements.judge
<anonset.privacy.base.Requirements.judge>` applies these models after the
per-class models, on the classes those kept, and the suppression budget
then decides feasibility.

Monotonicity (``monotonic`` means: without suppression).  Without
suppression a node satisfies the model exactly when the figure over all its
classes is within the bound.  Merging classes lowers ``classes / records``
and never creates a class of size 1, so :class:`AverageRisk` and
:class:`SampleUniqueness` are monotone.  The population estimators are not
monotone in the frequencies of frequencies, so :class:`PopulationUniqueness`
declares ``monotonic = False``.  With a suppression budget none of the three
is monotone (Requirements then reports non-monotone requirements and the
exact search judges every node it cannot prune through k-anonymity).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from anonset.core.stats import ClassStats
from anonset.errors import ConfigError
from anonset.privacy.base import PrivacyModel, require_number
from anonset.privacy.kanonymity import KAnonymity
from anonset.risk.classes import ClassSizes

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset

__all__ = ["ESTIMATORS", "AverageRisk", "HighestRisk", "PopulationUniqueness", "SampleUniqueness", "k_of_risk"]

#: Population-uniqueness estimators; ``dankar`` is Dankar et al.'s decision rule among the other three.
ESTIMATORS = ("pitman", "zayatz", "snb", "dankar")


def k_of_risk(r: float) -> int:
    """The smallest k with ``1/k <= r`` (floating point, as the risk figures compare): ``ceil(1/r)``."""
    k = max(1, math.ceil(1.0 / r - 1e-9))
    while k > 1 and 1.0 / (k - 1) <= r:
        k -= 1
    while 1.0 / k > r:
        k += 1
    return k


class HighestRisk(KAnonymity):
    """Highest prosecutor risk ``1/f <= r`` for every released record: k-anonymity with ``k = ceil(1/r)``.

    Parameters
    ----------
    r : float
        The bound, in (0, 1].
    """

    def __init__(self, r: float):
        self.r = require_number("highest risk", "r", r, 0.0, 1.0, strict=True)
        super().__init__(k_of_risk(self.r))

    def describe(self) -> str:
        """E.g. ``highest risk <= 0.2 (5-anonymity)``."""
        return f"highest risk <= {self.r:g} ({self.k}-anonymity)"


def _keep_from(sizes: NDArray[np.int64], threshold: float) -> NDArray[np.bool_]:
    return np.asarray(sizes >= threshold, dtype=np.bool_)


class AverageRisk(PrivacyModel):
    """Average re-identification risk ``classes / records`` of the released classes at most ``r``.

    Parameters
    ----------
    r : float
        The bound, in (0, 1].
    """

    monotonic = True
    release_level = True

    def __init__(self, r: float):
        self.r = require_number("average risk", "r", r, 0.0, 1.0, strict=True)

    @property
    def protects(self) -> bool:
        """r < 1: an average risk of 1 holds for every table."""
        return self.r < 1

    def satisfied(self, stats: ClassStats) -> NDArray[np.bool_]:
        """Kept classes: all sizes >= the smallest threshold whose classes have average risk <= r."""
        sizes = stats.sizes
        if len(sizes) == 0:
            return np.ones(0, dtype=np.bool_)
        values, counts = np.unique(sizes, return_counts=True)
        # classes and records of the classes of size >= values[i]
        classes = np.cumsum(counts[::-1])[::-1]
        records = np.cumsum((values * counts)[::-1])[::-1]
        within = np.flatnonzero(classes / records <= self.r)
        return _keep_from(sizes, float(values[within[0]]) if len(within) else math.inf)

    def describe(self) -> str:
        """E.g. ``average risk <= 0.1``."""
        return f"average risk <= {self.r:g}"


class SampleUniqueness(PrivacyModel):
    """Fraction of released records in classes of size 1 at most ``u``.

    Parameters
    ----------
    u : float
        The bound, in (0, 1].
    """

    monotonic = True
    release_level = True

    def __init__(self, u: float):
        self.u = require_number("sample uniqueness", "u", u, 0.0, 1.0, strict=True)

    @property
    def protects(self) -> bool:
        """u < 1: at most every record is unique."""
        return self.u < 1

    def satisfied(self, stats: ClassStats) -> NDArray[np.bool_]:
        """Every class when the uniques are at most u of the records; otherwise every class but the uniques."""
        sizes = stats.sizes
        if len(sizes) == 0 or int((sizes == 1).sum()) / int(sizes.sum()) <= self.u:
            return np.ones(len(sizes), dtype=np.bool_)
        return _keep_from(sizes, 2)

    def describe(self) -> str:
        """E.g. ``sample uniqueness <= 0.05``."""
        return f"sample uniqueness <= {self.u:g}"


class PopulationUniqueness(PrivacyModel):
    """Estimated fraction of population records that are unique at most ``u``.

    Parameters
    ----------
    u : float
        The bound, in (0, 1].
    sampling_fraction, population_size : float
        Exactly one: the fraction of the population the released records are
        (kept fixed when records are suppressed: the population is then
        ``n / sampling_fraction``), or the population size N (kept fixed).
    estimator : str
        ``pitman``, ``zayatz``, ``snb`` or ``dankar`` (the decision rule; the default).
        An estimate that is not available (e.g. Pitman on too few classes) fails the bound.
    """

    monotonic = False
    release_level = True

    def __init__(self, u: float, sampling_fraction: float | None = None, population_size: float | None = None,
                 estimator: str = "dankar"):
        self.u = require_number("population uniqueness", "u", u, 0.0, 1.0, strict=True)
        if (sampling_fraction is None) == (population_size is None):
            raise ConfigError("population uniqueness: give exactly one of sampling_fraction and population_size")
        self.sampling_fraction = None if sampling_fraction is None else require_number(
            "population uniqueness", "sampling_fraction", sampling_fraction, 0.0, 1.0, strict=True)
        self.population_size = None if population_size is None else require_number(
            "population uniqueness", "population_size", population_size, 1.0)
        if estimator not in ESTIMATORS:
            raise ConfigError(f"population uniqueness: the 'estimator' parameter must be one of"
                              f" {' | '.join(ESTIMATORS)}; got {estimator!r}")
        self.estimator = estimator

    @property
    def protects(self) -> bool:
        """u < 1: at most every record of the population is unique."""
        return self.u < 1

    def figure(self, sizes: NDArray[np.int64]) -> float | None:
        """The chosen estimate for released classes of ``sizes`` (None: not available)."""
        from anonset.risk.population import population_uniqueness  # loads scipy: only when this model is judged

        est = population_uniqueness(ClassSizes.of(sizes), sampling_fraction=self.sampling_fraction,
                                    population_size=self.population_size)
        value: float | None = est.decision_rule if self.estimator == "dankar" else getattr(est, self.estimator)
        return value

    def satisfied(self, stats: ClassStats) -> NDArray[np.bool_]:
        """Every class when the estimate is at most u; otherwise every class but the sample uniques."""
        sizes = stats.sizes
        if len(sizes) == 0 or not (sizes == 1).any():
            return np.ones(len(sizes), dtype=np.bool_)
        value = self.figure(sizes)
        if value is not None and value <= self.u:
            return np.ones(len(sizes), dtype=np.bool_)
        return _keep_from(sizes, 2)

    def validate(self, dataset: Dataset) -> None:
        """The population must be one the models compute with, and no smaller than the table (before any search)."""
        from anonset.risk.population import check_population

        if self.population_size is not None and self.population_size < dataset.n_rows:
            raise ConfigError(f"population uniqueness: population_size {self.population_size:g} is smaller than"
                              f" the table ({dataset.n_rows} records in {dataset.source})")
        try:
            check_population(dataset.n_rows, self.sampling_fraction, self.population_size)
        except ConfigError as exc:
            raise ConfigError(f"population uniqueness: {exc}") from None

    def describe(self) -> str:
        """E.g. ``population uniqueness (pitman, sampling fraction 0.01) <= 0.01``."""
        given = (f"sampling fraction {self.sampling_fraction:g}" if self.sampling_fraction is not None
                 else f"population {self.population_size:g}")
        return f"population uniqueness ({self.estimator}, {given}) <= {self.u:g}"
