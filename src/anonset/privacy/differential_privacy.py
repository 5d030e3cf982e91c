"""(ε, δ)-differential privacy by sampling and generalization: SafePub (Bild, Kuhn and Prasser), as ARX 3.9.2 runs it.

Li, Qardaji and Su showed that k-anonymization preceded by random sampling
satisfies (ε, δ)-differential privacy when the generalization is chosen
without looking at the data and every class of fewer than k records is
suppressed.  SafePub derives the parameters from ε and δ:

- each record is kept with probability ``β = 1 − e^−ε``;
- with ``γ = (e^ε − 1 + β) / e^ε`` and ``n_m = ⌈k/γ − 1⌉``, the δ that a
  class-size floor k achieves is ``δ(k) = max over n ≥ n_m of
  P(Binomial(n, β) > ⌊γ n⌋)``, the maximum found when it exceeds the
  Chernoff bound ``exp(−n (γ ln(γ/β) − (γ − β)))`` of every later term;
- k is the one ARX's loop returns: one more than the smallest k with
  ``δ(k) < δ`` (for ε = 2, δ = 1e-5: 114, as ARX derives).

ARX computes these with interval arithmetic and takes the bounds on the safe
side; anonset computes them in double precision (the tail sums with scipy's
binomial survival function), which gives ARX's k and β (to 1e-15 for β) on
the parameters tested.

The generalization is fixed before the data is seen: per quasi-identifier
the level ``round(factor × height)`` of ARX's degrees (``low`` 0.2,
``low_medium`` 0.4, ``medium`` 0.5, ``medium_high`` 0.6, ``high`` 0.8; halves
round up, as Java's ``Math.round``), or a level given per attribute.  SafePub's
other mode, a search charged to the privacy budget, is not offered.

The model is a class-size floor (``k``) over the sample; it is the only
model of a release, which suppresses (drops) as many records as the floor
takes.  :mod:`anonset.release.sampling` draws the sample.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from anonset.core.stats import ClassStats
from anonset.errors import ConfigError
from anonset.privacy.base import PrivacyModel, require_number

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset

__all__ = ["GENERALIZATION_DEGREES", "DifferentialPrivacy", "safepub_parameters"]

#: ARX's generalization degrees: the share of each hierarchy's height a scheme generalizes to.
GENERALIZATION_DEGREES = {"low": 0.2, "low_medium": 0.4, "medium": 0.5, "medium_high": 0.6, "high": 0.8}


def safepub_parameters(epsilon: float, delta: float) -> tuple[float, int]:
    """The sampling probability β and the class-size floor k that give (ε, δ)-differential privacy (see the module)."""
    from scipy.stats import binom  # the tail sums; scipy is loaded only when a model is built

    beta = 1.0 - math.exp(-epsilon)
    power = math.exp(epsilon)
    gamma = (power - 1.0 + beta) / power
    chernoff = gamma * math.log(gamma / beta) - (gamma - beta)
    tails: list[float] = []  # tails[n] = P(Binomial(n, β) > ⌊γ n⌋), computed in blocks as far as needed

    def tail(n: int) -> float:
        while n >= len(tails):
            block = np.arange(len(tails), len(tails) + 4096)
            tails.extend(binom.sf(np.floor(block * gamma), block, beta).tolist())
        return tails[n]

    def delta_of(k: int) -> float:
        n = math.ceil(k / gamma - 1.0)
        worst, bound = -math.inf, math.inf
        while worst <= bound:
            worst = max(worst, tail(n))
            bound = math.exp(-n * chernoff)
            n += 1
        return worst

    k = 1
    reached = math.inf
    while not reached < delta:
        reached = delta_of(k)
        k += 1
    return beta, k


class DifferentialPrivacy(PrivacyModel):
    """(ε, δ)-differential privacy by SafePub's sampling, fixed generalization and k (see the module).

    Parameters
    ----------
    epsilon : float
        ε > 0; smaller is stricter (fewer records sampled, a larger k).
    delta : float
        δ in (0, 1); smaller is stricter (a larger k).
    generalization : str or mapping of str to int
        One of :data:`GENERALIZATION_DEGREES` (default ``medium``), or the
        level of every quasi-identifier by name.
    """

    monotonic = True
    size_only = True

    def __init__(self, epsilon: float, delta: float, generalization: str | Mapping[str, int] = "medium"):
        owner = "differential privacy"
        self.epsilon = require_number(owner, "epsilon", epsilon, 0.0, strict=True)
        self.delta = require_number(owner, "delta", delta, 0.0, 1.0, strict=True)
        if self.delta >= 1.0:
            raise ConfigError(f"differential privacy: the 'delta' parameter must be below 1; got {delta!r}")
        if isinstance(generalization, str):
            if generalization not in GENERALIZATION_DEGREES:
                raise ConfigError(f"differential privacy: generalization must be one of"
                                  f" {' | '.join(GENERALIZATION_DEGREES)} or a level per quasi-identifier; got"
                                  f" {generalization!r}")
            self.generalization: str | dict[str, int] = generalization
        elif isinstance(generalization, Mapping):
            levels: dict[str, int] = {}
            for name, level in generalization.items():
                if isinstance(level, bool) or not isinstance(level, int) or level < 0:
                    raise ConfigError(f"differential privacy: generalization.{name} must be a level (an int >= 0);"
                                      f" got {level!r}")
                levels[str(name)] = int(level)
            self.generalization = levels
        else:
            raise ConfigError("differential privacy: generalization must be a degree such as medium or a mapping"
                              f" quasi-identifier -> level; got {generalization!r}")
        self.sampling_probability, self.k = safepub_parameters(self.epsilon, self.delta)

    @property
    def min_class_size(self) -> int:
        """The k derived from ε and δ."""
        return self.k

    def fixed_levels(self, dataset: Dataset) -> tuple[int, ...]:
        """The node released, chosen from the hierarchies alone: a degree's share of each height, or the levels."""
        out = []
        for q, hierarchy in zip(dataset.quasi, dataset.hierarchies, strict=True):
            top = hierarchy.max_level
            if isinstance(self.generalization, str):
                level = math.floor(GENERALIZATION_DEGREES[self.generalization] * top + 0.5)
            else:
                level = self.generalization[q]
            out.append(min(level, top))
        return tuple(out)

    def validate(self, dataset: Dataset) -> None:
        """The levels given name every quasi-identifier, no other column, and no level above its hierarchy's top."""
        if isinstance(self.generalization, str):
            return
        quasi = set(dataset.quasi)
        unknown = sorted(set(self.generalization) - quasi)
        missing = [q for q in dataset.quasi if q not in self.generalization]
        if unknown:
            raise ConfigError(f"differential privacy: generalization names {unknown[0]!r}, which is not a"
                              f" quasi-identifier of {dataset.source}; name each of {', '.join(dataset.quasi)}")
        if missing:
            raise ConfigError(f"differential privacy: generalization gives no level for {missing[0]!r}; give one for"
                              " every quasi-identifier (or a degree such as medium)")
        for q, hierarchy in zip(dataset.quasi, dataset.hierarchies, strict=True):
            if self.generalization[q] > hierarchy.max_level:
                raise ConfigError(f"differential privacy: generalization.{q} = {self.generalization[q]} is above"
                                  f" the top of its hierarchy (level {hierarchy.max_level})")

    def satisfied(self, stats: ClassStats) -> NDArray[np.bool_]:
        """Class size >= k (on the sample)."""
        return np.asarray(stats.sizes >= self.k, dtype=np.bool_)

    def describe(self) -> str:
        """E.g. ``(2, 1e-05)-differential privacy (a 0.8647 sample, 114-anonymous, medium generalization)``."""
        scheme = self.generalization if isinstance(self.generalization, str) else "levels given"
        return (f"({self.epsilon:g}, {self.delta:g})-differential privacy (a {self.sampling_probability:.4g} sample,"
                f" {self.k}-anonymous, {scheme} generalization)")

    def summary(self) -> dict[str, object]:
        """ε, δ, the generalization, and the sampling probability and k derived from them."""
        return {"model": "DifferentialPrivacy", "epsilon": self.epsilon, "delta": self.delta,
                "generalization": self.generalization, "sampling_probability": self.sampling_probability,
                "k": self.k}
