"""The survey measures of a table as JSON-ready data: individual and global risk, k-anonymity violations, SUDA2.

What ``anonset risk`` adds when the config has quasi-identifiers (and what a
release summary carries for a table with a sampling weight), as sdcMicro's
``measure_risk`` and ``suda2`` report them:

* ``individual_risk``: the Benedetti–Franconi risk of each record
  (:func:`~anonset.risk.survey.individual_risk`, sdcMicro's approximation,
  ``qual`` 1) summarized as ``max``, ``mean`` and ``records_above``
  (threshold -> share of the records whose risk exceeds it), with the
  ``method`` and whether it is ``weighted`` (without a weight column every
  weight is 1 and the risk is 1/fk);
* ``global_risk``: ``expected_reidentifications`` (the sum of the risks) and
  its ``share`` of the records;
* ``k_anonymity_violations``: for k = 2, 3 and 5, the records whose key fewer
  than k records share;
* ``suda2``: over the quasi-identifiers (or the attributes given),
  ``records_with_score`` (records with at least one minimal sample unique),
  ``mean_score`` and ``max_score`` (sdcMicro's original scores), ``dis_suda``
  {``max``, ``mean``} and ``contributions`` (attribute -> percent of the
  scores), with the ``attributes``, ``max_size`` and ``dis_fraction`` used.

A missing value matches any value in the key frequencies, and is never part
of a minimal sample unique (sdcMicro's rules for each).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonset.errors import DataError
from anonset.risk.sample import DEFAULT_THRESHOLDS
from anonset.risk.suda2 import suda2
from anonset.risk.survey import (
    global_risk,
    individual_risk,
    k_anonymity_violations,
    key_codes,
    key_frequencies,
    records_above,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset

__all__ = ["KS", "Suda2Settings", "SurveyTable", "missing_as_negative", "survey_report", "survey_table",
           "survey_table_of_frame", "survey_table_of_groups"]

#: The k of the k-anonymity violation counts.
KS = (2, 3, 5)


@dataclass(frozen=True)
class Suda2Settings:
    """Which attributes SUDA2 searches (None: every quasi-identifier), up to which MSU size, and DIS's fraction."""

    attributes: tuple[str, ...] | None = None
    max_size: int | None = None
    dis_fraction: float = 0.01


@dataclass(frozen=True)
class SurveyTable:
    """The records' keys: codes per quasi-identifier (negative: missing), their names, and the weights (or None).

    With ``counts`` each row stands for that many records (the distinct keys
    a database or Spark grouped) and ``weights`` holds their weights' sum.
    """

    codes: NDArray[np.int64]
    names: tuple[str, ...]
    weights: NDArray[np.float64] | None = None
    counts: NDArray[np.int64] | None = None

    @property
    def records(self) -> NDArray[np.float64]:
        """The records each row stands for."""
        return np.ones(len(self.codes)) if self.counts is None else np.asarray(self.counts, dtype=np.float64)


def missing_as_negative(dataset: Dataset) -> NDArray[np.int64]:
    """The records' quasi-identifier leaf codes, −1 where a declared missing marker stands (it matches any value)."""
    codes = dataset.qi_codes().astype(np.int64)
    for j, name in enumerate(dataset.quasi):
        known = dataset.value_codes(name)
        missing = [known[m] for m in dataset.specs[name].missing if m in known]
        if missing:
            codes[np.isin(codes[:, j], missing), j] = -1
    return codes


def survey_table(dataset: Dataset) -> SurveyTable:
    """The keys of a dataset in memory: its quasi-identifiers' codes, a declared missing marker -1, and its weights.

    Raises
    ------
    DataError
        A weight below 1 (the individual risk takes a weight as the people a
        record stands for, itself included).
    """
    codes = missing_as_negative(dataset)
    weights = dataset.weights()
    if weights is not None and weights.min() < 1:
        first = int(np.argmax(weights < 1))
        raise DataError(f"{dataset.source}, column {dataset.weight!r} (role weight): record {first + 1} has weight"
                        f" {weights[first]:g}, below 1; the individual risk takes a weight as the people a record"
                        " stands for, itself included: give weights of at least 1")
    return SurveyTable(codes, dataset.quasi, weights)


