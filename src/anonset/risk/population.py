"""Population uniqueness of a sample: the three models and Dankar et al.'s decision rule among them.

Given the class sizes of a sample of n records drawn from a population of N
(or the sampling fraction pi = n / N), each model estimates the number of
population uniques U (records alone in their class in the population); the
figure reported is U / N, the fraction of population records that are
unique, as ARX reports it.

Dankar, El Emam, Neisa and Roffey, "Estimating the re-identification risk of
clinical data sets" (BMC Medical Informatics and Decision Making, 2012),
choose: Pitman's model when pi <= 0.1 (Zayatz's when Pitman's is not
available); otherwise the smaller of Zayatz's and the SNB estimate (Zayatz's
when SNB's is not available).  A model that is not available is None, never 0.
With no sample uniques every estimate is 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from anonset.errors import ConfigError
from anonset.risk.classes import ClassSizes, check_fraction

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["PopulationUniqueness", "population_uniqueness"]

#: Sampling fractions up to this use Pitman's model in the decision rule.
PITMAN_UP_TO = 0.1


@dataclass(frozen=True)
class PopulationUniqueness:
    """Estimated fraction of population records that are unique, per model (None: not available).

    ``chosen`` names the model the decision rule took (``"pitman"``, ``"zayatz"``,
    ``"snb"``; ``"none"`` when there are no sample uniques, or no model is available).
    """

    records: int
    records_excluded: int
    population_size: float
    sampling_fraction: float
    pitman: float | None
    zayatz: float | None
    snb: float | None
    chosen: str
    decision_rule: float | None


def _population(n: int, sampling_fraction: float | None, population_size: float | None) -> tuple[float, float]:
    if (sampling_fraction is None) == (population_size is None):
        raise ConfigError("give exactly one of sampling_fraction and population_size")
    if sampling_fraction is not None:
        pi = check_fraction(sampling_fraction, "the sampling fraction")
        return n / pi, pi
    assert population_size is not None  # exactly one of the two is given
    big_n = float(population_size)
    if not big_n >= n:
        raise ConfigError(f"the population size ({population_size!r}) is smaller than the table ({n} records)")
    return big_n, n / big_n


def _rule(pi: float, pitman: float | None, zayatz: float | None, snb: float | None) -> tuple[str, float | None]:
    if pi <= PITMAN_UP_TO:
        return ("pitman", pitman) if pitman is not None else ("zayatz", zayatz)
    if snb is not None and zayatz is not None:
        return ("zayatz", zayatz) if zayatz < snb else ("snb", snb)
    return ("zayatz", zayatz) if zayatz is not None else ("snb", snb)


def population_uniqueness(sizes: ArrayLike | ClassSizes, *, sampling_fraction: float | None = None,
                          population_size: float | None = None, records_excluded: int = 0) -> PopulationUniqueness:
    """Population uniqueness of released classes of ``sizes``, given ``sampling_fraction`` or ``population_size``.

    ``records_excluded`` (suppressed records) is reported only: n counts the released records.
    """
    cs = sizes if isinstance(sizes, ClassSizes) else ClassSizes.of(sizes, records_excluded)
    big_n, pi = _population(cs.n_records, sampling_fraction, population_size)
    if cs.classes_of_size(1) == 0:
        return PopulationUniqueness(cs.n_records, cs.records_excluded, big_n, pi, 0.0, 0.0, 0.0, "none", 0.0)
    # the estimators load scipy (half a second): only a run that asks for population figures pays it
    from anonset.risk.pitman import pitman_uniques
    from anonset.risk.snb import snb_uniques
    from anonset.risk.zayatz import zayatz_uniques

    counts = (pitman_uniques(cs, big_n), zayatz_uniques(cs, big_n), snb_uniques(cs, pi, big_n))
    pitman, zayatz, snb = (None if c is None else c / big_n for c in counts)
    chosen, value = _rule(pi, pitman, zayatz, snb)
    return PopulationUniqueness(cs.n_records, cs.records_excluded, big_n, pi, pitman, zayatz, snb,
                                chosen if value is not None else "none", value)
