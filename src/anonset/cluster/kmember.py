"""Greedy k-member clustering (Byun, Kamra, Bertino and Li, DASFAA 2007).

The table is partitioned into clusters of at least ``k`` and at most
``2k - 1`` records, grown greedily so that the total information loss

.. math::

    IL(e) = |e| \\cdot \\Big(\\sum_{N} \\frac{\\max_e N - \\min_e N}{|N|}
            + \\sum_{C} \\frac{H(\\Lambda(\\cup_e C))}{H(T_C)}\\Big)

stays small.  Numeric quasi-identifiers (type ``numeric`` or ``date``) are
compared by value, ``|N|`` being the attribute's range in the data;
categorical ones (every other quasi-identifier) by their hierarchy: the height
of the lowest common ancestor of a set of leaves is the lowest level at which
they all map to one code, and the hierarchy's height is its ``max_level``.

The algorithm (Fig. 5 of the paper): pick a random record ``r``; while at
least ``k`` records remain, let ``r`` be the remaining record furthest from
``r``, start a cluster with it and add, ``k - 1`` times, the remaining record
whose addition increases the cluster's information loss least, ``r`` becoming
the last record added.  The fewer than ``k`` records left at the end go, in
row order, each to the cluster whose information loss grows least.

The whole loop is one numba-compiled kernel that keeps per-cluster state
(min and max of each numeric attribute, the LCA level of each categorical
one and a representative leaf), so each greedy step is a single pass over the
remaining records.  Ties go to the lowest row index (lowest cluster id for
leftovers); the result depends only on the data, ``k`` and ``seed``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from anonset.dataset import AttributeType, Dataset

__all__ = ["cluster_information_loss", "greedy_k_member", "information_loss"]

_NUMERIC_TYPES = (AttributeType.NUMERIC, AttributeType.DATE)


@dataclass(frozen=True)
class _Prepared:
    """The quasi-identifiers of a dataset in the form the kernel needs."""

    values: np.ndarray  # (n, p) float64 values of the numeric attributes
    num_weight: np.ndarray  # (p,) 1 / range (0 for a constant attribute)
    codes: np.ndarray  # (n, q) int32 leaf codes of the categorical attributes
    maps: np.ndarray  # (q, levels, leaves) int32 ancestor code per level, padded with the root
    cat_weight: np.ndarray  # (q,) 1 / max_level (0 for a single-level hierarchy)
    numeric: tuple[str, ...]
    categorical: tuple[str, ...]


def prepare_attributes(dataset: Dataset) -> _Prepared:
    """Split the quasi-identifiers into numeric values and hierarchy-encoded categorical codes.

    A numeric or date quasi-identifier is compared by value unless one of its
    rows has no number (a missing marker); then, like every other
    quasi-identifier, it is compared through its hierarchy.
    """
    n = dataset.n_rows
    num_cols: list[np.ndarray] = []
    num_w: list[float] = []
    cat_cols: list[np.ndarray] = []
    cat_maps: list[tuple[np.ndarray, ...]] = []
    cat_w: list[float] = []
    numeric: list[str] = []
    categorical: list[str] = []
    for q in dataset.quasi:
        enc = dataset.encoded[q]
        codes = enc.row_codes()
        if dataset.specs[q].type in _NUMERIC_TYPES and enc.numbers is not None:
            vals = np.asarray(enc.numbers, dtype=np.float64)[codes]
            if np.isfinite(vals).all():
                span = float(vals.max() - vals.min()) if n else 0.0
                num_cols.append(vals)
                num_w.append(1.0 / span if span > 0 else 0.0)
                numeric.append(q)
                continue
        h = dataset.require_hierarchy(q)
        cat_cols.append(np.asarray(codes, dtype=np.int32))
        cat_maps.append(tuple(np.asarray(m, dtype=np.int32) for m in h.maps))
        cat_w.append(1.0 / h.max_level if h.max_level > 0 else 0.0)
        categorical.append(q)
    n_levels = max((len(m) for m in cat_maps), default=1)
    n_leaves = max((len(m[0]) for m in cat_maps), default=1)
    # Levels above an attribute's root repeat the root (code 0 everywhere), so
    # every leaf pair meets there at the latest.
    maps = np.zeros((len(cat_maps), n_levels, n_leaves), dtype=np.int32)
    for a, levels in enumerate(cat_maps):
        for lvl, m in enumerate(levels):
            maps[a, lvl, : len(m)] = m
    return _Prepared(
        values=np.ascontiguousarray(np.column_stack(num_cols) if num_cols else np.zeros((n, 0))),
        num_weight=np.asarray(num_w, dtype=np.float64),
        codes=np.ascontiguousarray(
            np.column_stack(cat_cols) if cat_cols else np.zeros((n, 0), dtype=np.int32), dtype=np.int32
        ),
        maps=maps,
        cat_weight=np.asarray(cat_w, dtype=np.float64),
        numeric=tuple(numeric),
        categorical=tuple(categorical),
    )


@numba.njit(cache=True, nogil=True)
def _lca_table(maps: np.ndarray, leaf_codes: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover
    """``out[a, x]``: level of the lowest common ancestor of leaf ``x`` and leaf ``leaf_codes[a]``."""
    top = maps.shape[1] - 1
    for a in range(maps.shape[0]):
        ref = leaf_codes[a]
        for x in range(maps.shape[2]):
            lv = 0
            while lv < top and maps[a, lv, x] != maps[a, lv, ref]:
                lv += 1
            out[a, x] = lv


@numba.njit(cache=True, nogil=True)
def lca_level(maps: np.ndarray, a: int, start: int, ref: int, leaf: int) -> int:  # pragma: no cover
    """Lowest level >= ``start`` at which leaves ``ref`` and ``leaf`` of attribute ``a`` meet."""
    lv = start
    top = maps.shape[1] - 1
    while lv < top and maps[a, lv, leaf] != maps[a, lv, ref]:
        lv += 1
    return lv


@numba.njit(cache=True, nogil=True)
def _kmember_kernel(
    values: np.ndarray,
    num_w: np.ndarray,
    codes: np.ndarray,
    maps: np.ndarray,
    cat_w: np.ndarray,
    k: int,
    start: int,
) -> np.ndarray:  # pragma: no cover - compiled
    """Cluster id per row (Fig. 5 of Byun et al.); see :func:`greedy_k_member`.

    ``rem_*`` hold the remaining records' rows, values and codes in row
    order, compacted after each cluster, so a scan reads contiguous memory.
    Per cluster: ``lo``/``hi`` per numeric attribute, ``lvl`` (LCA level) per
    categorical attribute and ``first[c, a]``, the leaf of its first record.
    While a cluster grows, ``lca[a, x]`` holds the LCA level of leaf ``x``
    with that first leaf; adding leaf ``x`` moves the cluster's level to
    ``max(lvl, lca[a, x])``.
    """
    n = values.shape[0]
    p = values.shape[1]
    q = codes.shape[1]
    n_leaves = maps.shape[2]
    labels = np.full(n, -1, dtype=np.int64)
    if n <= k:
        labels[:] = 0
        return labels
    max_clusters = n // k
    lo = np.empty((max_clusters, p))
    hi = np.empty((max_clusters, p))
    lvl = np.zeros((max_clusters, q), dtype=np.int64)
    first = np.zeros((max_clusters, q), dtype=np.int64)
    lca = np.zeros((q, n_leaves), dtype=np.int32)
    size = np.zeros(max_clusters, dtype=np.int64)
    rem_rows = np.arange(n)
    rem_vals = values.copy()
    rem_codes = codes.copy()
    free = np.ones(n, dtype=np.bool_)
    n_rem = n
    r = start
    n_clusters = 0
    r_lca = np.zeros((q, n_leaves), dtype=np.int32)
    while n_rem >= k:
        # the remaining record furthest from r (lowest index on ties)
        _lca_table(maps, codes[r], r_lca)
        best = -1
        best_d = -1.0
        for t in range(n_rem):
            d = 0.0
            for b in range(p):
                d += abs(rem_vals[t, b] - values[r, b]) * num_w[b]
            for a in range(q):
                d += r_lca[a, rem_codes[t, a]] * cat_w[a]
            if d > best_d:
                best_d = d
                best = t
        c = n_clusters
        n_clusters += 1
        r = rem_rows[best]
        free[best] = False
        labels[r] = c
        size[c] = 1
        for b in range(p):
            lo[c, b] = values[r, b]
            hi[c, b] = values[r, b]
        _lca_table(maps, codes[r], lca)
        for a in range(q):
            first[c, a] = codes[r, a]
        while size[c] < k:
            # current distortion, computed exactly as a candidate's would be
            cur = 0.0
            for b in range(p):
                cur += (hi[c, b] - lo[c, b]) * num_w[b]
            for a in range(q):
                cur += lvl[c, a] * cat_w[a]
            best = -1
            best_d = np.inf
            for t in range(n_rem):
                if not free[t]:
                    continue
                d = 0.0
                for b in range(p):
                    v = rem_vals[t, b]
                    d += (max(hi[c, b], v) - min(lo[c, b], v)) * num_w[b]
                for a in range(q):
                    d += max(lvl[c, a], lca[a, rem_codes[t, a]]) * cat_w[a]
                if d < best_d:
                    best_d = d
                    best = t
                    if d <= cur:  # no record can add less than nothing
                        break
            free[best] = False
            r = rem_rows[best]
            labels[r] = c
            size[c] += 1
            for b in range(p):
                v = values[r, b]
                lo[c, b] = min(lo[c, b], v)
                hi[c, b] = max(hi[c, b], v)
            for a in range(q):
                lvl[c, a] = max(lvl[c, a], lca[a, codes[r, a]])
        # drop the clustered records, keeping row order
        kept = 0
        for t in range(n_rem):
            if free[t]:
                rem_rows[kept] = rem_rows[t]
                for b in range(p):
                    rem_vals[kept, b] = rem_vals[t, b]
                for a in range(q):
                    rem_codes[kept, a] = rem_codes[t, a]
                free[kept] = True
                kept += 1
        n_rem = kept
    # leftovers, in row order: each to the cluster whose IL grows least (lowest id on ties)
    for t in range(n_rem):
        j = rem_rows[t]
        best = -1
        best_inc = np.inf
        for c in range(n_clusters):
            cur = 0.0
            new = 0.0
            for b in range(p):
                v = values[j, b]
                cur += (hi[c, b] - lo[c, b]) * num_w[b]
                new += (max(hi[c, b], v) - min(lo[c, b], v)) * num_w[b]
            for a in range(q):
                cur += lvl[c, a] * cat_w[a]
                new += lca_level(maps, a, lvl[c, a], first[c, a], codes[j, a]) * cat_w[a]
            inc = (size[c] + 1) * new - size[c] * cur
            if inc < best_inc:
                best_inc = inc
                best = c
        c = best
        labels[j] = c
        size[c] += 1
        for b in range(p):
            v = values[j, b]
            lo[c, b] = min(lo[c, b], v)
            hi[c, b] = max(hi[c, b], v)
        for a in range(q):
            lvl[c, a] = lca_level(maps, a, lvl[c, a], first[c, a], codes[j, a])
    return labels


def greedy_k_member(dataset: Dataset, k: int, seed: int = 0) -> np.ndarray:
    """Partition the records into clusters of ``k`` to ``2k - 1`` records, greedily minimizing IL.

    Parameters
    ----------
    dataset : Dataset
        An in-memory dataset; its quasi-identifiers are clustered.  Numeric
        and date quasi-identifiers are compared by value (normalized by their
        range in the data), the others through their hierarchy.
    k : int
        Minimum cluster size (>= 1).
    seed : int
        Seed of the random first record (``numpy.random.default_rng``).

    Returns
    -------
    numpy.ndarray
        int64 cluster id per row, ids ``0 .. c - 1`` in the order the
        clusters were built.  When ``n <= k`` all rows form cluster 0 (which
        then has fewer than ``k`` records if ``n < k``).

    Raises
    ------
    ValueError
        If ``k < 1``.
    anonset.errors.DataError
        If the rows are not in memory.
    anonset.errors.ConfigError
        If a non-numeric quasi-identifier has no hierarchy (cannot happen for
        datasets built normally: they get the flat hierarchy).
    """
    if k < 1:
        raise ValueError(f"k must be at least 1; got {k}")
    prep = prepare_attributes(dataset)
    n = dataset.n_rows
    start = int(np.random.default_rng(seed).integers(n))
    return np.asarray(
        _kmember_kernel(prep.values, prep.num_weight, prep.codes, prep.maps, prep.cat_weight, int(k), start),
        dtype=np.int64,
    )


def cluster_information_loss(dataset: Dataset, labels: np.ndarray) -> np.ndarray:
    """IL of every cluster of a partition (Definition 5 of Byun et al.).

    Parameters
    ----------
    dataset : Dataset
        The in-memory dataset the partition is of.
    labels : numpy.ndarray
        Cluster id per row, ids ``0 .. c - 1``.

    Returns
    -------
    numpy.ndarray
        float64 ``IL(e)`` of cluster ``e`` at index ``e`` (0 for an id with no rows).
    """
    prep = prepare_attributes(dataset)
    labels = np.asarray(labels, dtype=np.int64)
    if labels.shape != (dataset.n_rows,):
        raise ValueError(f"labels must have one entry per row ({dataset.n_rows}); got shape {labels.shape}")
    n_clusters = int(labels.max()) + 1 if len(labels) else 0
    sizes = np.bincount(labels, minlength=n_clusters).astype(np.float64)
    order = np.argsort(labels, kind="stable")
    present = np.flatnonzero(sizes > 0)
    starts = np.concatenate([[0], np.cumsum(sizes[present])[:-1]]).astype(np.int64)
    distortion = np.zeros(n_clusters)
    for b in range(prep.values.shape[1]):
        col = prep.values[order, b]
        spread = np.maximum.reduceat(col, starts) - np.minimum.reduceat(col, starts)
        distortion[present] += spread * prep.num_weight[b]
    for a in range(prep.codes.shape[1]):
        leaves = prep.codes[order, a]
        level = np.full(len(present), prep.maps.shape[1] - 1, dtype=np.int64)
        for lv in range(prep.maps.shape[1] - 1, -1, -1):
            anc = prep.maps[a, lv][leaves]
            same = np.maximum.reduceat(anc, starts) == np.minimum.reduceat(anc, starts)
            level = np.where(same, lv, level)
        distortion[present] += level * prep.cat_weight[a]
    return np.asarray(sizes * distortion, dtype=np.float64)


def information_loss(dataset: Dataset, labels: np.ndarray) -> float:
    """Total-IL of a partition: the sum of :func:`cluster_information_loss` (Definition 6).

    Parameters
    ----------
    dataset : Dataset
        The in-memory dataset the partition is of.
    labels : numpy.ndarray
        Cluster id per row, ids ``0 .. c - 1``.

    Returns
    -------
    float
        Total information loss; 0 for a partition into identical-record clusters.
    """
    return float(cluster_information_loss(dataset, labels).sum())
