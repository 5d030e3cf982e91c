"""ARX's publisher payout: what a release is worth to its publisher, in a game with a re-identifying adversary.

Wan et al.'s game (*A Game Theoretic Framework for Analyzing
Re-Identification Risk*), as ARX 3.9.2 scores it (``MetricSDNMPublisherPayout``
with ``RiskModelCostBenefit``), prosecutor model: a released record earns
the publisher ``benefit × (1 − IL)``, where IL is the class's entropy-based
information loss ``log(area) / log(domain)`` (the area and domain of
:mod:`anonset.metrics.ambiguity`: 0 for an ungeneralized record, 1 for one
generalized to the whole domain); an adversary who attacks it succeeds with
probability ``p = 1 / class size``, gains ``adversary_gain × p`` at a cost
``adversary_cost``, and attacks when that pays, costing the publisher
``publisher_loss × p``.  A suppressed record earns nothing.  The payout is
the sum over records; higher is better, at most ``records × benefit``.
ARX's default parameters are anonset's: benefit 1200, publisher loss 300,
adversary gain 300, adversary cost 4.

With the journalist attacker model (ARX's ``journalistAttackerModel``) the
adversary does not know that a person is in the release, only in the
population: the success probability is ``1 / population count`` of the
class (the population records matching it, counted by a model given a
population table: k-map or δ-presence against it), and ``1 / class size``
for a class no population record matches, as ARX takes it.  It needs
full-domain classes (a level per quasi-identifier).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from anonset.core.dataset import Dataset
from anonset.core.partition import HierarchyNodes, Partition
from anonset.core.stats import ClassStats
from anonset.errors import ConfigError
from anonset.metrics.ambiguity import class_areas, domain_area
from anonset.metrics.base import Metric

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.privacy.population import PopulationModel

__all__ = ["PublisherPayout"]


class PublisherPayout(Metric):
    """The publisher's expected payout over the released records (see the module).

    Parameters
    ----------
    publisher_benefit, publisher_loss, adversary_gain, adversary_cost : float
        The game's parameters (ARX's defaults), each >= 0.
    population : PopulationModel, optional
        The journalist attacker model: the success probability is read from
        this model's population counts (default: the prosecutor model).
    """

    name = "publisher_payout"
    direction = "value"
    additive = True

    def __init__(self, publisher_benefit: float = 1200.0, publisher_loss: float = 300.0,
                 adversary_gain: float = 300.0, adversary_cost: float = 4.0, population: PopulationModel | None = None):
        for what, value in (("publisher_benefit", publisher_benefit), ("publisher_loss", publisher_loss),
                            ("adversary_gain", adversary_gain), ("adversary_cost", adversary_cost)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise ConfigError(f"metric publisher_payout: {what} must be a number >= 0; got {value!r}")
        self.publisher_benefit = float(publisher_benefit)
        self.publisher_loss = float(publisher_loss)
        self.adversary_gain = float(adversary_gain)
        self.adversary_cost = float(adversary_cost)
        #: The model whose population counts the journalist's success probability reads (None: prosecutor).
        self.population = population

    @property
    def attacker(self) -> str:
        """``prosecutor`` (the adversary knows the person is in the release) or ``journalist``."""
        return "prosecutor" if self.population is None else "journalist"

    def success(self, partition: Partition) -> NDArray[np.float64]:
        """(classes,) the adversary's probability of re-identifying a record of each class (see the module)."""
        sizes = partition.sizes.astype(np.float64)
        if self.population is None:
            return 1.0 / sizes
        levels, codes = [], []
        for q, nodes in partition.values.items():
            if not isinstance(nodes, HierarchyNodes) or len(np.unique(nodes.levels)) > 1:
                raise ConfigError(f"metric publisher_payout with the journalist attacker: {q!r} is not released at"
                                  " one hierarchy level; it needs a full-domain method (optimal, exhaustive, rv-*)")
            levels.append(int(nodes.levels[0]))
            codes.append(nodes.codes)
        keys = np.column_stack(codes).astype(np.int32)
        counts = self.population.population_counts(ClassStats(partition.sizes.astype(np.int64), keys,
                                                              levels=tuple(levels)))
        return np.where(counts > 0, 1.0 / np.maximum(counts, 1), 1.0 / sizes)

    def information_loss(self, partition: Partition, dataset: Dataset) -> NDArray[np.float64]:
        """(classes,) each class's entropy-based information loss ``log(area) / log(domain)`` (0 for a domain of 1)."""
        domain = domain_area(dataset)
        if domain <= 1.0:
            return np.zeros(partition.n_classes)
        return np.log10(class_areas(partition, dataset)) / math.log10(domain)

    def score(self, partition: Partition, dataset: Dataset) -> float:
        """Σ over released records of ``benefit × (1 − IL) − (loss × p when the attack pays)``."""
        if partition.n_classes == 0:
            return 0.0
        sizes = partition.sizes.astype(np.float64)
        success = self.success(partition)
        attacked = self.adversary_gain * success - self.adversary_cost > 0
        payout = (self.publisher_benefit * (1.0 - self.information_loss(partition, dataset))
                  - np.where(attacked, self.publisher_loss * success, 0.0))
        return float(np.dot(sizes, payout))
