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

:func:`check_population` refuses what the models cannot compute with: a
population size that is not a finite number no smaller than the table (the
``risk`` command also asks for a whole number), or larger than
:data:`MAX_POPULATION` (2^53), and a sampling fraction outside (0, 1] or so
small that the population it gives is larger than that.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from anonset.errors import ConfigError
from anonset.risk.classes import ClassSizes

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["MAX_POPULATION", "PopulationUniqueness", "check_population", "population_uniqueness"]

#: Sampling fractions up to this use Pitman's model in the decision rule.
PITMAN_UP_TO = 0.1
#: The largest population the models compute with: 2^53, the largest whole number a 64-bit float holds exactly
#: (a population size or the one a sampling fraction gives, ``records / fraction``; Zayatz's hypergeometric
#: probabilities need it as a whole number).
MAX_POPULATION = 2**53


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


def _shown(value: float) -> str:
    """A population size as a message gives it: a whole number with thousands separators, else as a float."""
    if math.isfinite(value) and value == math.floor(value) and abs(value) <= MAX_POPULATION:
        return f"{int(value):,}"
    return f"{value:g}"


def check_population(records: int | None, sampling_fraction: float | None, population_size: float | None, *,
                     fraction_name: str = "sampling_fraction", size_name: str = "population_size",
                     whole: bool = False) -> tuple[float, float]:
    """The population size N and the sampling fraction pi of a table of ``records`` drawn from it.

    Exactly one of ``sampling_fraction`` (pi in (0, 1], N = records / pi) and
    ``population_size`` (N, pi = records / N) is given.  N must be a number
    the models compute with: at most :data:`MAX_POPULATION`, and, given
    directly, a finite number no smaller than the table, and a whole number
    with ``whole`` (the ``risk`` command asks for a count of records; the
    models take any N, as a sampling fraction gives one, Zayatz's rounded).
    ``records`` None checks what a table of any size would refuse (before it
    is read; the figures returned are then those of one record).
    ``fraction_name`` and ``size_name`` name the two in messages (the command
    gives its options, ``--sampling-fraction``).

    Raises
    ------
    ConfigError
        Neither or both are given; the fraction is not in (0, 1] or gives a
        population larger than :data:`MAX_POPULATION`; the size is not a
        finite number (whole, with ``whole``), is larger than that, or is
        smaller than the table.
    """
    if (sampling_fraction is None) == (population_size is None):
        raise ConfigError(f"give exactly one of {fraction_name} and {size_name}")
    n = 1 if records is None else records
    if sampling_fraction is not None:
        pi = float(sampling_fraction)
        if not 0.0 < pi <= 1.0:
            raise ConfigError(f"{fraction_name} {pi!r}: the sampling fraction must be in (0, 1] (the share of the"
                              " population in the table)")
        big_n = n / pi
        if not big_n <= MAX_POPULATION:
            gives = (f"at least 1 / {pi!r} = {big_n:.3g} records" if records is None
                     else f"{records:,} records / {pi!r} = {big_n:.3g}")
            raise ConfigError(f"{fraction_name} {pi!r}: the population it gives ({gives}) is larger than"
                              f" {MAX_POPULATION:,} (2^53), the largest anonset computes with; give a sampling"
                              f" fraction of at least {n / MAX_POPULATION:.3g}"
                              + (" times the table's records" if records is None else ""))
        return big_n, pi
    assert population_size is not None  # exactly one of the two is given
    big_n = float(population_size)
    if not math.isfinite(big_n) or (whole and big_n != math.floor(big_n)):
        raise ConfigError(f"{size_name} {_shown(big_n)}: the population size must be a finite"
                          f"{' whole' if whole else ''} number of records; give the number of records of the"
                          " population the table was drawn from")
    if big_n > MAX_POPULATION:
        raise ConfigError(f"{size_name} {_shown(big_n)}: the population size is larger than {MAX_POPULATION:,}"
                          " (2^53), the largest anonset computes with; give the number of records of the"
                          " population the table was drawn from")
    if big_n < n:
        raise ConfigError(f"{size_name} {_shown(big_n)}: the population size ({_shown(big_n)}) is smaller than the"
                          f" table ({n:,} records); give the size of the population the table was drawn from")
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
    big_n, pi = check_population(cs.n_records, sampling_fraction, population_size)
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
