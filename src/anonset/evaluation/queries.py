"""Aggregate-query accuracy: how well a release answers random range-count queries over its quasi-identifiers.

A *workload* is a seeded list of count queries ``SELECT COUNT(*) WHERE q1 IN R1 AND ... AND qd IN Rd``.
Each query constrains ``dimension`` quasi-identifiers drawn at random; on each it accepts a share
``selectivity ** (1 / dimension)`` of the attribute's domain, so that a query selects a share
``selectivity`` of the domain (and of the records, were the attributes independent and uniform):

- an attribute compared by value (numeric, date, ordinal: :func:`anonset.core.dataset.row_values`) gets a
  range ``[lo, hi]`` covering that many consecutive values of its domain, at a random start;
- any other attribute a random set of that many leaves of its hierarchy.

The *domain* of an attribute is its leaf codes (with a number, for one compared by value).

Each query is answered exactly on the raw records and estimated on the release under the uniform-spread
assumption: a class of ``s`` records whose generalized value on an attribute covers ``m`` domain values,
``a`` of which the query accepts, puts ``s · a / m`` records in the query on that attribute, and the
attributes multiply (independence inside a class).  An ``Intervals`` value ``[lo, hi]`` covers the domain
values between ``lo`` and ``hi`` (a class released as one number, microaggregation's, is in the query
when that number is); a ``HierarchyNodes`` value the leaves under the node; a suppressed record
the whole domain.  The relative error is ``|estimate - true| / max(true, 1)``: a query with no true answer
is judged by its absolute error, so empty queries neither divide by zero nor vanish from the mean.

Both sides are vectorized per query: the raw side groups the records once per set of constrained
attributes into distinct value combinations with counts; the release side reads one number per class and
constrained attribute.  Nothing of size queries × records is built.

The workload's shape follows the aggregate-query experiments of Xu et al., "Utility-Based Anonymization
Using Local Recoding", and LeFevre et al., "Mondrian Multidimensional K-Anonymity"; the defaults (1,000
queries, dimension 2, selectivity 0.1, seed 0) are this implementation's choices, not values taken from
them.  LeFevre et al., "Workload-Aware Anonymization" (section 4.6) measures the imprecision of one fixed
selection instead (see :mod:`anonset.metrics.imprecision`).  See docs/utility.md, "Defaults".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from anonset.core.dataset import Dataset, row_values
from anonset.core.partition import HierarchyNodes, Intervals, Partition
from anonset.errors import ConfigError

__all__ = ["QueryAccuracy", "RangeQuery", "estimated_counts", "query_accuracy", "random_workload", "true_counts"]

#: A constraint on one attribute: a closed range of values, or the accepted leaf codes.
Constraint = tuple[float, float] | NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class RangeQuery:
    """One count query: per constrained quasi-identifier a range ``(lo, hi)`` (by value) or accepted leaf codes."""

    constraints: Mapping[str, Constraint]


@dataclass(frozen=True, eq=False)
class QueryAccuracy:
    """Exact and estimated answers of a workload, and their relative errors.

    Attributes
    ----------
    true, estimated : numpy.ndarray
        (P,) answer on the raw records, and the uniform-spread estimate on the release.
    errors : numpy.ndarray
        (P,) ``|estimated - true| / max(true, 1)``.
    threshold : float
        The error above which a query counts as badly answered.
    """

    true: NDArray[np.int64]
    estimated: NDArray[np.float64]
    errors: NDArray[np.float64]
    threshold: float = 0.1

    @property
    def mean(self) -> float:
        """Mean relative error."""
        return float(self.errors.mean())

    @property
    def median(self) -> float:
        """Median relative error."""
        return float(np.median(self.errors))

    @property
    def share_above(self) -> float:
        """Share of queries whose relative error exceeds ``threshold``."""
        return float((self.errors > self.threshold).mean())

    def summary(self) -> dict[str, Any]:
        """Mean, median, share above the threshold, queries and mean true selectivity (JSON-ready)."""
        return {"queries": len(self.errors), "mean_relative_error": self.mean, "median_relative_error": self.median,
                f"share_above_{self.threshold:g}": self.share_above, "mean_true_count": float(self.true.mean())}


class _Domain:
    """One quasi-identifier's leaf codes, which of them are domain values, and (by value) their numbers."""

    def __init__(self, dataset: Dataset, name: str) -> None:
        enc = dataset.encoded[name]
        self.name = name
        self.by_value = row_values(dataset, name) is not None
        self.hierarchy = dataset.hierarchy(name)
        size = enc.n_categories if self.hierarchy is None else max(self.hierarchy.n_leaves, enc.n_categories)
        numbers = np.full(size, np.nan)
        if enc.numbers is not None:
            numbers[: len(enc.numbers)] = np.asarray(enc.numbers, dtype=np.float64)[:size]
        self.numbers = numbers
        self.in_domain = np.isfinite(numbers) if self.by_value else np.ones(size, dtype=np.bool_)
        if self.hierarchy is not None and not self.by_value:
            self.in_domain[self.hierarchy.n_leaves:] = False
        self.sorted = np.sort(numbers[self.in_domain]) if self.by_value else np.zeros(0)
        self.codes = enc.row_codes()

    def accepted(self, constraint: Constraint) -> NDArray[np.bool_]:
        """Per leaf code: a domain value the constraint accepts."""
        if isinstance(constraint, tuple):
            lo, hi = constraint
            return self.in_domain & (self.numbers >= lo) & (self.numbers <= hi)
        mask = np.zeros(len(self.numbers), dtype=np.bool_)
        mask[np.asarray(constraint, dtype=np.int64)] = True
        return mask & self.in_domain

    def count_in(self, lo: NDArray[np.float64], hi: NDArray[np.float64]) -> NDArray[np.int64]:
        """Domain values inside each closed interval ``[lo, hi]``."""
        return np.searchsorted(self.sorted, hi, "right") - np.searchsorted(self.sorted, lo, "left")


