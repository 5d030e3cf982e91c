"""One risk report as JSON-ready data: the sample measures and, given a population, its uniqueness estimates.

The keys are those of the ``risk`` command and of a release summary's
``risk`` section: ``records``, ``records_excluded`` (suppressed records, left
out of every figure), ``classes``, ``highest_risk``, ``average_risk``,
``records_at_highest_risk``, ``records_above`` (threshold -> fraction of
records), ``sample_uniques`` (fraction), ``population_uniques`` (``pitman``,
``zayatz``, ``snb``, ``chosen_model``, ``chosen``; null where a model is not
available, and null as a whole when no population was given) and
``journalist_risk`` (when population class sizes were given).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import ArrayLike

from anonset.risk.classes import ClassSizes
from anonset.risk.population import population_uniqueness
from anonset.risk.sample import DEFAULT_THRESHOLDS, sample_risk

__all__ = ["risk_report"]


def risk_report(sizes: ArrayLike, *, records_excluded: int = 0, thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
                sampling_fraction: float | None = None, population_size: float | None = None,
                population_sizes: ArrayLike | None = None) -> dict[str, Any]:
    """The risk of released classes of ``sizes`` as a JSON-ready mapping (see the module docstring for the keys).

    Give ``sampling_fraction`` or ``population_size`` for the population-uniqueness
    estimates, ``population_sizes`` (aligned with ``sizes``) for the journalist risk.
    """
    classes = ClassSizes.of(sizes, records_excluded)
    sample = sample_risk(classes, thresholds=thresholds, population_sizes=population_sizes)
    report: dict[str, Any] = {
        "records": sample.records,
        "records_excluded": sample.records_excluded,
        "classes": sample.classes,
        "highest_risk": sample.highest_risk,
        "average_risk": sample.average_risk,
        "records_at_highest_risk": sample.records_at_highest_risk,
        "records_above": {str(t): fraction for t, fraction in sample.records_above.items()},
        "sample_uniques": sample.sample_uniques,
        "population_uniques": None,
    }
    if sampling_fraction is not None or population_size is not None:
        population = population_uniqueness(classes, sampling_fraction=sampling_fraction,
                                           population_size=population_size)
        report["population_uniques"] = {
            "population_size": population.population_size, "sampling_fraction": population.sampling_fraction,
            "pitman": population.pitman, "zayatz": population.zayatz, "snb": population.snb,
            "chosen_model": population.chosen, "chosen": population.decision_rule,
        }
    if sample.journalist is not None:
        report["journalist_risk"] = {"highest": sample.journalist.highest, "average": sample.journalist.average}
    return report
