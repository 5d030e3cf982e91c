"""One risk report as JSON-ready data: the sample measures and, given a population, its uniqueness estimates.

The keys are those of the ``risk`` command and of a release summary's
``risk`` section: ``records``, ``records_excluded`` (suppressed records, left
out of every figure), ``classes``, ``highest_risk``, ``average_risk``,
``records_at_highest_risk``, ``records_above`` (threshold -> fraction of
records), ``sample_uniques`` (fraction), ``population_uniques`` (``pitman``,
``zayatz``, ``snb``, ``chosen_model``, ``chosen``; null where a model is not
available, and null as a whole when no population was given), and (asked
for by ``anonset risk``) the attacker models as ARX's sample risk summary gives them: ``prosecutor`` and
``journalist`` (``highest_risk``, ``average_risk``, ``records_above``; the
journalist's against the population class sizes when given, else the
prosecutor's) and ``marketer`` (``average_risk``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from anonset.risk.classes import ClassSizes
from anonset.risk.population import population_uniqueness
from anonset.risk.sample import DEFAULT_THRESHOLDS, SampleRisk, sample_risk

__all__ = ["attacker_models", "class_sizes_of_codes", "matched_risk_report", "release_risk", "risk_report"]


def risk_report(sizes: ArrayLike, *, records_excluded: int = 0, thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
                sampling_fraction: float | None = None, population_size: float | None = None,
                population_sizes: ArrayLike | None = None, attackers: bool = False) -> dict[str, Any]:
    """The risk of released classes of ``sizes`` as a JSON-ready mapping (see the module docstring for the keys).

    Give ``sampling_fraction`` or ``population_size`` for the population-uniqueness
    estimates, ``population_sizes`` (aligned with ``sizes``) for the journalist risk;
    ``attackers`` adds the ``prosecutor``, ``journalist`` and ``marketer`` keys.
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
    if attackers:
        report.update(attacker_models(sample))
    return report


def attacker_models(sample: SampleRisk) -> dict[str, Any]:
    """``prosecutor``, ``journalist`` and ``marketer`` as ARX's sample risk summary gives them (see the module)."""
    above = {str(t): fraction for t, fraction in sample.records_above.items()}
    prosecutor = {"highest_risk": sample.highest_risk, "average_risk": sample.average_risk, "records_above": above}
    journalist = sample.journalist
    return {"prosecutor": prosecutor,
            "journalist": (dict(prosecutor) if journalist is None else
                           {"highest_risk": journalist.highest, "average_risk": journalist.average,
                            "records_above": {str(t): f for t, f in journalist.records_above.items()}}),
            "marketer": {"average_risk": sample.marketer}}


def release_risk(input_sizes: ArrayLike, released_sizes: ArrayLike, suppressed_rows: int,
                 released_matched: ArrayLike | None = None, *,
                 counted_at: Mapping[str, int] | None = None) -> dict[str, Any]:
    """The ``risk`` section of a release summary: the input's risk and the release's (None when nothing is left).

    ``released_matched``: per released class, the records it cannot be told
    from when a blanked value matches any value (local suppression); the
    release's risks are then 1 / those counts (:func:`matched_risk_report`).
    ``counted_at``: the quasi-identifiers whose input classes were counted
    above their original values (their minimum generalization), with the
    level; the input's section then says so under ``counted_at``.
    """
    before = risk_report(input_sizes)
    if counted_at:
        before["counted_at"] = dict(counted_at)
    released = np.asarray(released_sizes)
    if not released.size:
        return {"input": before, "release": None}
    after = (risk_report(released, records_excluded=suppressed_rows) if released_matched is None
             else matched_risk_report(released_matched, released, records_excluded=suppressed_rows))
    return {"input": before, "release": after}


def matched_risk_report(matched: ArrayLike, sizes: ArrayLike, *, records_excluded: int = 0,
                        thresholds: Sequence[float] = DEFAULT_THRESHOLDS, attackers: bool = False) -> dict[str, Any]:
    """The keys of :func:`risk_report` for classes whose records match ``matched`` records each (a blank matching
    any value): a record's risk is 1 / its matched count; ``classes`` counts the released classes.  With
    ``attackers``, the prosecutor's figures (the journalist's the same, no population; the marketer's the
    average)."""
    per_class = np.asarray(matched, dtype=np.float64)
    counts = np.asarray(sizes, dtype=np.int64)
    risk = np.repeat(1.0 / per_class, counts)
    records = int(counts.sum())
    highest = float(risk.max())
    out: dict[str, Any] = {
        "records": records, "records_excluded": int(records_excluded), "classes": len(counts),
        "highest_risk": highest, "average_risk": float(risk.mean()),
        "records_at_highest_risk": float(np.mean(risk == highest)),
        "records_above": {str(t): float(np.mean(risk > t)) for t in thresholds},
        "sample_uniques": float(np.mean(risk == 1.0)), "population_uniques": None,
    }
    if attackers:
        prosecutor = {key: out[key] for key in ("highest_risk", "average_risk", "records_above")}
        out.update({"prosecutor": prosecutor, "journalist": dict(prosecutor),
                    "marketer": {"average_risk": out["average_risk"]}})
    return out


def class_sizes_of_codes(codes: NDArray[np.integer[Any]]) -> NDArray[np.int64]:
    """Sizes of the classes of identical rows of an (n, d) code matrix (classes in no particular order).

    The columns are combined into one int64 key per row, column by column; when the next column's codes would
    take the key past 2^62, the keys so far are first replaced by their ranks among the distinct keys (at most
    n), so any number of columns is counted in one pass per column and a 1-d count, with no overflow.
    """
    n, d = codes.shape
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if d == 0:
        return np.array([n], dtype=np.int64)
    spans = codes.max(axis=0).astype(np.int64) + 1
    key = np.zeros(n, dtype=np.int64)
    key_span = 1  # the key is below this
    for j in range(d):
        span = int(spans[j])
        if key_span * span >= 2**62:
            distinct, key = np.unique(key, return_inverse=True)
            key = key.astype(np.int64).reshape(n)
            key_span = len(distinct)
        key = key * span + codes[:, j].astype(np.int64)
        key_span *= span
    _, sizes = np.unique(key, return_counts=True)
    return sizes.astype(np.int64)