def survey_table_of_frame(frame: pd.DataFrame, names: Sequence[str], missing: Mapping[str, Sequence[str]],
                          weight: str | None, source: str) -> SurveyTable:
    """A survey table from records as text (a released file): a value in ``missing[name]`` (or NaN) is missing.

    Raises
    ------
    DataError
        The weight column is absent, or holds a value that is not a number of at least 1.
    """
    codes = np.zeros((len(frame), len(names)), dtype=np.int64)
    for j, name in enumerate(names):
        codes[:, j] = key_codes(frame, [name], list(missing.get(name, ("",))))[:, 0]
    weights = None
    if weight is not None:
        if weight not in frame.columns:
            raise DataError(f"{source}: the weight column {weight!r} is not there; give the release made with this"
                            " config")
        weights = pd.to_numeric(frame[weight], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        bad = np.flatnonzero(~(weights >= 1))
        if len(bad):
            raise DataError(f"{source}, column {weight!r} (role weight): record {bad[0] + 1} has"
                            f" {frame[weight].iloc[bad[0]]!r}; the individual risk takes a weight as the people a"
                            " record stands for, itself included: give numbers of at least 1")
    return SurveyTable(codes, tuple(names), weights)


def survey_table_of_groups(groups: pd.DataFrame, names: Sequence[str], missing: Mapping[str, Sequence[str]],
                           weight: str | None, source: str) -> SurveyTable:
    """A survey table from distinct keys grouped where the records are (a database, Spark).

    ``groups`` has a column ``_q{j}`` per quasi-identifier (its value, None
    when missing), ``_n`` (records) and, with a ``weight`` column, ``_w``,
    ``_w_min`` and ``_w_count`` (the weights' sum, smallest, and how many are
    numbers).  A value in ``missing[name]`` is missing.

    Raises
    ------
    DataError
        A missing or non-numeric weight, or one below 1.
    """
    counts = groups["_n"].to_numpy(dtype=np.int64)
    codes = np.zeros((len(groups), len(names)), dtype=np.int64)
    for j, name in enumerate(names):
        codes[:, j] = key_codes(groups, [f"_q{j}"], list(missing.get(name, ("",))))[:, 0]
    weights = None
    if weight is not None:
        unread = int(counts.sum() - groups["_w_count"].to_numpy(dtype=np.int64).sum())
        if unread:
            raise DataError(f"{source}, column {weight!r} (role weight): {unread} record(s) have no weight or one that"
                            " is not a number; a sampling weight is a positive number (the people a record stands for)")
        smallest = float(groups["_w_min"].min())
        if not smallest >= 1:
            raise DataError(f"{source}, column {weight!r} (role weight): a weight is {smallest:g}, below 1; the"
                            " individual risk takes a weight as the people a record stands for, itself included:"
                            " give weights of at least 1")
        weights = groups["_w"].to_numpy(dtype=np.float64)
    return SurveyTable(codes, tuple(names), weights, counts)


def survey_report(table: SurveyTable, *, thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
                  settings: Suda2Settings | None = None) -> dict[str, Any]:
    """``individual_risk``, ``global_risk``, ``k_anonymity_violations`` and ``suda2`` of ``table``.

    Raises
    ------
    ValueError
        A weight below 1 (a key whose weights sum to fewer people than its
        records), or SUDA2 attributes that are not among ``table.names``.
    """
    settings = settings or Suda2Settings()
    weighted = table.weights is not None
    counts = table.counts
    frequencies = key_frequencies(table.codes, table.weights, counts=counts)
    risk = individual_risk(frequencies, "approx", qual=1.0, survey=weighted)
    expected, share = global_risk(risk, counts)
    report: dict[str, Any] = {
        "individual_risk": {
            "method": "approx", "weighted": weighted,
            "max": float(risk.max()), "mean": share,
            "records_above": {str(t): s for t, s in records_above(risk, thresholds, counts).items()},
        },
        "global_risk": {"expected_reidentifications": expected, "share": share},
        "k_anonymity_violations": {str(k): k_anonymity_violations(frequencies, k, counts=counts) for k in KS},
        "suda2": _suda2_summary(table, settings),
    }
    return report


def _suda2_summary(table: SurveyTable, settings: Suda2Settings) -> dict[str, Any]:
    """SUDA2's figures over the chosen attributes, summarized per file."""
    names = settings.attributes or table.names
    unknown = [a for a in names if a not in table.names]
    if unknown:
        raise ValueError(f"SUDA2 attribute {unknown[0]!r} is not a quasi-identifier; choose among"
                         f" {', '.join(table.names)}")
    columns = [table.names.index(a) for a in names]
    found = suda2(table.codes[:, columns], settings.max_size, settings.dis_fraction, counts=table.counts)
    records = table.records
    total = float(records.sum())
    scores = found.scores
    contributions: Mapping[str, float] = {a: float(c) for a, c in
                                         zip(names, found.attribute_contributions, strict=True)}
    return {
        "attributes": list(names), "max_size": min(found.msu_counts.shape[1], len(names)),
        "dis_fraction": settings.dis_fraction,
        "records_with_score": int(records[scores > 0].sum()),
        "mean_score": float(np.dot(scores, records)) / total, "max_score": float(scores.max()),
        "dis_suda": {"max": float(found.dis_scores.max()), "mean": float(np.dot(found.dis_scores, records)) / total},
        "contributions": dict(contributions),
    }
