"""Microaggregation as a partitioning method: MDAV's groups are the classes, numbers released as each group's mean.

:func:`microaggregate` groups the records with MDAV
(:func:`~anonset.methods.microaggregation.mdav.mdav`) on the numeric
quasi-identifiers it aggregates, k to 2k − 1 records a group (or, for one
attribute, by individual ranking: sorted by value and cut k at a time), and
returns an :class:`AggregatedGrouping`.  Each group is a class of the release:

* an aggregated attribute is released as the group's mean (sdcMicro's
  ``mdav`` values, to 1e-9) or median, one number for the whole group
  (:attr:`~anonset.core.partition.Intervals.shown`); the range of the values
  it replaced is what the loss metrics score;
* every other quasi-identifier is released as what the group's records
  share: the lowest common node of the hierarchy, or the range of a number
  or date compared by value;
* with ``strata``, groups are formed within each combination of the strata
  columns, so those keep their values; records of combinations holding
  fewer than k records are grouped together (their strata values then
  generalized to what each group shares).

Every group holds at least k records and every record of a group shows the
same values, so the release is k-anonymous, re-checked from the released
values like any other.

Difference from sdcMicro: a record missing an aggregated value is released
with its group's mean like the others (sdcMicro leaves it missing, which
tells that record apart from its group).

New records (``assign``) join the nearest group of their stratum (distance
over the aggregated attributes, each divided by its variance as MDAV's); a
group's released number does not change, its range and shared nodes widen
to cover what it took.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from anonset.core.dataset import AttributeType, Dataset
from anonset.core.partition import GeneralizedValues, HierarchyNodes, Intervals, Partition, partition_of_assignment
from anonset.errors import ConfigError
from anonset.methods.microaggregation.mdav import mdav
from anonset.metrics.perturbation import perturbation_loss
from anonset.privacy.base import Requirements

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["AggregatedGrouping", "microaggregate"]

#: Distances computed at once by ``assign`` (new records x groups), to bound its memory.
_BLOCK = 1 << 22


@dataclass(frozen=True, eq=False)
class AggregatedGrouping:
    """The groups of a microaggregation and the values each is released with.

    Attributes
    ----------
    row_class : numpy.ndarray
        (n,) group of each fitted record.
    attributes : tuple of str
        The aggregated quasi-identifiers.
    algorithm : str
        ``mdav`` or ``individual-ranking``: how the groups were formed.
    statistic : str
        ``mean`` or ``median``: what each group's number is.
    centre : numpy.ndarray
        (c, p) each group's mean over the values it holds (where ``assign`` measures from).
    scale : numpy.ndarray
        (p,) 1 / each attribute's variance (1 when it is 0), as MDAV weighs distances.
    group_stratum : numpy.ndarray
        (c,) each group's stratum (a row of ``strata_keys``), −1 for groups of records pooled from small strata.
    strata : tuple of str
        The strata columns.
    strata_keys : pandas.MultiIndex or pandas.Index
        The strata combinations that have groups of their own.
    fitted : Partition
        The groups' released values on the fitted records.
    representative : mapping of str to numpy.ndarray
        Per quasi-identifier released as a hierarchy node, a leaf code of each group (to widen its node).
    loss : mapping of str to float
        sdcMicro's ``dUtility`` figures of the aggregated attributes (:func:`perturbation_loss`).
    """

    row_class: NDArray[np.int64]
    attributes: tuple[str, ...]
    algorithm: str
    statistic: str
    centre: NDArray[np.float64]
    scale: NDArray[np.float64]
    group_stratum: NDArray[np.int64]
    strata: tuple[str, ...]
    strata_keys: pd.Index
    fitted: Partition
    representative: Mapping[str, NDArray[np.int64]]
    loss: Mapping[str, float]

    @property
    def aggregation(self) -> dict[str, Any]:
        """What the summary says: the algorithm, the statistic, the attributes, the groups and the loss."""
        return {"algorithm": self.algorithm, "statistic": self.statistic, "attributes": list(self.attributes),
                "groups": len(self.centre), **{name: round(v, 6) for name, v in self.loss.items()}}

    def assign(self, dataset: Dataset) -> NDArray[np.int64]:
        """Each new record's group: the nearest one of its stratum (or of the pooled groups), −1 when there is none."""
        x = _numbers(dataset, self.attributes)
        stratum = _strata_of(dataset, self.strata, self.strata_keys)
        own = np.isin(stratum, self.group_stratum)
        stratum = np.where(own, stratum, -1)
        out = np.full(len(x), -1, dtype=np.int64)
        block = max(1, _BLOCK // max(len(self.centre), 1))
        for start in range(0, len(x), block):
            rows = slice(start, start + block)
            distance = np.zeros((len(x[rows]), len(self.centre)))
            for j in range(len(self.attributes)):
                diff = x[rows, j, None] - self.centre[None, :, j]
                distance += np.nan_to_num(diff * diff * self.scale[j], nan=0.0)
            distance[stratum[rows, None] != self.group_stratum[None, :]] = np.inf
            if distance.shape[1]:
                nearest = np.argmin(distance, axis=1)
                found = np.isfinite(distance[np.arange(len(nearest)), nearest])
                out[rows] = np.where(found, nearest, -1)
        return out

    def partition(self, dataset: Dataset, row_class: NDArray[np.int64]) -> Partition:
        """The groups holding records of ``dataset``: each group's number kept, its ranges and nodes widened to them."""
        row_class = np.asarray(row_class, dtype=np.int64)
        used = row_class >= 0
        present = np.unique(row_class[used])
        renumber = np.full(len(self.centre), -1, dtype=np.int64)
        renumber[present] = np.arange(len(present))
        classes = np.where(used, renumber[np.maximum(row_class, 0)], -1)
        inside = classes >= 0
        values: dict[str, GeneralizedValues] = {}
        for q in dataset.quasi:
            fitted = self.fitted.values[q].take(present)
            if isinstance(fitted, Intervals):
                numbers = _numbers(dataset, (q,))[:, 0]
                held = inside & ~np.isnan(numbers)
                lo = np.full(len(present), np.inf)
                hi = np.full(len(present), -np.inf)
                np.minimum.at(lo, classes[held], numbers[held])
                np.maximum.at(hi, classes[held], numbers[held])
                values[q] = Intervals(np.fmin(fitted.lo, lo), np.fmax(fitted.hi, hi), fitted.shown)
            else:
                values[q] = _widened(dataset, q, fitted, self.representative[q][present], classes)
        sizes = np.bincount(classes[inside], minlength=len(present)).astype(np.int64)
        return Partition(values=values, sizes=sizes, n_suppressed=int((~inside).sum()), row_class=classes)


def microaggregate(dataset: Dataset, requirements: Requirements, algorithm: str = "mdav",
                   attributes: Sequence[str] | None = None, statistic: str = "mean",
                   strata: Sequence[str] | None = None) -> AggregatedGrouping:
    """Group the records with MDAV, k to 2k − 1 a group, and release each group's mean (see the module docstring).

    Parameters
    ----------
    dataset : Dataset
        The records, in memory.
    requirements : Requirements
        k-anonymity; its k is the groups' size.
    algorithm : {"mdav", "individual-ranking"}
        How the groups are formed: MDAV over every aggregated attribute, or
        individual ranking (sdcMicro's ``onedims``) of the one attribute
        aggregated.
    attributes : sequence of str, optional
        The numeric quasi-identifiers to aggregate (default: every numeric one).
    statistic : {"mean", "median"}
        The number each group is released as.
    strata : sequence of str, optional
        Columns whose every combination is grouped on its own.

    Raises
    ------
    ConfigError
        An attribute that is not a numeric quasi-identifier, no numeric
        quasi-identifier to aggregate, a stratum column that is not in the
        table or is aggregated, an unknown algorithm or statistic.
    """
    if algorithm not in ("mdav", "individual-ranking"):
        raise ConfigError(f"microaggregation's algorithm must be mdav or individual-ranking, not {algorithm!r}")
    if statistic not in ("mean", "median"):
        raise ConfigError(f"microaggregation's statistic must be mean or median, not {statistic!r}")
    chosen = _aggregated(dataset, attributes)
    if algorithm == "individual-ranking":
        _one_complete_attribute(dataset, chosen)
    strata = tuple(strata or ())
    for column in strata:
        if column not in dataset.columns:
            raise ConfigError(f"{dataset.source}: stratum column {column!r} is not in the table; columns are"
                              f" {', '.join(dataset.columns)}")
        if column in chosen:
            raise ConfigError(f"{dataset.source}: column {column!r} is both aggregated and a stratum; a stratum keeps"
                              " its values: remove it from one of the two")
    for q in dataset.quasi:
        if q not in chosen and dataset.specs[q].type not in (AttributeType.NUMERIC, AttributeType.DATE,
                                                             AttributeType.ORDINAL):
            dataset.require_hierarchy(q)
    k, n = requirements.k, dataset.n_rows
    x = _numbers(dataset, chosen)
    keys = _strata_keys(dataset, strata)
    stratum = _strata_of(dataset, strata, keys)
    sizes = np.bincount(stratum, minlength=len(keys))
    own = sizes >= k
    pooled = int(sizes[~own].sum())
    if 0 < pooled < k:  # too few to group on their own: they join the smallest stratum that has groups
        own[np.flatnonzero(own)[np.argmin(sizes[own])]] = False
    stratum = np.where(own[stratum], stratum, -1)
    row_class = np.empty(n, dtype=np.int64)
    group_stratum: list[NDArray[np.int64]] = []
    formed = 0
    order = np.argsort(stratum, kind="stable")
    for rows in np.split(order, np.flatnonzero(np.diff(stratum[order])) + 1):
        group = mdav(x[rows], k).group if algorithm == "mdav" else _ranked(x[rows, 0], k)
        count = int(group.max()) + 1
        row_class[rows] = group + formed
        formed += count
        group_stratum.append(np.full(count, stratum[rows[0]], dtype=np.int64))
    groups = np.concatenate(group_stratum)
    centre = _group_means(x, row_class, len(groups))
    shown = centre if statistic == "mean" else _group_medians(x, row_class, len(groups))
    base = partition_of_assignment(dataset, row_class)
    values = dict(base.values)
    for j, q in enumerate(chosen):
        values[q] = _ranges(x[:, j], row_class, len(groups), shown[:, j])
    fitted = Partition(values=values, sizes=base.sizes, n_suppressed=0, row_class=row_class)
    first_row = np.unique(row_class, return_index=True)[1]
    representative = {q: dataset.encoded[q].row_codes()[first_row].astype(np.int64)
                      for q in dataset.quasi if isinstance(values[q], HierarchyNodes)}
    return AggregatedGrouping(row_class, chosen, algorithm, statistic, centre, _scale(x), groups, strata, keys, fitted,
                              representative, perturbation_loss(x, shown[row_class]))


def _one_complete_attribute(dataset: Dataset, chosen: tuple[str, ...]) -> None:
    """Refuse individual ranking of several attributes (not k-anonymous on their combination) or of missing values."""
    if len(chosen) != 1:
        raise ConfigError(f"{dataset.source}: individual ranking groups each attribute on its own, so the records are"
                          f" not k-anonymous on {', '.join(chosen)} together; aggregate one attribute (attributes:"
                          " [name]), or use algorithm: mdav")
    if np.isnan(_numbers(dataset, chosen)).any():
        raise ConfigError(f"{dataset.source}, column {chosen[0]!r}: individual ranking ranks complete values; this"
                          " column has missing values: use algorithm: mdav, which groups them by their other values")


def _ranked(values: NDArray[np.float64], k: int) -> NDArray[np.int64]:
    """Individual ranking's groups: the records by value (ties in table order), k at a time, the rest in the last."""
    order = np.argsort(values, kind="stable")
    group = np.empty(len(values), dtype=np.int64)
    group[order] = np.minimum(np.arange(len(values)) // k, max(len(values) // k, 1) - 1)
    return group


def _aggregated(dataset: Dataset, attributes: Sequence[str] | None) -> tuple[str, ...]:
    """The attributes to aggregate: those given, each a numeric quasi-identifier, or every numeric one."""
    numeric = [q for q in dataset.quasi if dataset.specs[q].type is AttributeType.NUMERIC]
    if attributes is None:
        if not numeric:
            raise ConfigError(f"{dataset.source}: microaggregation needs a numeric quasi-identifier; the"
                              f" quasi-identifiers {', '.join(dataset.quasi)} are not numeric: use optimal or"
                              " local-suppression for categorical keys")
        return tuple(numeric)
    for name in attributes:
        if name not in numeric:
            what = ("not a quasi-identifier" if name not in dataset.quasi
                    else f"{dataset.specs[name].type.value}, not numeric")
            raise ConfigError(f"{dataset.source}: microaggregation cannot aggregate {name!r}: it is {what}; its"
                              f" numeric quasi-identifiers are {', '.join(numeric) or 'none'}")
    if len(set(attributes)) != len(attributes):
        raise ConfigError(f"microaggregation's attributes name a column twice: {list(attributes)}")
    return tuple(attributes)


def _numbers(dataset: Dataset, attributes: Sequence[str]) -> NDArray[np.float64]:
    """(n, p) each record's value of each attribute compared by value, NaN where it is missing."""
    out = np.empty((dataset.n_rows, len(attributes)))
    for j, name in enumerate(attributes):
        column = dataset.encoded[name]
        if column.numbers is None:
            raise ConfigError(f"{dataset.source}, column {name!r}: no number to aggregate")
        out[:, j] = np.asarray(column.numbers, dtype=np.float64)[column.row_codes()]
    return out


def _strata_keys(dataset: Dataset, strata: tuple[str, ...]) -> pd.Index:
    """The distinct combinations of the strata columns, sorted (one empty combination without strata)."""
    if not strata:
        return pd.Index([0])
    frame = pd.DataFrame({c: dataset.column(c).astype(str).to_numpy() for c in strata})
    return pd.MultiIndex.from_frame(frame.drop_duplicates()).sort_values()


def _strata_of(dataset: Dataset, strata: tuple[str, ...], keys: pd.Index) -> NDArray[np.int64]:
    """Each record's stratum: its row of ``keys``, −1 for a combination ``keys`` lacks."""
    if not strata:
        return np.zeros(dataset.n_rows, dtype=np.int64)
    frame = pd.DataFrame({c: dataset.column(c).astype(str).to_numpy() for c in strata})
    return np.asarray(keys.get_indexer(pd.MultiIndex.from_frame(frame)), dtype=np.int64)


def _scale(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """1 / each column's population variance over the values it holds (1 when it is 0 or it holds none)."""
    out = np.ones(x.shape[1])
    for j in range(x.shape[1]):
        held = x[~np.isnan(x[:, j]), j]
        variance = float(held.var()) if len(held) else 0.0
        if variance > 0:
            out[j] = 1.0 / variance
    return out


def _group_means(x: NDArray[np.float64], group: NDArray[np.int64], count: int) -> NDArray[np.float64]:
    """(c, p) each group's mean over the values it holds (NaN where it holds none)."""
    out = np.full((count, x.shape[1]), np.nan)
    for j in range(x.shape[1]):
        held = ~np.isnan(x[:, j])
        total = np.bincount(group[held], weights=x[held, j], minlength=count)
        number = np.bincount(group[held], minlength=count)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, j] = np.where(number > 0, total / np.maximum(number, 1), np.nan)
    return out


def _group_medians(x: NDArray[np.float64], group: NDArray[np.int64], count: int) -> NDArray[np.float64]:
    """(c, p) each group's median over the values it holds (the mean of the middle two for an even count)."""
    out = np.full((count, x.shape[1]), np.nan)
    for j in range(x.shape[1]):
        held = np.flatnonzero(~np.isnan(x[:, j]))
        order = held[np.lexsort((x[held, j], group[held]))]
        number = np.bincount(group[held], minlength=count)
        start = np.concatenate([[0], np.cumsum(number)[:-1]])
        has = number > 0
        ordered = x[order, j]
        low = ordered[(start + (number - 1) // 2)[has]]
        high = ordered[(start + number // 2)[has]]
        out[has, j] = (low + high) / 2
    return out


def _ranges(values: NDArray[np.float64], group: NDArray[np.int64], count: int,
            shown: NDArray[np.float64]) -> Intervals:
    """Each group's range of the values it holds (the whole column's where it holds none), and its number."""
    held = ~np.isnan(values)
    lo = np.full(count, np.inf)
    hi = np.full(count, -np.inf)
    np.minimum.at(lo, group[held], values[held])
    np.maximum.at(hi, group[held], values[held])
    empty = ~np.isfinite(lo)
    if held.any():
        lo[empty], hi[empty] = values[held].min(), values[held].max()
    else:
        lo[empty], hi[empty] = 0.0, 0.0
    return Intervals(lo, hi, shown)


def _widened(dataset: Dataset, q: str, fitted: GeneralizedValues, representative: NDArray[np.int64],
             classes: NDArray[np.int64]) -> HierarchyNodes:
    """Each group's node raised until it also holds the leaves of the records ``classes`` puts in it."""
    assert isinstance(fitted, HierarchyNodes)
    h = dataset.require_hierarchy(q)
    inside = classes >= 0
    leaves = dataset.encoded[q].row_codes()[inside].astype(np.int64)
    members = classes[inside]
    level = fitted.levels.astype(np.int64)
    settled = np.zeros(len(level), dtype=np.bool_)
    for at in range(h.n_levels):
        differs = h.maps[at][leaves] != h.maps[at][representative[members]]
        apart = np.bincount(members[differs], minlength=len(level)) > 0
        fits = ~apart & ~settled
        level[fits] = np.maximum(level[fits], at)
        settled |= fits
    codes = np.empty(len(level), dtype=np.int32)
    for at in np.unique(level):
        chosen = level == at
        codes[chosen] = h.maps[int(at)][representative[chosen]]
    return HierarchyNodes(level.astype(np.int16), codes)
