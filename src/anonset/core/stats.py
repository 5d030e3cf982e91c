"""Class statistics: what a privacy model asks for (``StatsRequest``) and what an engine returns (``ClassStats``).

A privacy model declares what it needs (a :class:`StatsRequest`: histograms
of categorical sensitive attributes, sums and sums of squares of numeric
ones); an engine returns, for a full-domain node (one generalization level per
quasi-identifier), the equivalence classes with their sizes and those
statistics.  Class statistics are mergeable (sums), which is what lets an
engine roll a less general node up into a more general one, or a distributed
engine combine partial results.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from anonset.core.dataset import Dataset

__all__ = ["ClassStats", "RowColumns", "StatsRequest", "aggregate", "match_keys", "numeric_values",
           "stats_from_assignment"]


@dataclass(frozen=True)
class StatsRequest:
    """Which per-class statistics privacy models need beyond class sizes.

    ``histograms``: categorical sensitive attributes whose per-class value
    counts are needed; ``moments``: numeric sensitive attributes whose
    per-class sum and sum of squares are needed.
    """

    histograms: frozenset[str] = frozenset()
    moments: frozenset[str] = frozenset()

    def __or__(self, other: StatsRequest) -> StatsRequest:
        return StatsRequest(self.histograms | other.histograms, self.moments | other.moments)


@dataclass(frozen=True, eq=False)
class ClassStats:
    """Equivalence classes of a candidate release and their statistics.

    Attributes
    ----------
    sizes : numpy.ndarray
        (c,) int64 records per class.
    keys : numpy.ndarray
        (c, d) int32 generalized codes per class and quasi-identifier (for a
        full-domain node: codes at ``levels``); may have 0 columns for
        partitions whose classes are not full-domain nodes.
    histograms : mapping of str to numpy.ndarray
        (c, m) int64 counts of each sensitive value per class.
    sums, sumsq : mapping of str to numpy.ndarray
        (c,) float64 sum and sum of squares of a numeric sensitive attribute.
    levels : tuple of int, optional
        The full-domain node these classes belong to.
    population : mapping of str to numpy.ndarray
        (c,) int64 records of a population table matching each class, by the
        population's key, when counted already (the re-check counts them
        from the released values; a model comparing with a population counts
        them itself from ``keys`` at ``levels`` otherwise).
    """

    sizes: NDArray[np.int64]
    keys: NDArray[np.int32]
    histograms: Mapping[str, NDArray[np.int64]] = field(default_factory=dict)
    sums: Mapping[str, NDArray[np.float64]] = field(default_factory=dict)
    sumsq: Mapping[str, NDArray[np.float64]] = field(default_factory=dict)
    levels: tuple[int, ...] | None = None
    population: Mapping[str, NDArray[np.int64]] = field(default_factory=dict)

    @property
    def n_classes(self) -> int:
        """Number of equivalence classes."""
        return len(self.sizes)

    @property
    def n_rows(self) -> int:
        """Number of records covered."""
        return int(self.sizes.sum())

    def subset(self, mask: NDArray[np.bool_] | NDArray[np.integer[Any]]) -> ClassStats:
        """The statistics of the classes selected by a boolean mask (or an array of class indices)."""
        return ClassStats(
            sizes=self.sizes[mask],
            keys=self.keys[mask],
            histograms={a: h[mask] for a, h in self.histograms.items()},
            sums={a: s[mask] for a, s in self.sums.items()},
            sumsq={a: s[mask] for a, s in self.sumsq.items()},
            levels=self.levels,
            population={name: counts[mask] for name, counts in self.population.items()},
        )


    def merged(self) -> ClassStats:
        """The statistics of every class taken together, as one class (its key is empty)."""
        return aggregate(np.zeros(self.n_classes, dtype=np.int64), 1, self,
                         np.zeros((1, 0), dtype=np.int32), self.levels)


def aggregate(inverse: NDArray[np.int64], n_groups: int, stats: ClassStats, keys: NDArray[np.int32],
              levels: tuple[int, ...] | None) -> ClassStats:
    """Sum the statistics of ``stats``'s classes into ``n_groups`` groups given by ``inverse``."""
    sizes = np.bincount(inverse, weights=stats.sizes, minlength=n_groups).astype(np.int64)
    hists = {a: _sum_matrix(inverse, n_groups, h) for a, h in stats.histograms.items()}
    # a weighted bincount is float64 (numpy's stubs type every bincount as intp)
    sums = {a: cast("NDArray[np.float64]", np.bincount(inverse, weights=s, minlength=n_groups))
            for a, s in stats.sums.items()}
    sumsq = {a: cast("NDArray[np.float64]", np.bincount(inverse, weights=s, minlength=n_groups))
             for a, s in stats.sumsq.items()}
    population = {name: np.bincount(inverse, weights=counts, minlength=n_groups).astype(np.int64)
                  for name, counts in stats.population.items()}  # distinct classes match distinct records: they add
    return ClassStats(sizes=sizes, keys=keys, histograms=hists, sums=sums, sumsq=sumsq, levels=levels,
                      population=population)