def random_workload(dataset: Dataset, n_queries: int = 1000, dimension: int = 2, selectivity: float = 0.1,
                    seed: int = 0) -> list[RangeQuery]:
    """A seeded workload of range-count queries over the quasi-identifiers (see the module docstring).

    Raises
    ------
    ConfigError
        ``n_queries`` < 1, ``dimension`` not in 1 .. number of quasi-identifiers, ``selectivity`` not in (0, 1].
    """
    quasi = dataset.quasi
    if isinstance(n_queries, bool) or not isinstance(n_queries, int) or n_queries < 1:
        raise ConfigError(f"queries must be a whole number >= 1; got {n_queries!r}")
    if isinstance(dimension, bool) or not isinstance(dimension, int) or not 1 <= dimension <= len(quasi):
        raise ConfigError(f"query dimension must be a whole number from 1 to {len(quasi)} (the quasi-identifiers);"
                          f" got {dimension!r}")
    if not 0 < selectivity <= 1:
        raise ConfigError(f"selectivity must be in (0, 1]; got {selectivity!r}")
    domains = [_Domain(dataset, q) for q in quasi]
    share = selectivity ** (1.0 / dimension)
    rng = np.random.default_rng(seed)
    workload: list[RangeQuery] = []
    for _ in range(n_queries):
        constraints: dict[str, Constraint] = {}
        for j in np.sort(rng.choice(len(quasi), dimension, replace=False)):
            d = domains[int(j)]
            if d.by_value:
                width = max(1, round(share * len(d.sorted)))
                start = int(rng.integers(0, len(d.sorted) - width + 1))
                constraints[d.name] = (float(d.sorted[start]), float(d.sorted[start + width - 1]))
            else:
                leaves = np.flatnonzero(d.in_domain)
                width = max(1, round(share * len(leaves)))
                constraints[d.name] = np.sort(rng.choice(leaves, width, replace=False)).astype(np.int64)
        workload.append(RangeQuery(constraints))
    return workload


def _combinations(domains: Sequence[_Domain]) -> tuple[list[NDArray[np.int64]], NDArray[np.int64]]:
    """Distinct value combinations of the records over some attributes: per attribute the codes, and the counts."""
    key = np.zeros(len(domains[0].codes), dtype=np.int64)
    size = 1
    for d in domains:
        width = len(d.numbers)
        if size * width >= 2**62:
            _, key = np.unique(key, return_inverse=True)
            size = int(key.max()) + 1
        key = key * width + d.codes
        size *= width
    if size <= 4 * len(key) + 1024:
        counts = np.bincount(key, minlength=size)
        present = np.flatnonzero(counts)
        codes = np.unravel_index(present, tuple(len(d.numbers) for d in domains))
        return [np.asarray(c, dtype=np.int64) for c in codes], counts[present].astype(np.int64)
    _, first, counts = np.unique(key, return_index=True, return_counts=True)
    return [d.codes[first].astype(np.int64) for d in domains], counts.astype(np.int64)


def true_counts(dataset: Dataset, workload: Sequence[RangeQuery]) -> NDArray[np.int64]:
    """(P,) exact answer of each query on the raw records of ``dataset``."""
    domains = {q: _Domain(dataset, q) for q in dataset.quasi}
    groups: dict[tuple[str, ...], tuple[list[NDArray[np.int64]], NDArray[np.int64]]] = {}
    out = np.zeros(len(workload), dtype=np.int64)
    for i, query in enumerate(workload):
        names = tuple(q for q in dataset.quasi if q in query.constraints)
        if names not in groups:
            groups[names] = _combinations([domains[q] for q in names])
        codes, counts = groups[names]
        inside = np.ones(len(counts), dtype=np.bool_)
        for q, c in zip(names, codes, strict=True):
            inside &= domains[q].accepted(query.constraints[q])[c]
        out[i] = int(counts[inside].sum())
    return out


