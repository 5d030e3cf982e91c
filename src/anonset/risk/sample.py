"""Sample-based re-identification risk: prosecutor, journalist and marketer measures from class sizes.

For released classes of sizes f_j holding n records (suppressed records are
excluded; see :class:`~anonset.risk.classes.ClassSizes`), a record of class j
is re-identified with probability 1/f_j by an attacker who knows it is in the
release (the prosecutor model).  From that:

- highest risk ``1 / min f_j`` and the fraction of records at that risk;
- average risk ``(number of classes) / n`` (the mean of 1/f_j over records);
- records above a threshold t: the fraction of records with 1/f_j > t;
- sample uniques: the fraction of records in classes of size 1;
- marketer risk ``(number of classes) / n``: the expected fraction of records
  an attacker re-identifies by matching every record of the release.

With population class sizes F_j (the sizes of the same classes in the
population the release was drawn from), the journalist model gives highest
risk ``1 / min F_j``, the records above a threshold t (those with
1/F_j > t), and, as ARX's sample risk summary computes it, average risk
``max(c / sum_j F_j, (1/n) * sum_j f_j / F_j)`` (c classes); the marketer
risk is then ``(1/n) * sum_j f_j / F_j`` (ARX's).  Without a population
every F_j = f_j: the journalist measures are the prosecutor's, the marketer
risk c / n.

These are the measures of El Emam, "Guide to the De-Identification of
Personal Health Information" (its chapters on measuring risk), and of Dankar
and El Emam, "A method for evaluating marketer re-identification risk".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from anonset.errors import ConfigError
from anonset.risk.classes import ClassSizes, check_fraction

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["DEFAULT_THRESHOLDS", "JournalistRisk", "SampleRisk", "sample_risk"]

#: Thresholds reported when none are given (1/f_j > 0.2 is a class below 5; > 0.05 below 20).
DEFAULT_THRESHOLDS: tuple[float, ...] = (0.5, 0.2, 0.1, 0.05)


@dataclass(frozen=True)
class JournalistRisk:
    """Journalist risk: re-identification by matching against the population (needs population class sizes)."""

    highest: float
    average: float
    records_above: dict[float, float]


@dataclass(frozen=True)
class SampleRisk:
    """Risk measures of one table or release, from its class sizes alone.

    ``records_above`` maps each threshold t to the fraction of records with
    1/f_j > t.  ``journalist`` is None when no population class sizes were given.
    """

    records: int
    records_excluded: int
    classes: int
    highest_risk: float
    records_at_highest_risk: float
    average_risk: float
    sample_uniques: float
    records_above: dict[float, float]
    prosecutor_highest: float
    prosecutor_average: float
    marketer: float
    journalist: JournalistRisk | None


def _journalist(cs: ClassSizes, population_sizes: ArrayLike, thresholds: Sequence[float]) -> JournalistRisk:
    """ARX's journalist measures: 1/F_j per record, the average the larger of c / Σ F_j and the mean of 1/F_j."""
    pop = np.asarray(population_sizes, dtype=np.float64)
    if pop.shape != cs.sizes.shape:
        raise ConfigError(f"population class sizes must align with the {cs.n_classes} sample classes, "
                          f"got shape {pop.shape}")
    if not np.all(pop >= cs.sizes):
        raise ConfigError("a population class size is smaller than its sample class size")
    sizes = cs.sizes.astype(np.float64)
    mean_inverse = float(np.sum(sizes / pop) / cs.n_records)
    return JournalistRisk(highest=float(1.0 / pop.min()), average=max(cs.n_classes / float(pop.sum()), mean_inverse),
                          records_above={t: float(sizes[1.0 / pop > t].sum() / cs.n_records) for t in thresholds})


def sample_risk(sizes: ArrayLike | ClassSizes, *, records_excluded: int = 0,
                thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
                population_sizes: ArrayLike | None = None) -> SampleRisk:
    """Sample-based risk of released classes of ``sizes`` (e.g. ``ClassStats.sizes``).

    ``records_excluded`` counts suppressed records (ignored when ``sizes`` is
    already a :class:`ClassSizes`); ``thresholds`` must each be in (0, 1];
    ``population_sizes`` (F_j, aligned with ``sizes``) adds the journalist risk.
    """
    cs = sizes if isinstance(sizes, ClassSizes) else ClassSizes.of(sizes, records_excluded)
    ts = [check_fraction(t, "a risk threshold") for t in thresholds]
    n = cs.n_records
    smallest = int(cs.sizes.min())
    # records above t: sum of f_j over classes with 1/f_j > t, i.e. f_j < 1/t; read off the frequencies of frequencies
    recs_by_size = cs.size_values * cs.size_counts
    cum = np.cumsum(recs_by_size)
    above: dict[float, float] = {}
    for t in ts:
        k = int(np.searchsorted(cs.size_values, 1.0 / t, side="left"))  # sizes strictly below 1/t
        # guard the float boundary: keep exactly the classes with 1/f > t
        while k > 0 and not (1.0 / float(cs.size_values[k - 1]) > t):
            k -= 1
        while k < cs.size_values.size and 1.0 / float(cs.size_values[k]) > t:
            k += 1
        above[t] = float(cum[k - 1] / n) if k > 0 else 0.0
    average = cs.n_classes / n
    journalist = None if population_sizes is None else _journalist(cs, population_sizes, ts)
    return SampleRisk(
        records=n,
        records_excluded=cs.records_excluded,
        classes=cs.n_classes,
        highest_risk=1.0 / smallest,
        records_at_highest_risk=float(recs_by_size[0] / n),
        average_risk=average,
        sample_uniques=cs.classes_of_size(1) / n,
        records_above=above,
        prosecutor_highest=1.0 / smallest,
        prosecutor_average=average,
        marketer=average if population_sizes is None else float(
            np.sum(cs.sizes / np.asarray(population_sizes, dtype=np.float64)) / n),
        journalist=journalist,
    )