def _sum_matrix(inverse: NDArray[np.int64], n_groups: int, matrix: NDArray[np.int64]) -> NDArray[np.int64]:
    m = matrix.shape[1]
    if m == 0:
        return np.zeros((n_groups, 0), dtype=np.int64)
    flat = (inverse[:, None] * m + np.arange(m)[None, :]).ravel()
    out = np.bincount(flat, weights=matrix.ravel(), minlength=n_groups * m)
    return out.reshape(n_groups, m).astype(np.int64)


def numeric_values(dataset: Dataset, attribute: str) -> NDArray[np.float64]:
    """Per-row float values of a numeric sensitive attribute."""
    col = dataset.encoded[attribute]
    if col.numbers is None:
        raise ValueError(f"attribute {attribute!r} is not numeric")
    return np.take(col.numbers, col.row_codes())


@dataclass(frozen=True, eq=False)
class RowColumns:
    """The per-record columns a :class:`StatsRequest` needs, read once from a dataset.

    ``histograms``: per categorical sensitive attribute its per-row codes and
    number of categories; ``moments``: per numeric sensitive attribute its
    per-row values.  :meth:`stats` then computes class statistics of any set
    of records, reading only those records: Mondrian judges a candidate split
    of a region at the region's cost, and :func:`stats_from_assignment` is
    the same computation over a whole table.
    """

    histograms: Mapping[str, tuple[NDArray[np.integer[Any]], int]]
    moments: Mapping[str, NDArray[np.float64]]

    @classmethod
    def of(cls, dataset: Dataset, request: StatsRequest) -> RowColumns:
        """The columns of ``dataset`` that ``request`` asks for."""
        return cls(histograms={a: (dataset.encoded[a].row_codes(), dataset.encoded[a].n_categories)
                               for a in sorted(request.histograms)},
                   moments={a: numeric_values(dataset, a) for a in sorted(request.moments)})

    def stats(self, rows: NDArray[np.integer[Any]] | None, labels: NDArray[np.int64], n_classes: int,
              keys: NDArray[np.int32] | None = None) -> ClassStats:
        """Statistics of classes ``labels`` (0 .. n_classes − 1) of the records ``rows`` (every record when None)."""
        sizes = np.bincount(labels, minlength=n_classes).astype(np.int64)
        hists: dict[str, NDArray[np.int64]] = {}
        for a, (codes, m) in self.histograms.items():
            flat = labels * m + (codes if rows is None else codes[rows])
            hists[a] = np.bincount(flat, minlength=n_classes * m).reshape(n_classes, m).astype(np.int64)
        sums: dict[str, NDArray[np.float64]] = {}
        sumsq: dict[str, NDArray[np.float64]] = {}
        for a, values in self.moments.items():
            v = values if rows is None else values[rows]
            # a weighted bincount is float64 (numpy's stubs type every bincount as intp)
            sums[a] = cast("NDArray[np.float64]", np.bincount(labels, weights=v, minlength=n_classes))
            sumsq[a] = cast("NDArray[np.float64]", np.bincount(labels, weights=v * v, minlength=n_classes))
        k = keys if keys is not None else np.zeros((n_classes, 0), dtype=np.int32)
        return ClassStats(sizes=sizes, keys=k, histograms=hists, sums=sums, sumsq=sumsq)


def stats_from_assignment(dataset: Dataset, row_class: NDArray[np.integer[Any]], request: StatsRequest,
                          keys: NDArray[np.int32] | None = None) -> ClassStats:
    """Class statistics of an arbitrary assignment of rows to classes (-1 = excluded).

    Used by partition and clustering methods, and by verification.
    """
    assignment: NDArray[np.int64] = np.asarray(row_class, dtype=np.int64)
    kept = assignment >= 0
    n_classes = int(assignment.max()) + 1 if kept.any() else 0
    rows = None if kept.all() else np.flatnonzero(kept)
    return RowColumns.of(dataset, request).stats(rows, assignment[kept], n_classes, keys)


def match_keys(codes: NDArray[np.integer[Any]], keys: NDArray[np.integer[Any]], sizes: list[int]) -> NDArray[np.int64]:
    """Index into ``keys`` of every row of ``codes``, -1 where absent.

    Parameters
    ----------
    codes, keys : numpy.ndarray
        (n, d) and (c, d) codes at the same levels; ``keys`` rows are distinct.
    sizes : list of int
        Number of codes per column at those levels.
    """
    if codes.shape[1] == 0:
        return np.zeros(len(codes), dtype=np.int64) if len(keys) else np.full(len(codes), -1, dtype=np.int64)
    if len(keys) == 0:
        return np.full(len(codes), -1, dtype=np.int64)
    space = 1.0
    for s in sizes:
        space *= max(s, 1)
    if space < 2.0**62:
        mult = np.cumprod([1] + [max(s, 1) for s in sizes[:0:-1]])[::-1].astype(np.int64)
        row_key = codes.astype(np.int64) @ mult
        class_key = keys.astype(np.int64) @ mult
        order = np.argsort(class_key, kind="stable")
        pos = np.searchsorted(class_key[order], row_key)
        pos = np.minimum(pos, len(order) - 1)
        index = order[pos]
        found = class_key[index] == row_key
    else:  # too many combinations for one integer per row: pandas matches the rows
        import pandas as pd

        index = pd.MultiIndex.from_arrays(list(keys.T)).get_indexer(pd.MultiIndex.from_arrays(list(codes.T)))
        found = index >= 0
    return np.where(found, index, -1).astype(np.int64)