class _Spread:
    """The share of each class's records a constraint on one attribute keeps under the uniform-spread assumption."""

    def __init__(self, domain: _Domain, values: Intervals | HierarchyNodes) -> None:
        self.domain = domain
        self.values = values
        if isinstance(values, Intervals):
            self.lo, self.hi = np.asarray(values.lo, dtype=np.float64), np.asarray(values.hi, dtype=np.float64)
            self.covered = domain.count_in(self.lo, self.hi).astype(np.float64)
        else:
            h = domain.hierarchy
            if h is None:
                raise ValueError(f"{domain.name!r}: hierarchy nodes released for an attribute without a hierarchy")
            weight = domain.in_domain[: h.n_leaves].astype(np.float64)
            self.levels = np.unique(values.levels)
            self.maps = [np.asarray(h.maps[int(lv)], dtype=np.int64) for lv in self.levels]
            self.covered = np.zeros(len(values.codes))
            for lv, m in zip(self.levels, self.maps, strict=True):
                at = values.levels == lv
                self.covered[at] = np.bincount(m, weights=weight, minlength=int(m.max()) + 1)[values.codes[at]]
        self.covered = np.maximum(self.covered, 1.0)
        self.whole = float(domain.in_domain.sum())

    def shares(self, constraint: Constraint) -> tuple[NDArray[np.float64], float]:
        """Per class the share kept, and the share a suppressed record (the whole domain) keeps."""
        accepted = self.domain.accepted(constraint)
        suppressed = float(accepted.sum()) / max(self.whole, 1.0)
        if isinstance(self.values, Intervals):
            assert isinstance(constraint, tuple)  # an Intervals attribute is compared by value
            if self.values.shown is not None:  # one number released for the class: the query takes it or not
                shown = self.values.shown
                return ((shown >= constraint[0]) & (shown <= constraint[1])).astype(np.float64), suppressed
            lo, hi = np.maximum(self.lo, constraint[0]), np.minimum(self.hi, constraint[1])
            kept = np.where(lo <= hi, self.domain.count_in(lo, hi), 0).astype(np.float64)
            return kept / self.covered, suppressed
        kept = np.zeros(len(self.values.codes))
        for lv, m in zip(self.levels, self.maps, strict=True):
            at = self.values.levels == lv
            per_node = np.bincount(m, weights=accepted[: len(m)].astype(np.float64), minlength=int(m.max()) + 1)
            kept[at] = per_node[self.values.codes[at]]
        return kept / self.covered, suppressed


def estimated_counts(dataset: Dataset, partition: Partition, workload: Sequence[RangeQuery]) -> NDArray[np.float64]:
    """(P,) uniform-spread estimate of each query's answer from the release's classes (see the module docstring)."""
    spreads = {q: _Spread(_Domain(dataset, q), partition.values[q]) for q in dataset.quasi}
    sizes = np.asarray(partition.sizes, dtype=np.float64)
    out = np.zeros(len(workload))
    for i, query in enumerate(workload):
        per_class = sizes.copy()
        suppressed = float(partition.n_suppressed)
        for q, constraint in query.constraints.items():
            kept, share = spreads[q].shares(constraint)
            per_class *= kept
            suppressed *= share
        out[i] = per_class.sum() + suppressed
    return out


def query_accuracy(dataset: Dataset, partition: Partition, workload: Sequence[RangeQuery] | None = None, *,
                   n_queries: int = 1000, dimension: int = 2, selectivity: float = 0.1, seed: int = 0,
                   threshold: float = 0.1) -> QueryAccuracy:
    """Relative errors of a workload answered on a release (``partition`` of ``dataset``'s records).

    Parameters
    ----------
    dataset : Dataset
        The raw records (in memory), whose release ``partition`` is.
    partition : Partition
        The release's classes and generalized values (any method: full-domain, local recoding, Mondrian).
    workload : sequence of RangeQuery, optional
        The queries; default :func:`random_workload` with ``n_queries``, ``dimension``, ``selectivity``, ``seed``.
    threshold : float
        Relative error above which a query counts as badly answered (default 10%).
    """
    if partition.n_rows != dataset.n_rows:
        raise ValueError(f"the partition holds {partition.n_rows} records, the dataset {dataset.n_rows}")
    queries = workload if workload is not None else random_workload(dataset, n_queries, dimension, selectivity, seed)
    true = true_counts(dataset, queries)
    estimated = estimated_counts(dataset, partition, queries)
    errors = np.abs(estimated - true) / np.maximum(true, 1)
    return QueryAccuracy(true=true, estimated=estimated, errors=errors, threshold=threshold)
